package evmremote_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/internal/gethtest"
	"github.com/chainhost/chainhost/internal/tracetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// contract is a compiled contract of plugins/evm/testdata/calls.json.
type contract struct {
	abi abi.ABI
	bin []byte
}

func loadContracts(t testing.TB) map[string]contract {
	t.Helper()
	raw, err := os.ReadFile("../../plugins/evm/testdata/calls.json")
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]struct {
		ABI json.RawMessage `json:"abi"`
		Bin string          `json:"bin"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	out := map[string]contract{}
	for name, c := range all {
		a, err := abi.JSON(bytes.NewReader(c.ABI))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = contract{abi: a, bin: hexutil.MustDecode(c.Bin)}
	}
	return out
}

func (c contract) call(t testing.TB, method string, args ...any) []byte {
	t.Helper()
	b, err := c.abi.Pack(method, args...)
	if err != nil {
		t.Fatalf("pack %s: %v", method, err)
	}
	return b
}

// bob receives value.
var bob = common.HexToAddress("0xb0b0000000000000000000000000000000000002")

// activity sends, from an unlocked account of the node at url (key nil)
// or signed with key, transactions
// that make every kind of call frame (plugins/evm/testdata/Calls.sol): a
// contract creation, one that fails, CREATE and CREATE2 inside a call with
// value, internal value transfers, reverted internal calls, a reverted
// transaction, a self-destruct, a legacy and a dynamic-fee transaction.
// It waits for their receipts and returns their hashes by name.
func activity(t testing.TB, url string, from common.Address, key *ecdsa.PrivateKey) map[string]common.Hash {
	t.Helper()
	ctx := context.Background()
	c, err := rpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var nonce hexutil.Uint64
	if err := c.CallContext(ctx, &nonce, "eth_getTransactionCount", from, "pending"); err != nil {
		t.Fatal(err)
	}
	cs := loadContracts(t)
	factory := crypto.CreateAddress(from, uint64(nonce))
	type tx struct {
		name  string
		to    *common.Address
		data  []byte
		value int64
		gas   uint64
		price bool // legacy: a gas price, not fees
	}
	txs := []tx{
		{name: "factory", data: cs["Factory"].bin, gas: 3_000_000},
		{name: "reverter", data: cs["Reverter"].bin, gas: 300_000},
		{name: "make", to: &factory, data: cs["Factory"].call(t, "make", [32]byte{1}), value: 1000, gas: 1_000_000},
		{name: "mixed", to: &factory, data: cs["Factory"].call(t, "mixed", bob), value: 400, gas: 1_000_000},
		{name: "boom", to: &factory, data: cs["Factory"].call(t, "boom"), gas: 300_000},
		{name: "transfer", to: &bob, value: 5, gas: 21_000, price: true},
		{name: "destroy", to: &factory, data: cs["Factory"].call(t, "destroy", bob), gas: 300_000},
	}
	var chainID hexutil.Big
	if err := c.CallContext(ctx, &chainID, "eth_chainId"); err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(chainID.ToInt())
	price := big.NewInt(100_000_000_000)
	out := map[string]common.Hash{}
	for i, x := range txs {
		if key != nil {
			var inner types.TxData = &types.DynamicFeeTx{ChainID: chainID.ToInt(), Nonce: uint64(nonce) + uint64(i), To: x.to, Value: big.NewInt(x.value),
				Gas: x.gas, Data: x.data, GasTipCap: big.NewInt(1), GasFeeCap: price}
			if x.price {
				inner = &types.LegacyTx{Nonce: uint64(nonce) + uint64(i), To: x.to, Value: big.NewInt(x.value), Gas: x.gas, Data: x.data, GasPrice: price}
			}
			raw, err := types.MustSignNewTx(key, signer, inner).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var h common.Hash
			if err := c.CallContext(ctx, &h, "eth_sendRawTransaction", hexutil.Bytes(raw)); err != nil {
				t.Fatalf("send %s: %v", x.name, err)
			}
			out[x.name] = h
			continue
		}
		// The nonce is given: geth's own comes from its pool, which lags
		// for a moment while a block of the previous transaction is made.
		args := map[string]any{"from": from, "data": hexutil.Bytes(x.data), "value": (*hexutil.Big)(big.NewInt(x.value)),
			"gas": hexutil.Uint64(x.gas), "nonce": nonce + hexutil.Uint64(i)}
		if x.to != nil {
			args["to"] = x.to
		}
		if x.price {
			args["gasPrice"] = (*hexutil.Big)(price)
		}
		var h common.Hash
		if err := c.CallContext(ctx, &h, "eth_sendTransaction", args); err != nil {
			t.Fatalf("send %s: %v", x.name, err)
		}
		out[x.name] = h
	}
	ec := ethclient.NewClient(c)
	for _, h := range out {
		plugintest.Eventually(t, time.Minute, func() error {
			_, err := ec.TransactionReceipt(ctx, h)
			return err
		})
	}
	return out
}

// devAccount returns geth --dev's unlocked account.
func devAccount(t testing.TB, url string) common.Address {
	t.Helper()
	c, err := rpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var accs []common.Address
	if err := c.CallContext(context.Background(), &accs, "eth_accounts"); err != nil || len(accs) == 0 {
		t.Fatalf("eth_accounts: %v %v", accs, err)
	}
	return accs[0]
}

// readAll reads blocks 0 to the head with Blocks, per blocks at a time.
func readAll(t testing.TB, c *evmremote.Client, per int) []evmapi.Block {
	t.Helper()
	var out []evmapi.Block
	for {
		bs, err := c.Blocks(context.Background(), uint64(len(out)), per)
		if err != nil {
			t.Fatalf("Blocks(%d, %d): %v", len(out), per, err)
		}
		out = append(out, bs...)
		if len(bs) < per {
			return out
		}
	}
}

func dial(t testing.TB, url string) *evmremote.Client {
	t.Helper()
	c, err := evmremote.Dial(context.Background(), evmremote.Options{URL: url, InFlight: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestGeth reads geth --dev's chain after every kind of call frame and
// checks the blocks against go-ethereum's own answers: ethclient's blocks
// and receipts, and debug_traceBlockByNumber's call tracer.
func TestGeth(t *testing.T) {
	url, _ := gethtest.Start(t, "--dev.period", "1")
	checkChain(t, url, activity(t, url, devAccount(t, url), nil))
}

// checkChain reads the chain at url after activity, whose transactions
// are txs, and checks what it reads against go-ethereum's own answers.
func checkChain(t *testing.T, url string, txs map[string]common.Hash) {
	t.Helper()
	c := dial(t, url)
	blocks := readAll(t, c, 3)
	if got := c.Tracing(); got != evmremote.TracingDebug {
		t.Fatalf("Tracing() = %q, want %q", got, evmremote.TracingDebug)
	}
	ec, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	checkBlocks(t, ec, blocks)
	most := 0
	for _, b := range blocks {
		most = max(most, len(b.Transactions))
	}
	t.Logf("%d blocks read, at most %d transactions in one", len(blocks), most)
	checkFrames(t, ec.Client(), blocks)

	for _, want := range []struct{ tx, frames string }{
		{"factory", "CREATE0"},
		{"reverter", "CREATE0(R)"},
		{"make", "CALL0 CREATE1 CREATE21"},
		{"mixed", "CALL0 CALL1 CALL1 CALL1(R) CALL1(R) STATICCALL1 DELEGATECALL1 STATICCALL1 CREATE1(R)"},
		{"boom", "CALL0(R) CALL1"},
		{"transfer", "CALL0"},
		{"destroy", "CALL0 CALL1 SELFDESTRUCT2"},
	} {
		got := findTx(t, blocks, txs[want.tx])
		if s := frameTypes(got.Calls); s != want.frames {
			t.Errorf("%s: frames %s, want %s", want.tx, s, want.frames)
		}
	}
	if r := findTx(t, blocks, txs["reverter"]); r.Status != 0 || r.ContractAddress != nil {
		t.Errorf("the failed creation: status %d, contract %v", r.Status, r.ContractAddress)
	}
	if f := findTx(t, blocks, txs["factory"]); f.ContractAddress == nil {
		t.Errorf("the factory's creation has no contract address")
	}

	hs, err := c.Headers(context.Background(), 0, len(blocks)+5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) < len(blocks) {
		t.Fatalf("Headers: %d, Blocks answered %d", len(hs), len(blocks))
	}
	for i, b := range blocks {
		h := hs[i]
		if h.Number != uint64(b.Number) || h.Hash != b.Hash || h.ParentHash != b.ParentHash || h.Timestamp != uint64(b.Timestamp) || h.TxCount != len(b.Transactions) {
			t.Fatalf("header %d: %+v, block %+v", i, h, b)
		}
	}
	head, err := c.Head(context.Background(), "latest")
	if err != nil || head.Number < uint64(len(blocks)-1) {
		t.Fatalf("Head(latest) = %+v, %v", head, err)
	}
	want, err := ec.ChainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if id, err := c.ChainID(context.Background()); err != nil || id != want.Uint64() {
		t.Fatalf("ChainID = %d, %v; want %d", id, err, want)
	}
}

// checkBlocks checks blocks against what go-ethereum's ethclient reads of
// them: the header, the transactions and their receipts.
func checkBlocks(t *testing.T, c *ethclient.Client, blocks []evmapi.Block) {
	t.Helper()
	ctx := context.Background()
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(chainID)
	txs := 0
	for _, b := range blocks {
		n := uint64(b.Number)
		blk, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		h := blk.Header()
		if b.Hash != blk.Hash() || b.ParentHash != h.ParentHash || uint64(b.Timestamp) != h.Time ||
			uint64(b.GasLimit) != h.GasLimit || uint64(b.GasUsed) != h.GasUsed || b.BaseFee.ToInt().Cmp(h.BaseFee) != 0 {
			t.Fatalf("block %d: %+v, want header %+v", n, b, h)
		}
		if len(b.Transactions) != len(blk.Transactions()) || b.Transactions == nil {
			t.Fatalf("block %d: %d transactions, want %d", n, len(b.Transactions), len(blk.Transactions()))
		}
		receipts, err := c.BlockReceipts(ctx, rpc.BlockNumberOrHashWithHash(blk.Hash(), true))
		if err != nil {
			t.Fatalf("receipts of block %d: %v", n, err)
		}
		for i, tx := range blk.Transactions() {
			txs++
			got, r := b.Transactions[i], receipts[i]
			from, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			var contract *common.Address
			if tx.To() == nil && r.Status == types.ReceiptStatusSuccessful {
				contract = &r.ContractAddress
			}
			want := evmapi.Transaction{
				Hash: tx.Hash(), Index: hexutil.Uint64(i), Type: hexutil.Uint64(tx.Type()), From: from, To: tx.To(),
				Value: (*hexutil.Big)(tx.Value()), Input: tx.Data(), Nonce: hexutil.Uint64(tx.Nonce()), Gas: hexutil.Uint64(tx.Gas()),
				GasPrice: (*hexutil.Big)(r.EffectiveGasPrice), Status: hexutil.Uint64(r.Status), GasUsed: hexutil.Uint64(r.GasUsed),
				ContractAddress: contract, Logs: []evmapi.Log{}, Calls: got.Calls,
			}
			if tx.Type() >= types.DynamicFeeTxType {
				want.MaxFeePerGas, want.MaxPriorityFeePerGas = (*hexutil.Big)(tx.GasFeeCap()), (*hexutil.Big)(tx.GasTipCap())
			}
			for _, l := range r.Logs {
				want.Logs = append(want.Logs, evmapi.Log{Index: hexutil.Uint64(l.Index), Address: l.Address, Topics: l.Topics, Data: l.Data})
			}
			if !jsonEqual(t, got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Fatalf("block %d tx %d:\n%s\nwant\n%s", n, i, g, w)
			}
		}
	}
	if txs == 0 {
		t.Fatal("no transaction read")
	}
}

// checkFrames checks that the frames of blocks are those of
// debug_traceBlockByNumber's call tracer, flattened depth first.
func checkFrames(t *testing.T, c *rpc.Client, blocks []evmapi.Block) {
	t.Helper()
	for _, b := range blocks {
		if len(b.Transactions) == 0 {
			continue
		}
		want := tracetest.Frames(t, c, uint64(b.Number))
		if len(want) != len(b.Transactions) {
			t.Fatalf("block %d: %d transactions, the call tracer traced %d", b.Number, len(b.Transactions), len(want))
		}
		for i, tx := range b.Transactions {
			if !jsonEqual(t, tx.Calls, want[i]) {
				got, _ := json.Marshal(tx.Calls)
				exp, _ := json.Marshal(want[i])
				t.Fatalf("block %d tx %d: frames\n%s\nthe call tracer's:\n%s", b.Number, i, got, exp)
			}
		}
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ja, jb)
}

func findTx(t *testing.T, blocks []evmapi.Block, hash common.Hash) evmapi.Transaction {
	t.Helper()
	for _, b := range blocks {
		for _, tx := range b.Transactions {
			if tx.Hash == hash {
				return tx
			}
		}
	}
	t.Fatalf("transaction %s not read", hash)
	return evmapi.Transaction{}
}

// frameTypes lists the types and depths of frames, (R) for the reverted.
func frameTypes(calls []evmapi.CallFrame) string {
	var s []string
	for _, c := range calls {
		typ := c.Type + strconv.Itoa(c.Depth)
		if c.Reverted {
			typ += "(R)"
		}
		s = append(s, typ)
	}
	return strings.Join(s, " ")
}
