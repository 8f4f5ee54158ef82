package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/gethtest"
	"github.com/chainhost/chainhost/sdk/plugintest"
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

// externalIndexTimeout bounds the wait for a node to index an external
// chain to a block.
const externalIndexTimeout = 2 * time.Minute

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
// names geth in external-chains. It runs once per store, as
// TestDataAPISDK.
func TestDataAPIExternalGeth(t *testing.T) {
	for _, store := range sdkStores(t) {
		t.Run(store, func(t *testing.T) {
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
		})
	}
}

// TestDataAPIExternalChainhost indexes one chain both ways and compares
// every answer: node A indexes its own C-Chain through the EVM plugin's
// internal path; node B, without chains of its own, indexes A's C-Chain
// through its URL (external-chains, under another name). After the
// conformance suite's scenario on A (the suite also checks A's answers),
// every data endpoint answers the same on both, byte for byte (dataWalk),
// except what names the chain: /v1/chains and the chains of each address,
// where only the EVM chain IDs are compared. It runs once per store, A and
// B on the same one.
func TestDataAPIExternalChainhost(t *testing.T) {
	for _, store := range sdkStores(t) {
		t.Run(store, func(t *testing.T) {
			configA := dataConfig
			if store == "postgres" {
				configA = pgDataConfig(pgDatabase(t), "")
			}
			a := nodetest.Start(t, nodetest.Options{Config: configA})
			cChain := evmremote.Chain{
				Name:    "chain-of-a",
				ChainID: evmChainID,
				RPCURL:  a.URL + "/ext/bc/C/rpc",
				WSURL:   "ws" + strings.TrimPrefix(a.URL, "http") + "/ext/bc/C/ws",
			}
			b := nodetest.Start(t, nodetest.Options{Config: externalDataConfig(t, store, cChain, fmt.Sprintf(cChainToken, cChain.Name))})
			runSDKSuite(t, "conformance.test.js", "DATAAPI_NODE_URL="+a.URL)

			ctx, cancel := context.WithTimeout(context.Background(), externalIndexTimeout)
			defer cancel()
			head, err := evmDial(t, a, "C", "rpc").BlockNumber(ctx)
			if err != nil {
				t.Fatal(err)
			}
			chainID := strconv.FormatUint(cChain.ChainID, 10)
			waitIndexedTo(t, b, chainID, head)
			walkA := dataWalk(t, a.URL, chainID, head, evmLocalAddr)
			walkB := dataWalk(t, b.URL, chainID, head, evmLocalAddr)
			sameWalk(t, "A (internal path)", withoutChainNames(t, walkA), "B (through A's URL)", withoutChainNames(t, walkB))
		})
	}
}

// waitIndexedTo waits until the data API of n serves block head of chain.
func waitIndexedTo(t *testing.T, n *nodetest.Node, chain string, head uint64) {
	t.Helper()
	plugintest.Eventually(t, externalIndexTimeout, func() error {
		status, body := restGet(t, context.Background(), fmt.Sprintf("%s/v1/chains/%s/blocks/%d", n.URL, chain, head))
		if status != 200 {
			return fmt.Errorf("block %d of chain %s not indexed: %d %s", head, chain, status, body)
		}
		return nil
	})
}

// withoutChainNames returns a walk of dataWalk without what names the
// chain, which differs between a node's own chain and the same chain
// indexed through its URL: the answer of /v1/chains is left out, and the
// chains of an address are reduced to their EVM chain IDs.
func withoutChainNames(t *testing.T, walk map[string]string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(walk))
	for k, v := range walk {
		switch {
		case k == "/v1/chains":
			continue
		case strings.HasPrefix(k, "/v1/address/") && strings.HasSuffix(k, "/chains"):
			status, body, _ := strings.Cut(v, " ")
			var answer struct {
				IndexedChains   []struct{ ChainID string } `json:"indexedChains"`
				UnindexedChains []string                   `json:"unindexedChains"`
			}
			if err := json.Unmarshal([]byte(body), &answer); err != nil {
				t.Fatalf("GET %s: %v: %s", k, err, body)
			}
			ids, err := json.Marshal(answer)
			if err != nil {
				t.Fatal(err)
			}
			v = status + " " + string(ids)
		}
		out[k] = v
	}
	return out
}
