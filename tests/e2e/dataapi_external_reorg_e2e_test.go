package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/gethtest"
	"github.com/chainhost/chainhost/internal/testchain"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// xcName is the name the indexing nodes give the upstream's C-Chain.
const xcName = "upstream-c"

// xcChain is the upstream's imported history: every kind of activity the
// data API derives, in small blocks.
var xcChain = testchain.Options{Txs: 600, TxsPerBlock: 10, Mix: testchain.Varied}

// xcUpstreamConfig runs a C-Chain that imports file, then builds a block
// for each transaction, with the dev API (so that debug_setHead rewinds
// it: the node keeps no index, xcUpstreamArgs).
func xcUpstreamConfig(t *testing.T, file string) string {
	return fmt.Sprintf(`
chains:
  - alias: C
    vm: evm
    genesis: %s
    config: {block-production: auto, dev-api-enabled: true, import-chain-file: %q}
modules: []
`, testchainGenesis(t), file)
}

// xcUpstreamArgs turn the upstream's index off: a rewind is refused on a
// node whose index would keep the abandoned blocks.
var xcUpstreamArgs = []string{"--index-enabled=false"}

// xcIndexerConfig runs no chain and the data module with the upstream's
// C-Chain at rpcURL as an external chain, on store ("pebble" or a
// PostgreSQL URL); more is added to the chain's entry. The URL it
// advertises is the same whatever rpcURL is, so that the answers of
// nodes reaching the chain by different URLs compare.
func xcIndexerConfig(t *testing.T, rpcURL, store, more string) string {
	storeLine := ""
	switch {
	case store == "pebble":
	case strings.HasPrefix(store, "postgres"):
		storeLine = fmt.Sprintf("      store: {engine: postgres, url: %q}\n", store)
	default:
		t.Fatalf("store %q", store)
	}
	return fmt.Sprintf(`
chains: []
modules:
  - name: data
    plugin: dataapi
    config:
      public-url: http://node.invalid
      rate-limit: {anonymous: {per-second: 0}}
%s      external-chains:
        - name: %s
          chain-id: %d
          rpc-url: %s
          public-rpc-url: http://upstream.invalid/rpc
%s`, storeLine, xcName, testchain.ChainID, rpcURL, more)
}

// xcStores are the stores the external-chain tests run on: the embedded
// default, and PostgreSQL (a throwaway database each).
func xcStores(t *testing.T) map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"pebble":   func(*testing.T) string { return "pebble" },
		"postgres": pgDatabase,
	}
}

// TestDataAPIExternalReorg: a node indexes another node's C-Chain through
// its URL while that chain reorganises, by one block then by ten (each
// new branch with transactions of its own). Afterwards everything the API
// serves about the chain is byte for byte what a fresh index of the final
// chain serves, on both stores, and the transactions of the abandoned
// blocks are answered 404.
func TestDataAPIExternalReorg(t *testing.T) {
	t.Parallel()
	chain, err := testchain.Generate(t.TempDir(), xcChain)
	if err != nil {
		t.Fatal(err)
	}
	for name, store := range xcStores(t) {
		t.Run(name, func(t *testing.T) {
			up := nodetest.Start(t, nodetest.Options{Config: xcUpstreamConfig(t, chain.File), Args: xcUpstreamArgs})
			rpcURL := up.URL + "/ext/bc/C/rpc"
			n := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, rpcURL, store(t), "")})
			xcWaitSame(t, n, rpcURL, xcName)

			var abandoned []common.Hash
			for _, depth := range []int{1, 10} {
				before := xcTxsFrom(t, rpcURL, xcHead(t, rpcURL)-uint64(depth)+1)
				reorgC(t, up, depth)
				xcWaitSame(t, n, rpcURL, xcName)
				abandoned = append(abandoned, before...)
				t.Logf("reorganised %d blocks deep: %d transactions abandoned", depth, len(before))
			}
			// Each reorganisation was seen and rolled back once.
			if got := xcReorgs(t, n); got != 2 {
				t.Errorf("dataapi_indexer_reorgs_total of %s = %v, want 2", xcName, got)
			}
			final := xcChainFromRPC(t, rpcURL, chain.Addresses)
			onFinal := map[common.Hash]bool{}
			for _, h := range final.Txs {
				onFinal[h] = true
			}
			for _, h := range abandoned {
				if onFinal[h] {
					continue
				}
				path := fmt.Sprintf("%s/v1/chains/%d/transactions/%s", n.URL, testchain.ChainID, h.Hex())
				if status, body, err := dcGet(path); err != nil || status != http.StatusNotFound {
					t.Errorf("GET %s = %d %s %v, want 404: the transaction is in no block of the chain", path, status, body, err)
				}
			}
			got := dcDump(t, n.URL, final)

			fresh := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, rpcURL, store(t), "")})
			xcWaitSame(t, fresh, rpcURL, xcName)
			xcSameDump(t, got, dcDump(t, fresh.URL, final))
		})
	}
}

// metadataReadAt is when a node read an NFT's metadata.
var metadataReadAt = regexp.MustCompile(`"metadataLastUpdatedTimestamp":\d+`)

// xcReorgs reads how many reorganisations of the external chain the data
// module of n rolled back.
func xcReorgs(t *testing.T, n *nodetest.Node) float64 {
	t.Helper()
	_, metrics := restGet(t, context.Background(), n.URL+"/ext/metrics")
	m := regexp.MustCompile(`(?m)^dataapi_indexer_reorgs_total\{[^}]*chain="` + xcName + `"[^}]*\} (\S+)$`).FindSubmatch(metrics)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// xcSameDump fails the test at the first line where got and want, dumps
// of two nodes, differ, but for the times each node read NFT metadata.
func xcSameDump(t *testing.T, got, want []byte) {
	t.Helper()
	got, want = metadataReadAt.ReplaceAll(got, []byte(`"metadataLastUpdatedTimestamp":…`)), metadataReadAt.ReplaceAll(want, []byte(`"metadataLastUpdatedTimestamp":…`))
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("the dumps differ at line %d:\n got: %.2000s\nwant: %.2000s", i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("the dump has %d lines, the other %d", len(gl), len(wl))
}

// xcHead returns the number of the head block of the chain at rpcURL.
func xcHead(t *testing.T, rpcURL string) uint64 {
	t.Helper()
	c := xcDial(t, rpcURL)
	n, err := c.BlockNumber(context.Background())
	if err != nil {
		t.Fatalf("eth_blockNumber: %v", err)
	}
	return n
}

// xcDial connects go-ethereum's client to rpcURL.
func xcDial(t *testing.T, rpcURL string) *ethclient.Client {
	t.Helper()
	c, err := ethclient.Dial(rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// xcTxsFrom returns the hashes of the transactions of the blocks from
// number from to the head.
func xcTxsFrom(t *testing.T, rpcURL string, from uint64) []common.Hash {
	t.Helper()
	c := xcDial(t, rpcURL)
	var out []common.Hash
	for n := from; n <= xcHead(t, rpcURL); n++ {
		b, err := c.BlockByNumber(context.Background(), new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		for _, tx := range b.Transactions() {
			out = append(out, tx.Hash())
		}
	}
	return out
}

// xcChainFromRPC describes the chain at rpcURL as it is now, for dcDump:
// its head, block hashes and transactions, and addresses (those given; the
// dump adds every address the answers name).
func xcChainFromRPC(t *testing.T, rpcURL string, addresses []common.Address) *testchain.Chain {
	t.Helper()
	c := xcDial(t, rpcURL)
	out := &testchain.Chain{Head: xcHead(t, rpcURL), Addresses: addresses}
	for n := uint64(1); n <= out.Head; n++ {
		b, err := c.BlockByNumber(context.Background(), new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		out.Hashes = append(out.Hashes, b.Hash())
		for _, tx := range b.Transactions() {
			out.Txs = append(out.Txs, tx.Hash())
		}
	}
	return out
}

// xcWaitSame waits until the data API of n serves the head block of the
// chain at rpcURL, with its hash, and its health shows the chain it names
// name indexed to there with no error.
func xcWaitSame(t *testing.T, n *nodetest.Node, rpcURL, name string) {
	t.Helper()
	c := xcDial(t, rpcURL)
	plugintest.EventuallyEvery(t, 3*time.Minute, 10*time.Millisecond, func() error {
		head, err := c.HeaderByNumber(context.Background(), nil)
		if err != nil {
			return err
		}
		status, body, err := dcGet(fmt.Sprintf("%s/v1/chains/%d/blocks/%d", n.URL, testchain.ChainID, head.Number))
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("block %d: %d %s %v", head.Number, status, body, err)
		}
		if !bytes.Contains(body, []byte(head.Hash().Hex())) {
			return fmt.Errorf("block %d is not %s yet: %s", head.Number, head.Hash(), body)
		}
		h := dcModuleHealth(t, n).Details.Chains[name]
		if h["height"] != float64(head.Number.Uint64()) || h["error"] != nil {
			return fmt.Errorf("health of %s: %v, want height %d", name, h, head.Number)
		}
		return nil
	})
}

// TestDataAPIExternalConfirmations: with confirmations, the module indexes
// the upstream's chain only that many blocks below its head, and says so
// in its health (the accepted height is the last block it may index).
func TestDataAPIExternalConfirmations(t *testing.T) {
	t.Parallel()
	chain, err := testchain.Generate(t.TempDir(), testchain.Options{Txs: 60, TxsPerBlock: 10, Mix: testchain.Varied})
	if err != nil {
		t.Fatal(err)
	}
	up := nodetest.Start(t, nodetest.Options{Config: xcUpstreamConfig(t, chain.File), Args: xcUpstreamArgs})
	rpcURL := up.URL + "/ext/bc/C/rpc"
	n := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, rpcURL, "pebble", "          confirmations: 3\n")})
	head := xcHead(t, rpcURL)
	plugintest.Eventually(t, time.Minute, func() error {
		h := dcModuleHealth(t, n).Details.Chains[xcName]
		if h["height"] != float64(head-3) || h["accepted"] != float64(head-3) {
			return fmt.Errorf("health of %s: %v, want height and accepted %d", xcName, h, head-3)
		}
		return nil
	})
	for b, want := range map[uint64]int{head - 3: http.StatusOK, head - 2: http.StatusNotFound} {
		if status, body, err := dcGet(fmt.Sprintf("%s/v1/chains/%d/blocks/%d", n.URL, testchain.ChainID, b)); err != nil || status != want {
			t.Errorf("block %d (head %d): %d %s %v, want %d", b, head, status, body, err, want)
		}
	}
}

// TestDataAPIExternalRefused: the module refuses to index a node that
// answers another eth_chainId than the config's chain-id, and a chain
// whose EVM chain ID changed under the same name; each is reported in
// its health (upstream "refused", with why) while the node serves on.
func TestDataAPIExternalRefused(t *testing.T) {
	t.Parallel()
	chain, err := testchain.Generate(t.TempDir(), testchain.Options{Txs: 20, TxsPerBlock: 10, Mix: testchain.Varied})
	if err != nil {
		t.Fatal(err)
	}
	up := nodetest.Start(t, nodetest.Options{Config: xcUpstreamConfig(t, chain.File), Args: xcUpstreamArgs})
	rpcURL := up.URL + "/ext/bc/C/rpc"
	refused := func(n *nodetest.Node, want string) {
		t.Helper()
		plugintest.Eventually(t, time.Minute, func() error {
			h := dcModuleHealth(t, n).Details.Chains[xcName]
			if h["upstream"] != "refused" || !strings.Contains(fmt.Sprint(h["error"]), want) {
				return fmt.Errorf("health of %s: %v, want upstream refused, the error holding %q", xcName, h, want)
			}
			return nil
		})
	}

	wrongID := strings.Replace(xcIndexerConfig(t, rpcURL, "pebble", ""), fmt.Sprintf("chain-id: %d", testchain.ChainID), "chain-id: 1337", 1)
	n := nodetest.Start(t, nodetest.Options{Config: wrongID})
	refused(n, "answers eth_chainId 43112, the config says chain-id 1337")

	// The same name on a store that indexed it under 43112, now naming a
	// node of chain 1337 (geth --dev).
	n = nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, rpcURL, "pebble", "")})
	xcWaitSame(t, n, rpcURL, xcName)
	n.Stop(t)
	gethURL, _ := gethtest.Start(t)
	opts := n.Opts
	opts.Config = strings.Replace(strings.Replace(opts.Config, rpcURL, gethURL, 1), fmt.Sprintf("chain-id: %d", testchain.ChainID), "chain-id: 1337", 1)
	n = nodetest.Start(t, opts)
	refused(n, "the store holds a chain named")
	if status, _, err := dcGet(fmt.Sprintf("%s/v1/chains/1337/blocks/1", n.URL)); err != nil || status != http.StatusNotFound {
		t.Errorf("a block of the refused chain: %d %v, want 404", status, err)
	}
}

// TestDataAPIExternalReorgTooDeep: a reorganisation deeper than
// max-reorg-depth is not rolled back: the chain's indexing stops with an
// error in its health that says what to do, and what was indexed is
// served as it was.
func TestDataAPIExternalReorgTooDeep(t *testing.T) {
	t.Parallel()
	chain, err := testchain.Generate(t.TempDir(), testchain.Options{Txs: 60, TxsPerBlock: 10, Mix: testchain.Varied})
	if err != nil {
		t.Fatal(err)
	}
	up := nodetest.Start(t, nodetest.Options{Config: xcUpstreamConfig(t, chain.File), Args: xcUpstreamArgs})
	rpcURL := up.URL + "/ext/bc/C/rpc"
	n := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, rpcURL, "pebble", "          max-reorg-depth: 3\n")})
	xcWaitSame(t, n, rpcURL, xcName)
	before := xcChainFromRPC(t, rpcURL, chain.Addresses)
	reorgC(t, up, 5)
	plugintest.Eventually(t, time.Minute, func() error {
		h := dcModuleHealth(t, n).Details.Chains[xcName]
		if h["upstream"] != "refused" || !strings.Contains(fmt.Sprint(h["error"]), "deeper than max-reorg-depth (3)") {
			return fmt.Errorf("health of %s: %v, want upstream refused: deeper than max-reorg-depth", xcName, h)
		}
		return nil
	})
	last := before.Hashes[len(before.Hashes)-1]
	if status, body, err := dcGet(fmt.Sprintf("%s/v1/chains/%d/blocks/%d", n.URL, testchain.ChainID, before.Head)); err != nil || status != http.StatusOK || !bytes.Contains(body, []byte(last.Hex())) {
		t.Errorf("the last block indexed before the reorganisation: %d %s %v, want it served as it was (%s)", status, body, err, last)
	}
}
