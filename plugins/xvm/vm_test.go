package xvm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax"
	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/plugins/xvm"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/client"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// genesis is the vectors' genesis: 300,000,000 AVAX for the ewoq key.
const genesis = `{"assets":[{"alias":"AVAX","name":"Avalanche","symbol":"AVAX","denomination":9,
	"initialState":{"fixedCap":[{"amount":"300000000000000000","address":"X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"}]}}]}`

const (
	genesisAmount = 300_000_000_000_000_000
	fee           = 1_000_000
)

// peer is another chain of the node, the other side of atomic transactions.
var peer = host.ChainInfo{ID: ids.Derive([]byte("peer")), VMName: "avm", Aliases: []string{"P2"}, Running: true}

// chain is an X-Chain started in the plugin test harness, with a wallet of
// the ewoq key.
type chain struct {
	t      *testing.T
	h      *plugintest.Harness
	url    string
	wallet *client.Wallet
}

func start(t *testing.T, config string) *chain {
	t.Helper()
	h := plugintest.Start(t, xvm.New(), plugintest.Options{
		Name: "X", NetworkID: avax.LocalID, Genesis: []byte(genesis), Config: []byte(config),
		Chains: []host.ChainInfo{peer},
	})
	c := &chain{t: t, h: h, url: h.URL("")}
	key, err := avax.ParsePrivateKey(vectors.EwoqKey)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewEndpoint(c.url, "X", nil)
	asset, err := cl.GetAssetDescription(context.Background(), "AVAX")
	if err != nil {
		t.Fatal(err)
	}
	_, createFee, err := cl.GetTxFee(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.wallet = &client.Wallet{Client: cl, Account: utxoclient.Account{Key: key, NetworkID: avax.LocalID, ChainID: h.ChainID()},
		FeeAsset: asset.ID, Fee: fee, CreateAssetFee: createFee}
	return c
}

func (c *chain) call(method string, params, result any) error {
	return jsonrpc.Call(context.Background(), nil, c.url, method, params, result)
}

func (c *chain) balance(a avax.ShortID) uint64 {
	c.t.Helper()
	b, err := c.wallet.Client.GetBalance(context.Background(), c.wallet.FormatAddress(a), "AVAX")
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

func (c *chain) issue(tx *txs.Tx) error {
	_, err := c.wallet.Client.IssueTx(context.Background(), tx.Bytes())
	return err
}

// TestGenesis: the genesis asset is avalanchego's bytes and ID, and the
// ewoq key holds it.
func TestGenesis(t *testing.T) {
	c := start(t, "")
	v := vectors.LoadX(t)
	if got, want := c.wallet.FeeAsset.String(), v.String(t, "assetID"); got != want {
		t.Fatalf("AVAX asset ID %s, want avalanchego's %s", got, want)
	}
	var tx struct {
		Tx string `json:"tx"`
	}
	if err := c.call("avm.getTx", map[string]string{"txID": c.wallet.FeeAsset.String()}, &tx); err != nil {
		t.Fatal(err)
	}
	if want := ids.HexWithChecksum(v.Bytes(t, "genesisTx")); tx.Tx != want {
		t.Fatalf("genesis tx %s, want %s", tx.Tx, want)
	}
	if got := c.balance(c.wallet.Address()); got != genesisAmount {
		t.Fatalf("ewoq balance %d", got)
	}
	var desc map[string]any
	if err := c.call("avm.getAssetDescription", map[string]string{"assetID": "AVAX"}, &desc); err != nil {
		t.Fatal(err)
	}
	if desc["name"] != "Avalanche" || desc["symbol"] != "AVAX" || desc["denomination"] != "9" {
		t.Fatalf("asset description %v", desc)
	}
	var height map[string]string
	if err := c.call("avm.getHeight", nil, &height); err != nil || height["height"] != "0" {
		t.Fatalf("height %v, %v", height, err)
	}
	var fees map[string]string
	if err := c.call("avm.getTxFee", nil, &fees); err != nil || fees["txFee"] != "1000000" {
		t.Fatalf("fees %v, %v", fees, err)
	}
}

// TestTransfer: a transfer moves the amount, burns the fee, is accepted in
// a block, and is indexed with the block in one batch.
func TestTransfer(t *testing.T) {
	c := start(t, "")
	ctx := context.Background()
	to := avax.ShortID{0x42}
	id, err := c.wallet.Send(ctx, c.wallet.FeeAsset, 5_000_000, to)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.balance(to); got != 5_000_000 {
		t.Fatalf("recipient %d", got)
	}
	if got := c.balance(c.wallet.Address()); got != genesisAmount-5_000_000-fee {
		t.Fatalf("sender %d, want %d", got, genesisAmount-5_000_000-fee)
	}
	if s, err := c.wallet.Client.GetTxStatus(ctx, id); err != nil || s != "Accepted" {
		t.Fatalf("status %s, %v", s, err)
	}
	raw, err := c.wallet.Client.GetTx(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := txs.Parse(raw)
	if err != nil || tx.ID() != id {
		t.Fatalf("getTx: %v", err)
	}
	txIdx, blkIdx := c.h.Containers(xvm.KindTx), c.h.Containers(xvm.KindBlock)
	if len(txIdx) != 1 || txIdx[0].ID != id || len(blkIdx) != 1 {
		t.Fatalf("indexes: %d txs, %d blocks", len(txIdx), len(blkIdx))
	}
	blk, err := blocks.ParseBlock(blkIdx[0].Bytes)
	if err != nil || blk.Height != 1 || len(blk.Txs) != 1 || blk.Txs[0].ID() != id {
		t.Fatalf("block: %+v %v", blk, err)
	}
	bb, err := c.wallet.Client.GetBlockByHeight(ctx, 1)
	if err != nil || blocks.NewBlock(blk.Parent, 1, blk.Time, blk.Txs).ID() != blk.ID() || string(bb) != string(blkIdx[0].Bytes) {
		t.Fatalf("getBlockByHeight: %v", err)
	}
	if d, err := c.h.HealthDetails(ctx); err != nil || d["transactions"] != float64(1) || d["height"] != float64(1) {
		t.Fatalf("health details %v, %v", d, err)
	}
	var js map[string]any
	if err := c.call("avm.getTx", map[string]string{"txID": id.String(), "encoding": "json"}, &js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(js), "X-local1") {
		t.Fatalf("JSON tx shows no X-local address: %v", js)
	}
}

// TestDoubleSpend: a second spend of a UTXO is refused naming the
// transaction that spent it, and changes nothing.
func TestDoubleSpend(t *testing.T) {
	c := start(t, "")
	ctx := context.Background()
	first, err := c.wallet.BuildSend(ctx, c.wallet.FeeAsset, 1_000, avax.ShortID{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.wallet.BuildSend(ctx, c.wallet.FeeAsset, 2_000, avax.ShortID{2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.issue(first); err != nil {
		t.Fatal(err)
	}
	before := c.balance(c.wallet.Address())
	err = c.issue(second)
	if err == nil || !strings.Contains(err.Error(), "double spend") || !strings.Contains(err.Error(), first.ID().String()) {
		t.Fatalf("second spend: %v", err)
	}
	if c.balance(c.wallet.Address()) != before || c.balance(avax.ShortID{2}) != 0 || len(c.h.Containers(xvm.KindTx)) != 1 {
		t.Fatal("the refused double spend changed the state")
	}
	if s, _ := c.wallet.Client.GetTxStatus(ctx, second.ID()); s != "Unknown" {
		t.Fatalf("status of the refused tx: %s", s)
	}
	// Issuing an accepted transaction again is refused too.
	if err := c.issue(first); err == nil || !strings.Contains(err.Error(), "accepted already") {
		t.Fatalf("re-issue: %v", err)
	}
}

// TestRejects: bad signatures, amounts and chains are refused.
func TestRejects(t *testing.T) {
	c := start(t, "")
	ctx := context.Background()
	good, err := c.wallet.BuildSend(ctx, c.wallet.FeeAsset, 1_000, avax.ShortID{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := avax.ParsePrivateKey("0x" + strings.Repeat("11", 32))
	if err != nil {
		t.Fatal(err)
	}
	wrongKey := txs.Sign(good.Unsigned, [][]*avax.PrivateKey{{other}})
	if err := c.issue(wrongKey); err == nil || !strings.Contains(err.Error(), "not by the UTXO's owner") {
		t.Fatalf("wrong signer: %v", err)
	}
	b := *good.Unsigned.(*txs.BaseTx)
	b.Outs = append([]avax.TransferableOutput{}, b.Outs...)
	b.Outs[len(b.Outs)-1].Out.Amt++ // more out than in: the fee is not covered
	avax.SortOutputs(b.Outs)
	if err := c.issue(c.wallet.Sign(&b)); err == nil || !strings.Contains(err.Error(), "insufficient funds") {
		t.Fatalf("fee not covered: %v", err)
	}
	exp, err := c.wallet.BuildExport(ctx, ids.Derive([]byte("nowhere")), c.wallet.FeeAsset, 1_000, c.wallet.Address())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.issue(exp); err == nil || !strings.Contains(err.Error(), "not a chain of this node") {
		t.Fatalf("export to an unknown chain: %v", err)
	}
	if got := len(c.h.Containers(xvm.KindTx)); got != 0 {
		t.Fatalf("%d txs indexed after refusals", got)
	}
}

// TestCreateAsset: a CreateAssetTx pays the chain's asset creation fee
// (not the transfer fee) and makes an asset whose ID is its own, with a
// mint UTXO and the supply's UTXO after its change; the API describes the
// asset and counts it in balances (the mint output in none), a transfer
// of it is accepted, and no transfer spends the mint output.
func TestCreateAsset(t *testing.T) {
	const createFee = 3 * fee
	c := start(t, fmt.Sprintf(`{"create-asset-tx-fee": %d}`, createFee))
	ctx := context.Background()
	me := c.wallet.Address()
	build := func() *txs.Tx {
		t.Helper()
		tx, err := c.wallet.BuildCreateAsset(ctx, client.NewAsset{Name: "Test Token", Symbol: "TT", Denomination: 2, Supply: 1_000_000, To: me})
		if err != nil {
			t.Fatal(err)
		}
		u := tx.Unsigned.(*txs.CreateAssetTx)
		u.States[0].Outs = append(u.States[0].Outs, txs.StateOutput{Mint: &avax.MintOutput{OutputOwners: utxoclient.Owner(me)}})
		txs.SortState(u.States[0].Outs)
		return c.wallet.Sign(u)
	}

	// Paying the transfer fee only is not enough.
	c.wallet.CreateAssetFee = fee
	if err := c.issue(build()); err == nil || !strings.Contains(err.Error(), "insufficient funds") {
		t.Fatalf("CreateAssetTx paying the transfer fee: %v", err)
	}
	c.wallet.CreateAssetFee = createFee
	tx := build()
	if err := c.issue(tx); err != nil {
		t.Fatal(err)
	}
	asset := tx.ID()
	if got := c.balance(me); got != genesisAmount-createFee {
		t.Fatalf("AVAX after the creation: %d, want %d", got, genesisAmount-createFee)
	}
	desc, err := c.wallet.Client.GetAssetDescription(ctx, asset.String())
	if err != nil || desc.ID != asset || desc.Name != "Test Token" || desc.Symbol != "TT" || desc.Denomination != 2 {
		t.Fatalf("getAssetDescription: %+v, %v", desc, err)
	}
	addr := c.wallet.FormatAddress(me)
	if b, err := c.wallet.Client.GetBalance(ctx, addr, asset.String()); err != nil || b != 1_000_000 {
		t.Fatalf("balance of the new asset: %d, %v", b, err)
	}
	all, err := c.wallet.Client.GetAllBalances(ctx, addr, true)
	if err != nil || fmt.Sprint(all) != fmt.Sprintf("[{AVAX %d} {%s 1000000}]", genesisAmount-createFee, asset) {
		t.Fatalf("getAllBalances: %v, %v", all, err)
	}
	utxos, err := c.wallet.Client.AllUTXOs(ctx, []string{addr}, "")
	if err != nil {
		t.Fatal(err)
	}
	var mint *avax.UTXO
	for i, u := range utxos {
		if u.AssetID == asset && u.Mint != nil {
			mint = &utxos[i]
		}
	}
	// The change is output 0; the state's outputs follow, the mint
	// output first (its type ID sorts first).
	if len(utxos) != 3 || mint == nil || mint.TxID != asset || mint.OutputIndex != 1 {
		t.Fatalf("UTXOs after the creation: %+v", utxos)
	}
	var js struct {
		Tx struct {
			Unsigned struct {
				Name          string `json:"name"`
				InitialStates []struct {
					Outputs []map[string]any `json:"outputs"`
				} `json:"initialStates"`
			} `json:"unsignedTx"`
		} `json:"tx"`
	}
	if err := c.call("avm.getTx", map[string]string{"txID": asset.String(), "encoding": "json"}, &js); err != nil {
		t.Fatal(err)
	}
	if st := js.Tx.Unsigned.InitialStates; js.Tx.Unsigned.Name != "Test Token" || len(st) != 1 || len(st[0].Outputs) != 2 ||
		st[0].Outputs[0]["amount"] != nil || st[0].Outputs[1]["amount"] != float64(1_000_000) {
		t.Fatalf("getTx json: %+v", js)
	}

	// The new asset moves as AVAX does, the fee paid in AVAX.
	to := avax.ShortID{0x42}
	if _, err := c.wallet.Send(ctx, asset, 400, to); err != nil {
		t.Fatalf("transfer of the new asset: %v", err)
	}
	if b, err := c.wallet.Client.GetBalance(ctx, c.wallet.FormatAddress(to), asset.String()); err != nil || b != 400 {
		t.Fatalf("recipient's balance of the new asset: %d, %v", b, err)
	}
	if got := c.balance(me); got != genesisAmount-createFee-fee {
		t.Fatalf("AVAX after the transfer: %d", got)
	}

	// A transfer input cannot spend the mint output.
	payFee, err := c.wallet.BuildSend(ctx, c.wallet.FeeAsset, 1, me, nil)
	if err != nil {
		t.Fatal(err)
	}
	spendMint := payFee.Unsigned.(*txs.BaseTx)
	spendMint.Ins = append(spendMint.Ins, avax.TransferableInput{UTXOID: mint.UTXOID, AssetID: asset, In: avax.TransferInput{Amt: 1, SigIndices: []uint32{0}}})
	spendMint.Outs = append(spendMint.Outs, utxoclient.Output(asset, 1, me))
	if err := c.issue(c.wallet.Sign(spendMint)); err == nil || !strings.Contains(err.Error(), "mint output") {
		t.Fatalf("transfer spending the mint output: %v", err)
	}
	if got := c.h.Containers(xvm.KindTx); len(got) != 2 || got[0].ID != asset {
		t.Fatalf("X/tx holds %d transactions", len(got))
	}
}

// TestExportImport: an export puts its UTXO in shared memory for the
// peer, indexed by its owner; an import of a UTXO the peer exported
// consumes it once.
func TestExportImport(t *testing.T) {
	c := start(t, "")
	ctx := context.Background()
	x := c.h.ChainID()
	me := c.wallet.Address()
	exp, err := c.wallet.Export(ctx, peer.ID, c.wallet.FeeAsset, 7_000_000, c.wallet.Address())
	if err != nil {
		t.Fatal(err)
	}
	shared := c.h.Shared(x, peer.ID)
	if len(shared) != 1 {
		t.Fatalf("shared memory for the peer holds %d values", len(shared))
	}
	u, err := avax.ParseUTXO(shared[0].Value)
	if err != nil || u.TxID != exp || u.Out.Amt != 7_000_000 || u.OutputIndex != 1 {
		t.Fatalf("exported UTXO %+v, %v", u, err)
	}
	if id := u.InputID(); string(shared[0].Key) != string(id[:]) || string(shared[0].Traits[0]) != string(me[:]) {
		t.Fatalf("exported UTXO key or trait: %x %x", shared[0].Key, shared[0].Traits)
	}
	if got := c.balance(c.wallet.Address()); got != genesisAmount-7_000_000-fee {
		t.Fatalf("after export %d", got)
	}

	// The peer exported a UTXO to X: it shows in getUTXOs with
	// sourceChain, then an import consumes it.
	in := avax.UTXO{UTXOID: avax.UTXOID{TxID: ids.ID{0x77}, OutputIndex: 3}, AssetID: c.wallet.FeeAsset,
		Out: avax.TransferOutput{Amt: 9_000_000, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{c.wallet.Address()}}}}
	id := in.InputID()
	if err := c.h.PutShared(peer.ID, x, host.SharedElement{Key: id[:], Value: in.Bytes(), Traits: [][]byte{me[:]}}); err != nil {
		t.Fatal(err)
	}
	atomic, err := c.wallet.Client.AllUTXOs(ctx, []string{c.wallet.FormatAddress(c.wallet.Address())}, "P2")
	if err != nil || len(atomic) != 1 || atomic[0].InputID() != id {
		t.Fatalf("atomic UTXOs from P2: %v, %v", atomic, err)
	}
	before := c.balance(c.wallet.Address())
	imp, err := c.wallet.BuildImport(ctx, peer.ID.String(), c.wallet.Address())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.issue(imp); err != nil {
		t.Fatal(err)
	}
	if got := c.balance(c.wallet.Address()); got != before+9_000_000-fee {
		t.Fatalf("after import %d, want %d", got, before+9_000_000-fee)
	}
	if left := c.h.Shared(peer.ID, x); len(left) != 0 {
		t.Fatalf("the imported UTXO is still in shared memory: %v", left)
	}
	// It is consumed once: importing it again is refused.
	imp2 := *imp.Unsigned.(*txs.ImportTx)
	imp2.Memo = []byte("again")
	err = c.issue(c.wallet.Sign(&imp2))
	if err == nil || !strings.Contains(err.Error(), "imported already") {
		t.Fatalf("second import: %v", err)
	}
	if err := c.h.PutShared(peer.ID, x, host.SharedElement{Key: id[:], Value: in.Bytes()}); !errors.Is(err, host.ErrSharedMemoryConflict) {
		t.Fatalf("putting the consumed UTXO back: %v", err)
	}
	if got := len(c.h.Containers(xvm.KindTx)); got != 2 {
		t.Fatalf("%d txs indexed, want 2", got)
	}
}

// TestVertexPhase: before the linearization height the chain accepts
// vertices (the last followed by the stop vertex), then blocks; the
// vertex index stops growing, and the indexer handler serves vertices.
func TestVertexPhase(t *testing.T) {
	c := start(t, `{"linearization-height": 2}`)
	ctx := context.Background()
	if got := c.h.IndexKinds(); !strings.Contains(strings.Join(got, ","), xvm.KindVertex) {
		t.Fatalf("index kinds %v", got)
	}
	var heightErr error = c.call("avm.getHeight", nil, nil)
	if heightErr == nil || !strings.Contains(heightErr.Error(), "not linearized") {
		t.Fatalf("getHeight before linearization: %v", heightErr)
	}
	var txIDs []ids.ID
	for i := range 4 {
		id, err := c.wallet.Send(ctx, c.wallet.FeeAsset, uint64(1000+i), avax.ShortID{byte(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		txIDs = append(txIDs, id)
	}
	vtx := c.h.Containers(xvm.KindVertex)
	if len(vtx) != 3 {
		t.Fatalf("%d vertices, want 2 and the stop vertex", len(vtx))
	}
	first, err := blocks.ParseVertex(vtx[0].Bytes)
	if err != nil || first.Height != 0 || len(first.Parents) != 0 || len(first.Txs) != 1 {
		t.Fatalf("first vertex %+v %v", first, err)
	}
	second, _ := blocks.ParseVertex(vtx[1].Bytes)
	if second.Height != 1 || len(second.Parents) != 1 || second.Parents[0] != first.ID() {
		t.Fatalf("second vertex %+v", second)
	}
	stop, _ := blocks.ParseVertex(vtx[2].Bytes)
	if !stop.Stop || stop.Height != 2 || stop.Parents[0] != second.ID() {
		t.Fatalf("stop vertex %+v", stop)
	}
	blk := c.h.Containers(xvm.KindBlock)
	if len(blk) != 2 {
		t.Fatalf("%d blocks, want 2", len(blk))
	}
	b0, err := c.wallet.Client.GetBlockByHeight(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	genesisBlock, _ := blocks.ParseBlock(b0)
	if genesisBlock.Parent != stop.ID() {
		t.Fatalf("the first block's parent %s, want the stop vertex %s", genesisBlock.Parent, stop.ID())
	}
	if got := len(c.h.Containers(xvm.KindTx)); got != 4 {
		t.Fatalf("%d txs indexed", got)
	}
	// The internal handler serves a vertex by ID.
	var vx xvmapi.Vertex
	err = jsonrpc.Call(ctx, nil, c.h.URL(xvmapi.IndexerHandler), xvmapi.GetVertexMethod, map[string]string{"vertexID": second.ID().String()}, &vx)
	if err != nil || vx.Index != 1 || vx.Height != 1 || len(vx.TxIDs) != 1 || vx.TxIDs[0] != txIDs[1] || vx.Size != len(vtx[1].Bytes) || vx.ParentIDs[0] != first.ID() || vx.Timestamp == 0 {
		t.Fatalf("getVertex: %+v %v", vx, err)
	}
	// It lists them newest first, below a position and up to a limit.
	url := c.h.URL(xvmapi.IndexerHandler)
	var all, below xvmapi.VertexList
	if err := jsonrpc.Call(ctx, nil, url, xvmapi.ListVerticesMethod, map[string]any{"limit": 10}, &all); err != nil {
		t.Fatal(err)
	}
	if all.Count != 3 || len(all.Vertices) != 3 {
		t.Fatalf("listVertices: count %d, %d vertices, want 3", all.Count, len(all.Vertices))
	}
	for i, v := range all.Vertices {
		if want := vtx[2-i].ID; v.ID != want || v.Index != uint64(2-i) {
			t.Fatalf("listVertices[%d]: %s at %d, want %s at %d", i, v.ID, v.Index, want, 2-i)
		}
	}
	if err := jsonrpc.Call(ctx, nil, url, xvmapi.ListVerticesMethod, map[string]any{"before": 2, "limit": 1}, &below); err != nil {
		t.Fatal(err)
	}
	if len(below.Vertices) != 1 || below.Vertices[0].ID != second.ID() {
		t.Fatalf("listVertices below 2, limit 1: %+v", below.Vertices)
	}
	for _, limit := range []int{0, xvmapi.MaxListVertices + 1} {
		err := jsonrpc.Call(ctx, nil, url, xvmapi.ListVerticesMethod, map[string]any{"limit": limit}, &below)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, `"limit"`) {
			t.Fatalf("listVertices limit %d: %v, want -32602 naming limit", limit, err)
		}
	}
	if n, err := c.h.AcceptedCount(ctx, xvm.KindVertex); err != nil || n != 3 {
		t.Fatalf("accepted vertices %d, %v", n, err)
	}
}

// TestAPIErrors: bad params are -32602 errors naming the param.
func TestAPIErrors(t *testing.T) {
	c := start(t, "")
	for _, tc := range []struct {
		method string
		params any
		want   string
	}{
		{"avm.getTx", map[string]string{"txID": "nope"}, `"txID"`},
		{"avm.getTx", map[string]string{}, `"txID" is required`},
		{"avm.getTx", map[string]string{"txID": ids.ID{1}.String(), "encoding": "cb58"}, `"encoding"`},
		{"avm.issueTx", map[string]string{"tx": "0x1234"}, `"tx"`},
		{"avm.getUTXOs", map[string]any{"addresses": []string{}}, `"addresses"`},
		{"avm.getUTXOs", map[string]any{"addresses": []string{"X-fuji1qqqq"}}, `"addresses[0]"`},
		{"avm.getUTXOs", map[string]any{"addresses": []string{"X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"}, "sourceChain": "Q"}, `"sourceChain"`},
		{"avm.getBalance", map[string]string{"address": "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u", "assetID": "DOGE"}, `"assetID"`},
		{"avm.getBalance", map[string]string{"address": "C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u", "assetID": "AVAX"}, `not of this chain`},
		{"avm.getBlockByHeight", map[string]any{"height": -1}, `"height"`},
		{"avm.getTx", map[string]string{"txID": "2QZwVQqKrBGRvkGjcyk5d87Uwt7B67UWC3yAqTE3Yjfb2AikFq"}, "not found"},
	} {
		err := c.call(tc.method, tc.params, nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, tc.want) {
			t.Errorf("%s %v: %v, want %q", tc.method, tc.params, err, tc.want)
			continue
		}
		if tc.want != "not found" && rpcErr.Code != jsonrpc.CodeInvalidParams && !strings.Contains(tc.want, "not of this") {
			t.Errorf("%s %v: code %d, want -32602", tc.method, tc.params, rpcErr.Code)
		}
	}
	// The same methods answer under native. and avax.
	for _, p := range []string{"native.", "avax."} {
		var r json.RawMessage
		if err := c.call(p+"getTxFee", nil, &r); err != nil {
			t.Errorf("%sgetTxFee: %v", p, err)
		}
	}
}
