package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/client"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// xGenesis funds the ewoq key with 300,000,000 AVAX, like the local
// network's X-Chain.
const xGenesis = `{assets: [{alias: AVAX, name: Avalanche, symbol: AVAX, denomination: 9,
        initialState: {fixedCap: [{amount: "300000000000000000", address: X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u}]}}]}`

const (
	xGenesisAmount uint64 = 300_000_000_000_000_000
	xFee           uint64 = 1_000_000
	ewoqKey               = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
)

// xHTTP is the test's HTTP client: a node killed mid-request must not
// hang it.
var xHTTP = &http.Client{Timeout: 20 * time.Second}

// xContainer is an index container as the index API answers it.
type xContainer struct {
	ID    ids.ID
	Bytes []byte
	Index uint64
}

// TestXChainTransfersAndAtomic: on the real node, a transfer moves funds
// and burns the fee; a double spend is refused with a clear error and
// changes nothing; an export from X puts a UTXO in shared memory that X2's
// getUTXOs with sourceChain X shows, and an import on X2 consumes it once.
// Every step is in getTx, getTxStatus and the X indexes, which a walk of
// X/tx by index (docs/api/index.md) followed by getTx for each ID reproduces.
func TestXChainTransfersAndAtomic(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: twoXChainsConfig("{tx-fee: 1000000}")})
	ctx := context.Background()
	x := xchainWallet(t, n, "X", ewoqKey)
	x2 := xchainWallet(t, n, "X2", ewoqKey)
	me := x.Address()
	bob := avax.ShortID{0xb0}

	// A transfer, with its fee.
	sent, err := x.Send(ctx, x.FeeAsset, 2_000_000_000, bob)
	if err != nil {
		t.Fatal(err)
	}
	if got := xchainBalance(t, x, bob); got != 2_000_000_000 {
		t.Fatalf("bob holds %d", got)
	}
	afterSend := xGenesisAmount - 2_000_000_000 - xFee
	if got := xchainBalance(t, x, me); got != afterSend {
		t.Fatalf("ewoq holds %d, want %d", got, afterSend)
	}

	// A double spend: two transactions of the same UTXO.
	first, err := x.BuildSend(ctx, x.FeeAsset, 1_000, bob, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := x.BuildSend(ctx, x.FeeAsset, 5_000, avax.ShortID{0xc0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Client.IssueTx(ctx, first.Bytes()); err != nil {
		t.Fatal(err)
	}
	before := xchainBalance(t, x, me)
	_, err = x.Client.IssueTx(ctx, second.Bytes())
	var rpcErrorCode *jsonrpc.Error
	if !errors.As(err, &rpcErrorCode) || !strings.Contains(rpcErrorCode.Message, "double spend") || !strings.Contains(rpcErrorCode.Message, first.ID().String()) {
		t.Fatalf("double spend: %v; want an error naming the double spend and %s", err, first.ID())
	}
	if xchainBalance(t, x, me) != before || xchainBalance(t, x, avax.ShortID{0xc0}) != 0 {
		t.Fatal("the refused double spend changed balances")
	}
	if s, _ := x.Client.GetTxStatus(ctx, second.ID()); s != "Unknown" {
		t.Fatalf("status of the refused tx: %s", s)
	}

	// An export from X to X2, visible from X2, imported once.
	exported, err := x.Export(ctx, x2.ChainID, x.FeeAsset, 7_000_000_000, me)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := x2.Client.AllUTXOs(ctx, []string{x2.FormatAddress(me)}, "X")
	if err != nil || len(pending) != 1 || pending[0].TxID != exported || pending[0].Out.Amt != 7_000_000_000 {
		t.Fatalf("X2 getUTXOs sourceChain X: %+v, %v", pending, err)
	}
	if local, _ := x.Client.AllUTXOs(ctx, []string{x.FormatAddress(me)}, "X2"); len(local) != 0 {
		t.Fatalf("X sees its own export as importable: %+v", local)
	}
	x2Before := xchainBalance(t, x2, me)
	imported, err := x2.Import(ctx, "X", me)
	if err != nil {
		t.Fatal(err)
	}
	if got := xchainBalance(t, x2, me); got != x2Before+7_000_000_000-xFee {
		t.Fatalf("X2 after import %d, want %d", got, x2Before+7_000_000_000-xFee)
	}
	if left, _ := x2.Client.AllUTXOs(ctx, []string{x2.FormatAddress(me)}, "X"); len(left) != 0 {
		t.Fatalf("the imported UTXO is still in shared memory: %+v", left)
	}
	if _, err := x2.Import(ctx, "X", me); !errors.Is(err, client.ErrNothingToImport) {
		t.Fatalf("second import: %v", err)
	}

	// Every step in getTxStatus, getTx and the indexes.
	xTxs := []ids.ID{sent, first.ID(), exported}
	for _, id := range xTxs {
		if s, err := x.Client.GetTxStatus(ctx, id); err != nil || s != "Accepted" {
			t.Fatalf("status of %s: %s, %v", id, s, err)
		}
	}
	if s, _ := x2.Client.GetTxStatus(ctx, imported); s != "Accepted" {
		t.Fatalf("status of the import on X2: %s", s)
	}
	walked := walkIndexByIndex(t, n, "X", "tx")
	if len(walked) != len(xTxs) {
		t.Fatalf("X/tx holds %d transactions, want %d", len(walked), len(xTxs))
	}
	for i, c := range walked {
		if c.ID != xTxs[i] {
			t.Fatalf("X/tx %d is %s, want %s", i, c.ID, xTxs[i])
		}
		got, err := x.Client.GetTx(ctx, c.ID)
		if err != nil || string(got) != string(c.Bytes) {
			t.Fatalf("getTx %s differs from its index container: %v", c.ID, err)
		}
		if _, err := txs.Parse(got); err != nil {
			t.Fatal(err)
		}
		var js struct {
			Tx struct {
				ID ids.ID `json:"id"`
			} `json:"tx"`
		}
		if err := n.Call(ctx, "/ext/bc/X", "avm.getTx", map[string]string{"txID": c.ID.String(), "encoding": "json"}, &js); err != nil || js.Tx.ID != c.ID {
			t.Fatalf("getTx json of %s: %s %v", c.ID, js.Tx.ID, err)
		}
	}
	blocksIdx := walkIndexByIndex(t, n, "X", "block")
	var inBlocks []ids.ID
	for i, c := range blocksIdx {
		b, err := blocks.ParseBlock(c.Bytes)
		if err != nil || b.ID() != c.ID || b.Height != uint64(i+1) {
			t.Fatalf("X/block %d: height %d, %v", i, b.Height, err)
		}
		for _, tx := range b.Txs {
			inBlocks = append(inBlocks, tx.ID())
		}
	}
	if !slices.Equal(inBlocks, xTxs) {
		t.Fatalf("the X blocks hold %v, want %v", inBlocks, xTxs)
	}
	if got := walkIndexByIndex(t, n, "X", "vtx"); len(got) != 0 {
		t.Fatalf("X/vtx holds %d containers on a chain linearized at genesis", len(got))
	}
	var h struct {
		Height jsonrpc.Uint64 `json:"height"`
	}
	if err := n.Call(ctx, "/ext/bc/X", "avm.getHeight", nil, &h); err != nil || uint64(h.Height) != uint64(len(blocksIdx)) {
		t.Fatalf("getHeight %d, %v; want %d", h.Height, err, len(blocksIdx))
	}
	// The same API answers at /ext/bc/X/avax and /ext/bc/X/native.
	for _, p := range []string{"avax", "native"} {
		var fee map[string]string
		if err := n.Call(ctx, "/ext/bc/X/"+p, p+".getTxFee", nil, &fee); err != nil || fee["txFee"] != "1000000" {
			t.Fatalf("/ext/bc/X/%s: %v %v", p, fee, err)
		}
	}
}

// xVertexConfig gives X a vertex phase of 3 vertices; its vtx index is
// live until the chain linearizes.
const xVertexConfig = `
chains:
  - alias: X
    vm: avm
    genesis: ` + xGenesis + `
    config: {linearization-height: 3}
`

// TestXChainVertexPhase: before linearization the chain accepts vertices,
// with parents and heights, into X/vtx; after it, blocks into X/block;
// X/vtx stops growing, across a restart too, and stays readable, also
// through the data API's vertices endpoint.
func TestXChainVertexPhase(t *testing.T) {
	t.Parallel()
	start := time.Now()
	opts := nodetest.Options{Config: xVertexConfig + dataConfig, DataDir: t.TempDir()}
	n := nodetest.Start(t, opts)
	ctx := context.Background()
	x := xchainWallet(t, n, "X", ewoqKey)
	var sent []ids.ID
	send := func(k int) {
		id, err := x.Send(ctx, x.FeeAsset, uint64(1_000+k), avax.ShortID{byte(k + 1)})
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, id)
	}
	for k := range 3 {
		send(k)
	}
	vtx := walkIndexByIndex(t, n, "X", "vtx")
	if len(vtx) != 4 {
		t.Fatalf("X/vtx holds %d, want 3 vertices and the stop vertex", len(vtx))
	}
	var parent ids.ID
	for i, c := range vtx {
		v, err := blocks.ParseVertex(c.Bytes)
		if err != nil || v.ID() != c.ID || v.Height != uint64(i) || v.Stop != (i == 3) {
			t.Fatalf("vertex %d: %+v, %v", i, v, err)
		}
		if i == 0 && len(v.Parents) != 0 || i > 0 && (len(v.Parents) != 1 || v.Parents[0] != parent) {
			t.Fatalf("vertex %d has parents %v, want [%s]", i, v.Parents, parent)
		}
		if i < 3 && (len(v.Txs) != 1 || ids.ID(sha256.Sum256(v.Txs[0])) != sent[i]) {
			t.Fatalf("vertex %d holds the wrong transaction", i)
		}
		parent = v.ID()
	}
	if got := walkIndexByIndex(t, n, "X", "block"); len(got) != 0 {
		t.Fatalf("X/block holds %d before any block", len(got))
	}
	send(3)
	n = n.Restart(t)
	x = xchainWallet(t, n, "X", ewoqKey)
	send(4)
	if got := walkIndexByIndex(t, n, "X", "vtx"); len(got) != 4 || got[3].ID != vtx[3].ID {
		t.Fatalf("X/vtx grew after linearization: %d", len(got))
	}
	blk := walkIndexByIndex(t, n, "X", "block")
	if len(blk) != 2 {
		t.Fatalf("X/block holds %d, want 2", len(blk))
	}
	for i, c := range blk {
		b, _ := blocks.ParseBlock(c.Bytes)
		if b.Height != uint64(i+1) || len(b.Txs) != 1 || b.Txs[0].ID() != sent[3+i] {
			t.Fatalf("block %d: height %d", i, b.Height)
		}
	}
	first, err := x.Client.GetBlockByHeight(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := blocks.ParseBlock(first); b.Parent != vtx[3].ID {
		t.Fatalf("the first block's parent %s is not the stop vertex %s", b.Parent, vtx[3].ID)
	}
	if got := walkIndexByIndex(t, n, "X", "tx"); len(got) != 5 {
		t.Fatalf("X/tx holds %d, want 5", len(got))
	}
	var last json.RawMessage
	if err := n.Call(ctx, "/ext/index/X/vtx", "index.getLastAccepted", map[string]string{"encoding": "hex"}, &last); err != nil {
		t.Fatalf("X/vtx is not readable after linearization: %v", err)
	}
	checkDataVertices(t, n, vtx, start)
}
