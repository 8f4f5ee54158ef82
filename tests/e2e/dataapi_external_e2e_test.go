package e2e

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/gethtest"
)

// gethDevChainID is the EVM chain ID of `geth --dev`.
const gethDevChainID = 1337

// gethSuiteFlags are what the conformance suite needs of geth --dev
// beyond gethtest's flags: the dev namespace (dev_addWithdrawal makes it
// build a block without transactions), and room for the scenario's gas
// times gethGasScale (blocks of 100M gas, no cap on a transaction's fee).
var gethSuiteFlags = []string{
	"--http.api", "eth,net,web3,debug,txpool,dev",
	"--ws.api", "eth,net,web3,debug,txpool,dev",
	"--dev.gaslimit", "100000000",
	"--rpc.txfeecap", "0",
}

// gethGasScale multiplies the gas the scenario gives its transactions on
// geth --dev, whose newest fork prices new state about five times as
// high as the C-Chain's Cancun.
const gethGasScale = "5"

// externalChainConfig is one entry of the data module's external-chains
// (docs/data-api.md, "Indexing a chain of another node"), as lines of the
// module's config (indented by six spaces).
func externalChainConfig(c evmremote.Chain) string {
	return fmt.Sprintf(`      external-chains:
        - name: %q
          chain-id: %d
          rpc-url: %q
          ws-url: %q
`, c.Name, c.ChainID, c.RPCURL, c.WSURL)
}

// externalDataConfig is the config of a node without chains of its own
// whose data module indexes c, on store (pebble or postgres), with more
// lines of the module's config.
func externalDataConfig(t *testing.T, store string, c evmremote.Chain, more string) string {
	t.Helper()
	if store == "postgres" {
		return "chains: []\n" + pgDataConfig(pgDatabase(t), externalChainConfig(c)+more)
	}
	return "chains: []\n" + dataConfig + externalChainConfig(c) + more
}

// cChainToken describes an external chain's native token as the data
// module describes the C-Chain's, so that the two answer alike.
const cChainToken = `      chains: {%q: {network-token: {name: Avalanche, symbol: AVAX, description: "The native token of the C-Chain."}}}
`

// TestDataAPIExternalGeth runs the data API conformance suite on a chain
// the node indexes through its standard JSON-RPC only: a real go-ethereum
// node (`geth --dev`, gethtest), on which the suite funds the local
// network's key from geth's dev account, runs its scenario, and checks
// every answer against. The node has no chain of its own; its data module
// names geth in external-chains. It runs on the embedded store, and
// TestDataAPIExternalChainhost on PostgreSQL: where a chain's blocks come
// from and where its records go are separate layers, each tested on every
// kind by TestDataAPISDK and storetest.
func TestDataAPIExternalGeth(t *testing.T) {
	t.Parallel()
	store := externalStore(t, "pebble")
	rpcURL, wsURL := gethtest.Start(t, gethSuiteFlags...)
	geth := evmremote.Chain{Name: "geth-dev", ChainID: gethDevChainID, RPCURL: rpcURL, WSURL: wsURL}
	n := nodetest.Start(t, nodetest.Options{Config: externalDataConfig(t, store, geth, "")})
	runSDKSuite(t, "conformance.test.js",
		"DATAAPI_NODE_URL="+n.URL,
		"DATAAPI_CHAIN_RPC="+rpcURL,
		"DATAAPI_CHAIN_WS="+wsURL,
		"DATAAPI_CHAIN_NAME="+geth.Name,
		"DATAAPI_CHAIN_BLOCKCHAIN_ID="+evmremote.DerivedID(geth.Name).String(),
		"DATAAPI_GAS_SCALE="+gethGasScale,
	)
}

// externalStore returns store when DATAAPI_SDK_STORES lets the suites run
// on it, and skips the test otherwise.
func externalStore(t *testing.T, store string) string {
	t.Helper()
	if !slices.Contains(sdkStores(t), store) {
		t.Skipf("%s=%s leaves out %s, the store this test runs on", sdkSuiteStoresEnv, os.Getenv(sdkSuiteStoresEnv), store)
	}
	return store
}

// TestDataAPIExternalChainhost indexes one chain both ways and compares
// every answer: node A indexes its own C-Chain through the EVM plugin's
// internal path; node B, without chains of its own, indexes A's C-Chain
// through its URL (external-chains, under another name). After the
// conformance suite's scenario on A (the suite also checks A's answers),
// every data endpoint answers the same on both, byte for byte (dcDump),
// except what names the chain: /v1/chains and the chains of each address,
// where only the EVM chain IDs are compared. A and B store on PostgreSQL
// (TestDataAPIExternalGeth runs on the embedded store).
func TestDataAPIExternalChainhost(t *testing.T) {
	t.Parallel()
	externalStore(t, "postgres")
	a := nodetest.Start(t, nodetest.Options{Config: pgDataConfig(pgDatabase(t), "")})
	cChain := evmremote.Chain{
		Name:    "chain-of-a",
		ChainID: evmChainID,
		RPCURL:  a.URL + "/ext/bc/C/rpc",
		WSURL:   "ws" + strings.TrimPrefix(a.URL, "http") + "/ext/bc/C/ws",
	}
	b := nodetest.Start(t, nodetest.Options{Config: externalDataConfig(t, "postgres", cChain, fmt.Sprintf(cChainToken, cChain.Name))})
	runSDKSuite(t, "conformance.test.js", "DATAAPI_NODE_URL="+a.URL)

	rpcURL := a.URL + "/ext/bc/C/rpc"
	xcWaitSame(t, a, rpcURL, "C")
	xcWaitSame(t, b, rpcURL, cChain.Name)
	chain := xcChainFromRPC(t, rpcURL, []common.Address{common.HexToAddress(evmLocalAddr)})
	xcSameDump(t, acrossNodes(dcDump(t, b.URL, chain)), acrossNodes(dcDump(t, a.URL, chain)))
}

// acrossNodes returns a dump of dcDump without the answers that name the
// chain, which differ between a node's own chain and the same chain
// indexed through its URL: /v1/chains and the chains of each address.
func acrossNodes(dump []byte) []byte {
	var out []byte
	for line := range bytes.Lines(dump) {
		path, _, _ := bytes.Cut(line, []byte(" "))
		if string(path) == "/v1/chains" || (bytes.HasPrefix(path, []byte("/v1/address/")) && bytes.HasSuffix(path, []byte("/chains"))) {
			continue
		}
		out = append(out, line...)
	}
	return out
}
