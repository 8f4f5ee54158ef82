package e2e

import (
	"net/url"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
)

// avalanchejsSuiteDir is the avalanche.js 3.16 client suite, relative to
// this package (docs/avalanchego-clients.md).
const avalanchejsSuiteDir = "../../tests/avalanchejs"

// avalanchejsTimeout bounds one run of the suite; it takes seconds.
const avalanchejsTimeout = 3 * time.Minute

// TestAvalancheJS: avalanche.js 3.16 on its built-in defaults for network
// 12345, told no chain or asset ID, against a node on the embedded default
// config: an X-Chain transfer, an X→C export and a C import, an X→P export
// and a P import, each accepted or committed, and the balances after
// (tests/avalanchejs/local-network.test.mjs). The library's defaults are
// per network ID, not per port: the port the node picked is passed.
func TestAvalancheJS(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	n.WaitHealthy(t)
	u, err := url.Parse(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	runNodeTests(t, avalanchejsSuiteDir, "local-network.test.mjs", avalanchejsTimeout, "CHAINHOST_PORT="+u.Port())
}
