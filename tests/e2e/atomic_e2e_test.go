package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/core/nodetest"
	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	cclient "github.com/chainhost/chainhost/plugins/evm/atomic/client"
	"github.com/chainhost/chainhost/plugins/xvm/client"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// atomicXC runs the X-Chain and the C-Chain of the local network, with
// C's chain config extra added (YAML flow mapping entries).
func atomicXC(extra string) string {
	return fmt.Sprintf(`
chains:
  - alias: X
    vm: avm
    genesis: %s
    config: {tx-fee: 1000000}
    legacy-index-kinds: [vtx]
  - alias: C
    vm: evm
    genesis: %s
    config: {dev-api-enabled: true, cache-mb: 32%s}
`, xGenesis, evmGenesis(evmChainID), extra)
}

// cWallet returns a wallet of key on the C-Chain of node n, with the
// context avalanchego's wallets read: the network, C's ID and the AVAX
// asset, from the info API and the X-Chain.
func cWallet(t *testing.T, n *nodetest.Node, x *client.Wallet, key *avax.PrivateKey) *cclient.Wallet {
	t.Helper()
	ctx := context.Background()
	cID, err := x.Client.BlockchainID(ctx, "C")
	if err != nil {
		t.Fatal(err)
	}
	return &cclient.Wallet{Client: cclient.New(n.URL, "C", xHTTP), Key: key,
		Ctx: cclient.Context{NetworkID: x.NetworkID, ChainID: cID, AVAXAssetID: x.FeeAsset}}
}

// TestAtomicXC: funds move X to C and back through the node, each step
// visible everywhere: export on X, import on C (the EVM balance rises by
// exactly the amount less the fee), export on C (debit and nonce), import
// on X; statuses and bytes on C, getTx and the X indexes on X, the blocks
// in C's index with the header committing to their atomic transactions; a
// double import refused; traces and older balances right around the
// blocks with atomic effects.
func TestAtomicXC(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: atomicXC("")})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	x := xchainWallet(t, n, "X", ewoqKey)
	c := cWallet(t, n, x, x.Key)
	me := x.Address()
	cID := c.Ctx.ChainID
	eth := evmDial(t, n, "C", "rpc")
	recv, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := crypto.PubkeyToAddress(recv.PublicKey)

	// X → C.
	xExport, err := x.Export(ctx, cID, x.FeeAsset, 5_000_000_000, me)
	if err != nil {
		t.Fatalf("export on X: %v", err)
	}
	waiting, err := c.Importable(ctx, "X")
	if err != nil || len(waiting) != 1 || waiting[0].Out.Amt != 5_000_000_000 || waiting[0].TxID != xExport {
		t.Fatalf("C's getUTXOs from X: %v (%v), want the export's UTXO", waiting, err)
	}
	before, err := eth.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := c.BuildImport(ctx, "X", x.ChainID, to)
	if err != nil {
		t.Fatal(err)
	}
	impID, err := c.Issue(ctx, imp)
	if err != nil {
		t.Fatalf("import on C: %v", err)
	}
	impFee, _ := atx.Burned(imp)
	credit := 5_000_000_000 - impFee
	if bal, err := eth.BalanceAt(ctx, to, nil); err != nil || bal.Cmp(weiOf(credit)) != 0 {
		t.Fatalf("eth_getBalance after the import %v (%v), want exactly %s", bal, err, weiOf(credit))
	}
	if bal, err := eth.BalanceAt(ctx, to, new(big.Int).SetUint64(before)); err != nil || bal.Sign() != 0 {
		t.Fatalf("eth_getBalance at block %d, before the import: %v (%v)", before, bal, err)
	}
	if left, err := c.Importable(ctx, "X"); err != nil || len(left) != 0 {
		t.Fatalf("after the import C's getUTXOs from X: %v (%v), want none", left, err)
	}
	// A double import: the same transaction, and another spending the
	// same UTXO.
	if _, err := c.Client.IssueTx(ctx, imp.Bytes()); err == nil || !strings.Contains(err.Error(), "accepted already") {
		t.Fatalf("the import issued again: %v", err)
	}
	twin := *imp.Unsigned.(*atx.ImportTx)
	twin.Outs = []atx.EVMOutput{{Address: common.HexToAddress(evmLocalAddr), Amount: credit, AssetID: c.Ctx.AVAXAssetID}}
	if _, err := c.Client.IssueTx(ctx, atx.Sign(&twin, [][]*avax.PrivateKey{{x.Key}}).Bytes()); err == nil ||
		!strings.Contains(err.Error(), "was imported already, by tx "+impID.String()) {
		t.Fatalf("a second import of the UTXO: %v", err)
	}

	// C → X, from the account the import credited.
	rk, err := avax.PrivateKeyFromBytes(crypto.FromECDSA(recv))
	if err != nil {
		t.Fatal(err)
	}
	rc := &cclient.Wallet{Client: c.Client, Key: rk, Ctx: c.Ctx}
	exp, err := rc.BuildExport(ctx, x.ChainID, 2_000_000_000, me)
	if err != nil {
		t.Fatal(err)
	}
	expID, err := rc.Issue(ctx, exp)
	if err != nil {
		t.Fatalf("export on C: %v", err)
	}
	expFee, _ := atx.Burned(exp)
	if bal, err := eth.BalanceAt(ctx, to, nil); err != nil || bal.Cmp(weiOf(credit-2_000_000_000-expFee)) != 0 {
		t.Fatalf("balance after the export %v (%v), want %s", bal, err, weiOf(credit-2_000_000_000-expFee))
	}
	if nonce, err := eth.NonceAt(ctx, to, nil); err != nil || nonce != 1 {
		t.Fatalf("nonce after the export %d (%v), want 1", nonce, err)
	}
	xBefore := xchainBalance(t, x, me)
	xImport, err := x.Import(ctx, "C", me)
	if err != nil {
		t.Fatalf("import on X: %v", err)
	}
	if got := xchainBalance(t, x, me); got != xBefore+2_000_000_000-xFee {
		t.Fatalf("X balance after the import %d, want %d", got, xBefore+2_000_000_000-xFee)
	}
	if utxos, err := x.Client.AllUTXOs(ctx, []string{x.FormatAddress(me)}, "C"); err != nil || len(utxos) != 0 {
		t.Fatalf("X's getUTXOs from C after the import: %v (%v)", utxos, err)
	}

	// On C: statuses, bytes, heights.
	heights := map[ids.ID]uint64{}
	for _, tx := range []*atx.Tx{imp, exp} {
		s, err := c.Client.GetAtomicTxStatus(ctx, tx.ID())
		if err != nil || s.Status != "Accepted" || s.Height == 0 {
			t.Fatalf("status of %s: %+v (%v)", tx.ID(), s, err)
		}
		raw, err := c.Client.GetAtomicTx(ctx, tx.ID())
		if err != nil || string(raw) != string(tx.Bytes()) {
			t.Fatalf("getAtomicTx %s: %v", tx.ID(), err)
		}
		heights[tx.ID()] = s.Height
	}
	// The same under the name native, at /ext/bc/C/native.
	var st struct {
		Status      string `json:"status"`
		BlockHeight string `json:"blockHeight"`
	}
	if err := n.Call(ctx, "/ext/bc/C/native", "native.getAtomicTxStatus", []any{map[string]string{"txID": impID.String()}}, &st); err != nil ||
		st.Status != "Accepted" || st.BlockHeight != fmt.Sprint(heights[impID]) {
		t.Fatalf("native.getAtomicTxStatus: %+v (%v)", st, err)
	}
	if heights[expID] <= heights[impID] {
		t.Fatalf("export at %d, import at %d", heights[expID], heights[impID])
	}
	// C's index: each block by its hash, the atomic ones committing to
	// their transactions.
	head, err := eth.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evmCheckIndex(t, ctx, n, "C", eth, head)
	cts := walkIndexByIndex(t, n, "C", "block")
	for id, h := range heights {
		var blk types.Block
		if err := rlp.DecodeBytes(cts[h-1].Bytes, &blk); err != nil {
			t.Fatal(err)
		}
		tx := imp
		if id == expID {
			tx = exp
		}
		if common.BytesToHash(blk.Extra()) != atx.BatchHash(atx.EncodeBatch([]*atx.Tx{tx})) {
			t.Fatalf("indexed block %d does not commit to atomic tx %s", h, id)
		}
	}
	// On X: getTx of the export and the import, and both in X/tx.
	xtxs := walkIndexByIndex(t, n, "X", "tx")
	for _, id := range []ids.ID{xExport, xImport} {
		raw, err := x.Client.GetTx(ctx, id)
		if err != nil {
			t.Fatalf("getTx %s: %v", id, err)
		}
		if _, err := txs.Parse(raw); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(xtxs, func(ct xContainer) bool { return ct.ID == id }) {
			t.Fatalf("X/tx lacks %s", id)
		}
	}
	if s, err := x.Client.GetTxStatus(ctx, xImport); err != nil || s != "Accepted" {
		t.Fatalf("X status of the import %s (%v)", s, err)
	}
	// The blocks with atomic effects and the block after trace.
	tx := evmTransfer(evmKey(t), evmChainID, 0, to, 1)
	if err := eth.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	after := evmReceipt(t, ctx, eth, tx.Hash()).BlockNumber.Uint64()
	for _, h := range []uint64{heights[impID], heights[expID], after} {
		var trace []json.RawMessage
		if err := eth.Client().CallContext(ctx, &trace, "debug_traceBlockByNumber", hexutil.EncodeUint64(h), map[string]string{"tracer": "prestateTracer"}); err != nil {
			t.Fatalf("debug_traceBlockByNumber %d: %v", h, err)
		}
	}
	// The prestate of the block after holds the balance the atomic blocks
	// left.
	var pre []struct {
		Result map[common.Address]struct {
			Balance *hexutil.Big `json:"balance"`
		} `json:"result"`
	}
	if err := eth.Client().CallContext(ctx, &pre, "debug_traceBlockByNumber", hexutil.EncodeUint64(after), map[string]string{"tracer": "prestateTracer"}); err != nil || len(pre) != 1 {
		t.Fatal(err)
	}
	if b := pre[0].Result[to].Balance; b == nil || b.ToInt().Cmp(weiOf(credit-2_000_000_000-expFee)) != 0 {
		t.Fatalf("prestate balance of %s in block %d: %v", to, after, b)
	}
}

// weiOf returns n nAVAX in wei.
func weiOf(n uint64) *big.Int {
	return new(big.Int).Mul(new(big.Int).SetUint64(n), big.NewInt(atx.X2CRate))
}

// TestAtomicIndexOff: with indexing off, atomic transactions still apply
// their shared-memory operations with their block; when indexing is
// turned on, the host backfills C's blocks from the VM without them, and
// nothing is applied twice or lost: the export waits on X and imports,
// the imported UTXO stays consumed.
func TestAtomicIndexOff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	off := nodetest.Options{Config: atomicXC(""), DataDir: dir, Args: []string{"--index-enabled=false", "--index-allow-incomplete"}}
	n := nodetest.Start(t, off)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	x := xchainWallet(t, n, "X", ewoqKey)
	c := cWallet(t, n, x, x.Key)
	me := x.Address()
	if _, err := x.Export(ctx, c.Ctx.ChainID, x.FeeAsset, 3_000_000_000, me); err != nil {
		t.Fatal(err)
	}
	imp, err := c.Import(ctx, "X", x.ChainID, c.EVMAddress())
	if err != nil {
		t.Fatalf("import with indexing off: %v", err)
	}
	exp, err := c.Export(ctx, x.ChainID, 1_000_000_000, me)
	if err != nil {
		t.Fatalf("export with indexing off: %v", err)
	}
	n.Stop(t)

	n = nodetest.Start(t, nodetest.Options{Config: atomicXC(""), DataDir: dir})
	x = xchainWallet(t, n, "X", ewoqKey)
	c = cWallet(t, n, x, x.Key)
	eth := evmDial(t, n, "C", "rpc")
	head, err := eth.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evmCheckIndex(t, ctx, n, "C", eth, head)
	for _, id := range []ids.ID{imp, exp} {
		if s, err := c.Client.GetAtomicTxStatus(ctx, id); err != nil || s.Status != "Accepted" {
			t.Fatalf("status of %s after the backfill: %+v (%v)", id, s, err)
		}
	}
	if left, err := c.Importable(ctx, "X"); err != nil || len(left) != 0 {
		t.Fatalf("C's UTXOs from X after the backfill: %v (%v), want none", left, err)
	}
	before := xchainBalance(t, x, me)
	if _, err := x.Import(ctx, "C", me); err != nil {
		t.Fatalf("X import of the export made with indexing off: %v", err)
	}
	if got := xchainBalance(t, x, me); got != before+1_000_000_000-xFee {
		t.Fatalf("X balance %d, want %d", got, before+1_000_000_000-xFee)
	}
}
