package e2e

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
)

// externalChainName is the name node B's data module gives node A's
// C-Chain.
const externalChainName = "upstream-c"

// externalExplorerConfig runs no chain, and the data and metrics modules
// with A's C-Chain (at upstream, a base URL) as the external chain
// upstream-c, over its WebSocket too when ws, and the explorer. The
// metrics module counts the chain up to the block below its head rather
// than 64 below (docs/metrics-api.md, "External chains"), so that the
// short history of the test is in its series.
func externalExplorerConfig(upstream string, ws bool) string {
	wsURL := ""
	if ws {
		wsURL = wsOf(upstream) + "/ext/bc/C/ws"
	}
	return fmt.Sprintf(`
chains: []
modules:
  - name: data
    plugin: dataapi
    config:
      rate-limit: {anonymous: {per-second: 0}}
      external-chains:
        - {name: %[1]s, chain-id: 43112, rpc-url: %[2]s/ext/bc/C/rpc, ws-url: %[3]q}
  - name: metrics
    plugin: metricsapi
    config:
      rate-limit: {anonymous: {per-second: 0}}
      external-chains:
        - {name: %[1]s, chain-id: 43112, rpc-url: %[2]s/ext/bc/C/rpc, confirmations: 1}
  - name: explorer
`, externalChainName, upstream, wsURL)
}

// wsOf is the WebSocket base URL of a node's HTTP base URL.
func wsOf(base string) string { return "ws" + strings.TrimPrefix(base, "http") }

// TestExplorerExternalChain runs the explorer's browser test on a node B
// that runs no chain of its own: its data and metrics modules index node
// A's C-Chain through A's URLs as the external chain upstream-c, and A
// lets B's origin call it (http-cors-allowed-origins), as docs/explorer.md
// ("External chains") says. After TestExplorer's C-Chain scenario on A,
// every page of the external chain (node, chain, block, transaction,
// address, search) is compared with B's data API and A's JSON-RPC, and a
// block made on A arrives on the chain page over A's WebSocket; then, B
// restarted without the chain's ws-url, by polling.
func TestExplorerExternalChain(t *testing.T) {
	t.Parallel()
	bAddr := freeAddr(t)
	_, bPort, err := net.SplitHostPort(bAddr)
	if err != nil {
		t.Fatal(err)
	}
	a := nodetest.Start(t, nodetest.Options{Config: fmt.Sprintf("http-cors-allowed-origins: [%q]\nmodules: []\n", "http://"+bAddr)})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := newSender(t, ctx, evmDial(t, a, "C", "rpc"), evmKey(t))
	sc := tokenScenario(t, ctx, s)

	startB := func(ws bool, dataDir string) *nodetest.Node {
		t.Helper()
		b := nodetest.Start(t, nodetest.Options{Config: externalExplorerConfig(a.URL, ws), DataDir: dataDir, Args: []string{"--http-port=" + bPort}})
		if b.URL != "http://"+bAddr {
			t.Fatalf("node B serves at %s, not at the origin A allows (http://%s)", b.URL, bAddr)
		}
		waitDataBlock(t, b, sc.forward.BlockNumber.Uint64())
		return b
	}
	facts := map[string]any{
		"evmChainId": 43112, "external": externalChainName,
		"upstreamRpc": a.URL + "/ext/bc/C/rpc", "upstreamWs": wsOf(a.URL) + "/ext/bc/C/ws",
		"bob": sc.bob.Hex(), "nativeTx": sc.native.TxHash.Hex(), "erc20Tx": sc.send20.TxHash.Hex(), "forwardTx": sc.forward.TxHash.Hex(),
		"erc20Block": sc.send20.BlockNumber.String(), "erc20BlockHash": sc.send20.BlockHash.Hex(),
	}
	b := startB(true, "")
	runExplorerSuite(t, b, "external", facts)

	b.Stop(t)
	b = startB(false, b.DataDir)
	runExplorerSuite(t, b, "external-poll", facts)
}
