package subnetevm

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/ethereum/go-ethereum/common"
)

// sdkSuite is the data API's conformance suite (docs/data-api.md,
// "Conformance suite"), whose SDK client and npm packages `make test`
// installs.
const sdkSuite = "../../../tests/dataapi-sdk"

// sdkTimeout bounds the wait until the data module has indexed the
// transactions.
const sdkTimeout = 2 * time.Minute

// sdkAnswer is what testdata/dataapi-transactions.mjs prints.
type sdkAnswer struct {
	Transactions []common.Hash `json:"transactions"`
	Chain        struct {
		ChainID string `json:"chainId"`
		RPCURL  string `json:"rpcUrl"`
	} `json:"chain"`
}

// sdkTransactions reads, through the data API's official SDK, the
// transactions of addr on the EVM chain chainID, once the list holds every
// one of want, and the chain's entry of /v1/chains.
func sdkTransactions(t *testing.T, n *nodetest.Node, chainID *big.Int, addr common.Address, want []common.Hash) sdkAnswer {
	t.Helper()
	suite, err := filepath.Abs(sdkSuite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(suite, "node_modules", ".package-lock.json")); err != nil {
		t.Fatalf("the data API's SDK is not installed (make test runs npm ci in %s): %v", suite, err)
	}
	hashes := make([]string, len(want))
	for i, h := range want {
		hashes[i] = h.Hex()
	}
	ctx, cancel := context.WithTimeout(t.Context(), sdkTimeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "dataapi-transactions.mjs"))
	cmd.Env = append(os.Environ(),
		"NODE_URL="+n.URL, "CHAIN_ID="+chainID.String(), "ADDRESS="+addr.Hex(), "WANT="+strings.Join(hashes, ","),
		"SDK_SUITE="+suite, fmt.Sprintf("TIMEOUT_MS=%d", sdkTimeout.Milliseconds()))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("testdata/dataapi-transactions.mjs: %v\n%s", err, stderr.String())
	}
	var a sdkAnswer
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("testdata/dataapi-transactions.mjs printed %q: %v", out, err)
	}
	return a
}
