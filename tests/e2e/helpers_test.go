package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	pvmclient "github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/xvm/client"
	xvmtxs "github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/sdk/rest"
	"github.com/ethereum/go-ethereum/rpc"
)

// The helpers that several of the end-to-end tests use; a helper that one
// file uses stays in that file.

// postJSON POSTs body as application/json to url and returns the answer's
// status and body, trimmed: the raw-body way to talk to the node, for
// tests that check the bytes or the status. Typed JSON-RPC calls go
// through nodetest.Node.Call.
func postJSON(t testing.TB, url, body string) (int, string) {
	t.Helper()
	return postReader(t, url, strings.NewReader(body))
}

// postChunked is postJSON with the body sent chunked, without its length.
func postChunked(t testing.TB, url, body string) (int, string) {
	t.Helper()
	// A reader net/http cannot tell the length of.
	return postReader(t, url, struct{ io.Reader }{strings.NewReader(body)})
}

// postReader POSTs body, as postJSON does.
func postReader(t testing.TB, url string, body io.Reader) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", body)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: read the answer: %v", url, err)
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// rpcRequest is the body of a JSON-RPC 2.0 call with id 1 and params, JSON.
func rpcRequest(method, params string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
}

// killWhileStarting starts a node with opts and SIGKILLs it within 300 ms,
// during its start-up: a crash test's harshest moment.
func killWhileStarting(t *testing.T, opts nodetest.Options, rng *rand.Rand) {
	t.Helper()
	opts.NoWait = true
	n := nodetest.Start(t, opts)
	time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
	n.Kill()
}

// restGet GETs url and returns the status and the body.
func restGet(t *testing.T, ctx context.Context, url string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, body
}

// wantRESTError checks that an answer is the REST error body of status,
// with every want in its message.
func wantRESTError(t *testing.T, what string, status int, body []byte, wantStatus int, want ...string) {
	t.Helper()
	var e rest.ErrorBody
	if err := json.Unmarshal(body, &e); err != nil || status != wantStatus || e.StatusCode != wantStatus || e.Error != rest.StatusName(wantStatus) {
		t.Errorf("%s: %d %s, want the REST body of %d", what, status, body, wantStatus)
		return
	}
	msg, _ := e.Message.(string)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: message %q lacks %q", what, msg, w)
		}
	}
}

// waitOutput waits until the node has printed want: the banner's chain and
// listener lines follow the health line that nodetest.Start waits for.
func waitOutput(t *testing.T, n *nodetest.Node, want string) {
	t.Helper()
	plugintest.Eventually(t, 10*time.Second, func() error {
		if !strings.Contains(n.Output(), want) {
			return fmt.Errorf("the node has not printed %q", want)
		}
		return nil
	})
}

// rpcErrorCode returns the JSON-RPC error code of err, or 0.
func rpcErrorCode(err error) int {
	if e, ok := err.(rpc.Error); ok {
		return e.ErrorCode()
	}
	return 0
}

// metricSeries reads one series of the host's /ext/metrics (its name and
// labels, as the text format writes them); ok is false when it is absent.
func metricSeries(t *testing.T, n *nodetest.Node, series string) (v float64, ok bool) {
	t.Helper()
	resp, err := http.Get(n.URL + "/ext/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if s, found := strings.CutPrefix(sc.Text(), series+" "); found {
			if v, err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("%s: %v", series, err)
			}
			return v, true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read /ext/metrics: %v", err)
	}
	return 0, false
}

// hostMetric reads a series of /ext/metrics that must be there.
func hostMetric(t *testing.T, n *nodetest.Node, name string) float64 {
	t.Helper()
	v, ok := metricSeries(t, n, name)
	if !ok {
		t.Fatalf("no %s in /ext/metrics", name)
	}
	return v
}

// waitMetricAtMost polls a host metric until it is at most limit, and
// fails with what it was after 30 seconds.
func waitMetricAtMost(t *testing.T, n *nodetest.Node, name string, limit float64) {
	t.Helper()
	plugintest.Eventually(t, 30*time.Second, func() error {
		if v := hostMetric(t, n, name); v > limit {
			return fmt.Errorf("%s is %g, want at most %g", name, v, limit)
		}
		return nil
	})
}

// pluginRestarts reads chainhost_plugin_restarts_total of a plugin.
func pluginRestarts(t *testing.T, n *nodetest.Node, name string) int {
	t.Helper()
	v, _ := metricSeries(t, n, `chainhost_plugin_restarts_total{plugin="`+name+`"}`)
	return int(v)
}

// hostGoroutines reads the host's go_goroutines from /ext/metrics.
func hostGoroutines(t *testing.T, n *nodetest.Node) int {
	t.Helper()
	return int(hostMetric(t, n, "go_goroutines"))
}

// logLines returns the lines of a JSON log file with the message msg.
func logLines(t *testing.T, path, msg string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for line := range strings.SplitSeq(string(b), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["@message"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// installPlugin copies a binary into a plugin dir under name, through a
// rename so that the node never sees a half-written file.
func installPlugin(t *testing.T, src, pluginDir, name string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(t.TempDir(), name)
	plugintest.WriteExecutable(t, tmp, b, 0o755)
	if err := os.Rename(tmp, filepath.Join(pluginDir, name)); err != nil {
		t.Fatal(err)
	}
}

// examplePluginDir returns a new plugin dir holding only the example VM.
func examplePluginDir(t *testing.T) string {
	t.Helper()
	_, built := nodetest.Binaries(t)
	dir := t.TempDir()
	installPlugin(t, filepath.Join(built, "example"), dir, "example")
	return dir
}

func runAdmin(t *testing.T, n *nodetest.Node, cases []adminCase) {
	t.Helper()
	for _, c := range cases {
		path := c.path
		if path == "" {
			path = "/ext/admin"
		}
		got, rpcErrorCode := rawCall(t, n, path, c.method, c.params)
		switch {
		case c.code == 0 && rpcErrorCode != nil:
			t.Errorf("%s %s %v: error %d %q", path, c.method, c.params, rpcErrorCode.Code, rpcErrorCode.Message)
		case c.code == 0 && got != c.result:
			t.Errorf("%s %s %v = %s, want %s", path, c.method, c.params, got, c.result)
		case c.code != 0 && rpcErrorCode == nil:
			t.Errorf("%s %s %v = %s, want error %d", path, c.method, c.params, got, c.code)
		case c.code != 0:
			if rpcErrorCode.Code != c.code {
				t.Errorf("%s %s %v: code %d, want %d: %s", path, c.method, c.params, rpcErrorCode.Code, c.code, rpcErrorCode.Message)
			}
			for _, w := range c.want {
				if !strings.Contains(rpcErrorCode.Message, w) {
					t.Errorf("%s %s %v: message %q lacks %q", path, c.method, c.params, rpcErrorCode.Message, w)
				}
			}
		}
	}
}

func itoa(u uint64) string { return new(big.Int).SetUint64(u).String() }

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// walkIndexRange reads the whole index at path with getContainerRange, page
// containers at a time, checking that each page starts where asked and
// that only the last page is short.
func walkIndexRange(t *testing.T, n *nodetest.Node, path string, page uint64) []indexedContainer {
	t.Helper()
	var out []indexedContainer
	for {
		var ws []containerWire
		a, err := postIndex(context.Background(), n, path, "index.getContainerRange",
			map[string]any{"startIndex": len(out), "numToFetch": page, "encoding": "hex"})
		if err != nil {
			t.Fatal(err)
		}
		if a.Err != nil {
			// The only error of a walk is the start past the end.
			want := fmt.Sprintf("start index (%d) > last accepted index (%d)", len(out), len(out)-1)
			if len(out) == 0 || a.Err.Message != want {
				t.Fatalf("getContainerRange from %d: %+v", len(out), a.Err)
			}
			return out
		}
		if err := json.Unmarshal(a.Result, &ws); err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			c, err := w.decode()
			if err != nil {
				t.Fatalf("getContainerRange from %d: %v", len(out), err)
			}
			if c.Index != uint64(len(out)) {
				t.Fatalf("getContainerRange: container %s has index %d at position %d", c.ID, c.Index, len(out))
			}
			out = append(out, c)
		}
		if uint64(len(ws)) < page {
			return out
		}
	}
}

// putExampleBlock makes one block on the example chain.
func putExampleBlock(ctx context.Context, n *nodetest.Node, chain, key, value string) (putAck, error) {
	var r struct {
		Height  jsonrpc.Uint64 `json:"height"`
		BlockID ids.ID         `json:"blockID"`
		Index   jsonrpc.Uint64 `json:"index"`
	}
	sent := time.Now()
	err := n.Call(ctx, "/ext/bc/"+chain+"/rpc", "kv.put", map[string]string{"key": key, "value": value}, &r)
	if err != nil {
		return putAck{}, err
	}
	return putAck{Key: key, Value: value, Height: uint64(r.Height), Index: uint64(r.Index), BlockID: r.BlockID, Sent: sent, Got: time.Now()}, nil
}

// checkIndexMatchesVM fails unless the index equals the VM's accepted history: the
// same count, and at every height the same bytes, with the ID the sha256
// of the bytes and the blocks linked by their parent IDs.
func checkIndexMatchesVM(t *testing.T, n *nodetest.Node, chain string, got []indexedContainer) {
	t.Helper()
	ctx := context.Background()
	seen := make(map[ids.ID]uint64, len(got))
	for i, c := range got {
		if c.Index != uint64(i) {
			t.Fatalf("container at position %d has index %d", i, c.Index)
		}
		if j, dup := seen[c.ID]; dup {
			t.Fatalf("container %s at indexes %d and %d", c.ID, j, i)
		}
		seen[c.ID] = uint64(i)
		raw, err := ixVMBlock(ctx, n, chain, uint64(i))
		if err != nil {
			t.Fatalf("kv.getBlock(%d): %v", i, err)
		}
		if !bytes.Equal(raw, c.Bytes) {
			t.Fatalf("index %d: bytes %s, the VM accepted %s", i, c.Bytes, raw)
		}
		if ids.ID(sha256.Sum256(raw)) != c.ID {
			t.Fatalf("index %d: ID %s is not the sha256 of the block", i, c.ID)
		}
		var b ixBlock
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		var parent ids.ID
		if i > 0 {
			parent = got[i-1].ID
		}
		if uint64(b.Height) != uint64(i) || b.Parent != parent {
			t.Fatalf("block at index %d: height %d, parent %s; want %d, %s", i, b.Height, b.Parent, i, parent)
		}
	}
	// The VM has nothing beyond the index.
	if _, err := ixVMBlock(ctx, n, chain, uint64(len(got))); err == nil {
		t.Fatalf("the VM has a block at height %d, the index ends before it", len(got))
	}
}

// checkPutsIndexed fails unless every acknowledged put is in the index at the
// position of its block's height, and its value is in the VM's state. With
// indexed, the puts were made with indexing on and their replies' index
// must be that position too.
func checkPutsIndexed(t *testing.T, n *nodetest.Node, got []indexedContainer, acks []putAck, indexed bool) {
	t.Helper()
	for _, a := range acks {
		if a.Height >= uint64(len(got)) || got[a.Height].ID != a.BlockID {
			t.Fatalf("acknowledged put %s (block %s at height %d) is not in the index", a.Key, a.BlockID, a.Height)
		}
		if indexed && a.Index != a.Height {
			t.Fatalf("put %s: the host indexed block %d at %d", a.Key, a.Height, a.Index)
		}
		var v struct {
			Value string `json:"value"`
		}
		if err := n.Call(context.Background(), "/ext/bc/example/rpc", "kv.get", map[string]string{"key": a.Key}, &v); err != nil || v.Value != a.Value {
			t.Fatalf("acknowledged put %s: kv.get = %q, %v; want %q", a.Key, v.Value, err, a.Value)
		}
	}
}

// crashSeed returns the seed of a crash test's random delays, logged so
// that a failure can be replayed.
func crashSeed(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("random delays from seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// indexedBytes returns the bytes of every container of an index, read with
// getContainerRange.
func indexedBytes(t *testing.T, n *nodetest.Node, chain, kind string) [][]byte {
	t.Helper()
	var out [][]byte
	var length struct {
		Index string `json:"index"`
	}
	if err := n.Call(context.Background(), "/ext/index/"+chain+"/"+kind, "index.getLastAccepted", map[string]string{"encoding": "hex"}, &length); err != nil {
		return nil // an empty index
	}
	var last uint64
	fmt.Sscan(length.Index, &last)
	for start := uint64(0); start <= last; start += 1024 {
		var page []struct {
			Bytes string `json:"bytes"`
			Index string `json:"index"`
		}
		err := n.Call(context.Background(), "/ext/index/"+chain+"/"+kind, "index.getContainerRange",
			map[string]any{"startIndex": start, "numToFetch": 1024, "encoding": "hex"}, &page)
		if err != nil {
			t.Fatalf("%s/%s from %d: %v", chain, kind, start, err)
		}
		for i, c := range page {
			if c.Index != fmt.Sprint(start+uint64(i)) {
				t.Fatalf("%s/%s: index %s at %d", chain, kind, c.Index, start+uint64(i))
			}
			b, err := ids.DecodeHexWithChecksum(c.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// walkIndexByIndex walks an index as docs/api/index.md says: index.getContainerByIndex
// from 0 up, until the first index it does not hold.
func walkIndexByIndex(t *testing.T, n *nodetest.Node, chain, kind string) []xContainer {
	t.Helper()
	var out []xContainer
	for i := 0; ; i++ {
		var w struct {
			ID    ids.ID `json:"id"`
			Bytes string `json:"bytes"`
			Index string `json:"index"`
		}
		err := n.Call(context.Background(), "/ext/index/"+chain+"/"+kind, "index.getContainerByIndex",
			map[string]any{"index": i, "encoding": "hex"}, &w)
		var rpcErrorCode *jsonrpc.Error
		if errors.As(err, &rpcErrorCode) && rpcErrorCode.Message == fmt.Sprintf("no container at index %d", i) {
			return out
		}
		if err != nil {
			t.Fatalf("%s/%s: getContainerByIndex %d: %v", chain, kind, i, err)
		}
		b, err := ids.DecodeHexWithChecksum(w.Bytes)
		if err != nil || w.Index != fmt.Sprint(i) {
			t.Fatalf("%s/%s container %d: index %s, %v", chain, kind, i, w.Index, err)
		}
		out = append(out, xContainer{ID: w.ID, Bytes: b, Index: uint64(i)})
	}
}

func xchainInfo(t *testing.T, n *nodetest.Node, alias string) xChainInfo {
	w := xchainWallet(t, n, alias, ewoqKey)
	return xChainInfo{alias: alias, networkID: w.NetworkID, chainID: w.ChainID, feeAsset: w.FeeAsset, fee: w.Fee}
}

// xchainBurned returns what an X-Chain transaction burned of the fee asset:
// its inputs less its outputs.
func xchainBurned(raw []byte, feeAsset ids.ID) (uint64, error) {
	tx, err := xvmtxs.Parse(raw)
	if err != nil {
		return 0, err
	}
	b := tx.Unsigned.Base()
	ins := [][]avax.TransferableInput{b.Ins}
	outs := [][]avax.TransferableOutput{b.Outs}
	switch u := tx.Unsigned.(type) {
	case *xvmtxs.ImportTx:
		ins = append(ins, u.ImportedIns)
	case *xvmtxs.ExportTx:
		outs = append(outs, u.ExportedOuts)
	}
	burned, err := xvmtxs.Flow(feeAsset, 0, ins, outs)
	if err != nil {
		return 0, fmt.Errorf("tx %s: %w", tx.ID(), err)
	}
	return burned[feeAsset], nil
}

// twoXChainsConfig runs two X-Chains, X and X2, one genesis each: X2 is the
// other side of X's atomic transactions (the C-Chain's atomic side comes
// later). config is X's chain config.
func twoXChainsConfig(config string) string {
	return fmt.Sprintf(`
chains:
  - alias: X
    vm: avm
    genesis: %s
    config: %s
    legacy-index-kinds: [vtx]
  - alias: X2
    vm: avm
    genesis: %s
`, xGenesis, config, xGenesis)
}

// xchainWallet returns a wallet of key on chain of node n.
func xchainWallet(t *testing.T, n *nodetest.Node, chain, key string) *client.Wallet {
	t.Helper()
	k, err := avax.ParsePrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	w, err := client.NewWallet(context.Background(), client.New(n.URL, chain, xHTTP), k)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func xchainBalance(t *testing.T, w *client.Wallet, a avax.ShortID) uint64 {
	t.Helper()
	b, err := w.Client.GetBalance(context.Background(), w.FormatAddress(a), "AVAX")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pchainNodeID(b byte) avax.NodeID { return avax.NodeID{b, 0xc4, 0x1a} }

// pchainConfig is a node config running the P-Chain (and an X-Chain, a chain of
// the node its blockchains list) with the given clock.
func pchainConfig(clock string) string {
	return fmt.Sprintf(`
chains:
  - alias: X
    vm: avm
    genesis: %s
    legacy-index-kinds: [vtx]
  - alias: P
    vm: platform
    genesis:
      avaxAssetID: %s
      timestamp: %d
      allocations: [{address: %s, amount: "%d"}]
      validators:
        - {nodeID: %s, weight: "%d", endTime: %d, rewardAddress: %s}
    config: {clock: %s, dev-api-enabled: true, l1-fee-rate: %d, min-stake-duration: 2, min-delegation-fee: 0}
`, xGenesis, pAVAX, pT0, pEwoqAddr, uint64(pFunded), pGenesisNode, uint64(pMinStake), pT0+40*pDay, pEwoqAddr, clock, pRate)
}

// pchainWallet returns a wallet of the ewoq key on the node's P-Chain.
func pchainWallet(t *testing.T, n *nodetest.Node) *pvmclient.Wallet {
	t.Helper()
	k, err := avax.ParsePrivateKey(ewoqKey)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pvmclient.NewWallet(context.Background(), pvmclient.New(n.URL, "P", xHTTP), k)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func setPChainTime(t *testing.T, w *pvmclient.Wallet, at uint64) {
	t.Helper()
	if got, err := w.Client.SetTime(context.Background(), at); err != nil || got != at {
		t.Fatalf("pvm.setTime %d: %d, %v", at, got, err)
	}
}

// walkPChainBlocks walks P/block as docs/api/index.md says and checks that it holds every
// block from height 1 in order, each the chain's block at its height, each
// the child of the one before; it returns the blocks.
func walkPChainBlocks(t *testing.T, n *nodetest.Node, w *pvmclient.Wallet) []*blocks.Block {
	t.Helper()
	ctx := context.Background()
	walked := walkIndexByIndex(t, n, "P", "block")
	height, err := w.Client.GetHeight(ctx)
	if err != nil || uint64(len(walked)) != height {
		t.Fatalf("P/block holds %d blocks, the chain is at height %d (%v)", len(walked), height, err)
	}
	genesis, err := w.Client.GetBlockByHeight(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := blocks.Parse(genesis)
	if err != nil {
		t.Fatal(err)
	}
	parent, last := g.ID(), g.Time
	var out []*blocks.Block
	for i, c := range walked {
		b, err := blocks.Parse(c.Bytes)
		if err != nil || b.ID() != c.ID || b.Height != uint64(i+1) || b.Parent != parent || b.Time < last {
			t.Fatalf("P/block %d: %+v, %v; want height %d, parent %s", i, b, err, i+1, parent)
		}
		at, err := w.Client.GetBlockByHeight(ctx, b.Height)
		if err != nil || string(at) != string(c.Bytes) {
			t.Fatalf("getBlockByHeight %d differs from P/block %d (%v)", b.Height, i, err)
		}
		parent, last = b.ID(), b.Time
		out = append(out, b)
	}
	return out
}

// scenario is what tokenScenario did on the C-Chain.
type scenario struct {
	bob, carol     common.Address
	supply         *big.Int // the ERC-20's supply, the sender's at first
	erc20          common.Address
	native, send20 *types.Receipt // the native transfer to bob, 250 of the ERC-20 to bob
	forward        *types.Receipt // 1000 wei to carol through a forwarding contract (an internal transaction)
}

// tokenScenario has s send, one transaction a block: a native transfer to
// bob, an ERC-20 deployed and 250 of it sent to bob, an ERC-721 deployed
// and token 7 minted to bob, an ERC-1155 deployed, 10 of token 3 minted to
// s and 4 sent to bob, and a call that forwards 1000 wei to carol.
func tokenScenario(t *testing.T, ctx context.Context, s *evmSender) scenario {
	t.Helper()
	tokens := loadContracts(t)
	sc := scenario{
		bob:    common.HexToAddress("0x000000000000000000000000000000000000b0b0"),
		carol:  common.HexToAddress("0x000000000000000000000000000000000000ca01"),
		supply: new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18)),
	}
	sc.native = s.send(ctx, &sc.bob, big.NewInt(1e18), nil, 21000)
	sc.erc20 = s.send(ctx, nil, nil, append(tokens["Token20"].bin, tokens["Token20"].pack(t, "", sc.supply)...), 2_000_000).ContractAddress
	sc.send20 = s.send(ctx, &sc.erc20, nil, tokens["Token20"].pack(t, "transfer", sc.bob, big.NewInt(250)), 100_000)
	erc721 := s.send(ctx, nil, nil, tokens["Token721"].bin, 2_000_000).ContractAddress
	s.send(ctx, &erc721, nil, tokens["Token721"].pack(t, "mint", sc.bob, big.NewInt(7)), 200_000)
	erc1155 := s.send(ctx, nil, nil, tokens["Token1155"].bin, 2_000_000).ContractAddress
	s.send(ctx, &erc1155, nil, tokens["Token1155"].pack(t, "mint", s.addr, big.NewInt(3), big.NewInt(10)), 200_000)
	s.send(ctx, &erc1155, nil, tokens["Token1155"].pack(t, "safeTransferFrom", s.addr, sc.bob, big.NewInt(3), big.NewInt(4), []byte{}), 200_000)
	forwarder := s.send(ctx, nil, nil, forwarderCode, 200_000).ContractAddress
	sc.forward = s.send(ctx, &forwarder, big.NewInt(1000), common.LeftPadBytes(sc.carol[:], 32), 100_000)
	return sc
}
