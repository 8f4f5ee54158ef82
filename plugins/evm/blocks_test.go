package evm_test

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/rpc"
	dto "github.com/prometheus/client_model/go"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/internal/tracetest"
	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// contract is a compiled contract of a testdata JSON file ({name: {abi,
// bin}}, as solcjs's output is merged in Tokens.sol and Calls.sol).
type contract struct {
	abi abi.ABI
	bin []byte
}

// loadContracts reads the contracts of a JSON file.
func loadContracts(t testing.TB, path string) map[string]contract {
	t.Helper()
	raw, err := os.ReadFile(path)
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
	out := make(map[string]contract, len(all))
	for name, c := range all {
		a, err := abi.JSON(bytes.NewReader(c.ABI))
		if err != nil {
			t.Fatalf("%s of %s: %v", name, path, err)
		}
		out[name] = contract{abi: a, bin: hexutil.MustDecode(c.Bin)}
	}
	return out
}

// testContracts are the tokens of tests/e2e/testdata/evm and the
// contracts of testdata/Calls.sol.
func testContracts(t testing.TB) map[string]contract {
	t.Helper()
	all := loadContracts(t, "../../tests/e2e/testdata/evm/tokens.json")
	for name, c := range loadContracts(t, "testdata/calls.json") {
		all[name] = c
	}
	return all
}

// call packs a method call.
func (c contract) call(t testing.TB, method string, args ...any) []byte {
	t.Helper()
	b, err := c.abi.Pack(method, args...)
	if err != nil {
		t.Fatalf("pack %s: %v", method, err)
	}
	return b
}

// create is the contract's creation code with its constructor arguments.
func (c contract) create(t testing.TB, args ...any) []byte {
	t.Helper()
	return append(bytes.Clone(c.bin), c.call(t, "", args...)...)
}

// sender signs and sends the local key's transactions, with consecutive
// nonces from 0.
type sender struct {
	t       *testing.T
	client  *ethclient.Client
	key     *ecdsa.PrivateKey
	chainID *big.Int
	nonce   uint64
}

func newSender(t *testing.T, c *ethclient.Client) *sender {
	id, err := c.ChainID(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return &sender{t: t, client: c, key: localKey(t), chainID: id}
}

// send sends a transaction (to nil creates a contract) and returns its
// hash.
func (s *sender) send(to *common.Address, value int64, data []byte, gas uint64) common.Hash {
	s.t.Helper()
	tx := types.MustSignNewTx(s.key, types.LatestSignerForChainID(s.chainID), &types.DynamicFeeTx{
		ChainID: s.chainID, Nonce: s.nonce, To: to, Value: big.NewInt(value), Data: data, Gas: gas,
		GasTipCap: big.NewInt(2), GasFeeCap: big.NewInt(100e9),
	})
	if err := s.client.SendTransaction(s.t.Context(), tx); err != nil {
		s.t.Fatalf("send tx %d: %v", s.nonce, err)
	}
	s.nonce++
	return tx.Hash()
}

// localAddr is the address of the local key.
var localAddr = common.HexToAddress("0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC")

// created is the address of the contract the local key's transaction of a
// nonce creates.
func created(nonce uint64) common.Address { return crypto.CreateAddress(localAddr, nonce) }

// mine builds a block of the pending transactions (manual production).
func mine(t *testing.T, c *rpc.Client) {
	t.Helper()
	var hash common.Hash
	if err := c.CallContext(t.Context(), &hash, "evm_mine"); err != nil {
		t.Fatalf("evm_mine: %v", err)
	}
}

// dialIndexer dials the indexer handler of a harness.
func dialIndexer(t *testing.T, h *plugintest.Harness) *rpc.Client {
	t.Helper()
	ix, err := rpc.Dial(h.URL(evmapi.IndexerHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ix.Close)
	return ix
}

// getBlocks calls indexer_getBlocks.
func getBlocks(t *testing.T, ix *rpc.Client, from, count uint64) []evmapi.Block {
	t.Helper()
	var out []evmapi.Block
	if err := ix.CallContext(t.Context(), &out, evmapi.GetBlocksMethod, hexutil.Uint64(from), hexutil.Uint64(count)); err != nil {
		t.Fatalf("%s [%d, %d]: %v", evmapi.GetBlocksMethod, from, count, err)
	}
	if out == nil {
		t.Fatalf("%s [%d, %d] = null, want an array", evmapi.GetBlocksMethod, from, count)
	}
	return out
}

// getBlocksRaw calls indexer_getBlocks and returns the answer as it is.
func getBlocksRaw(t *testing.T, ix *rpc.Client, from, count uint64) json.RawMessage {
	t.Helper()
	var out json.RawMessage
	if err := ix.CallContext(t.Context(), &out, evmapi.GetBlocksMethod, hexutil.Uint64(from), hexutil.Uint64(count)); err != nil {
		t.Fatalf("%s [%d, %d]: %v", evmapi.GetBlocksMethod, from, count, err)
	}
	return out
}

// waitReported polls until the index holds n blocks.
func waitReported(t *testing.T, h *plugintest.Harness, n uint64) {
	t.Helper()
	plugintest.Eventually(t, time.Minute, func() error {
		if got, err := h.AcceptedCount(t.Context(), evm.Kind); err != nil || got < n {
			return fmt.Errorf("index holds %d blocks (%v), want %d", got, err, n)
		}
		return nil
	})
}

// reexecuted reads the counter of blocks re-executed for their frames.
func reexecuted(t *testing.T, h *plugintest.Harness) float64 {
	t.Helper()
	families, err := h.Metrics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "evm_indexer_reexecuted_blocks_total" {
			return metricValue(f)
		}
	}
	t.Fatal("no evm_indexer_reexecuted_blocks_total metric")
	return 0
}

func metricValue(f *dto.MetricFamily) float64 {
	var v float64
	for _, m := range f.GetMetric() {
		v += m.GetCounter().GetValue()
	}
	return v
}

// jsonEqual compares two values by their JSON.
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

// checkFrames checks that the frames of blocks are the call tracer's.
func checkFrames(t *testing.T, ix *rpc.Client, blocks []evmapi.Block) {
	t.Helper()
	for _, b := range blocks {
		want := tracetest.Frames(t, ix, uint64(b.Number))
		if len(want) != len(b.Transactions) {
			t.Fatalf("block %d: %d transactions, the call tracer traced %d", b.Number, len(b.Transactions), len(want))
		}
		for i, tx := range b.Transactions {
			if !jsonEqual(t, tx.Calls, want[i]) {
				got, _ := json.MarshalIndent(tx.Calls, "", " ")
				exp, _ := json.MarshalIndent(want[i], "", " ")
				t.Fatalf("block %d tx %d %s: frames\n%s\nthe call tracer's:\n%s", b.Number, i, tx.Hash, got, exp)
			}
		}
	}
}

// checkBlocks checks blocks against what the standard JSON-RPC methods
// answer: the block, its transactions and their receipts.
func checkBlocks(t *testing.T, c *ethclient.Client, blocks []evmapi.Block) {
	t.Helper()
	ctx := t.Context()
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(chainID)
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
			if len(got.Calls) == 0 || got.Calls[0].Depth != 0 || got.Calls[0].From != from {
				t.Fatalf("block %d tx %d: calls %+v, want the sender's top-level call first", n, i, got.Calls)
			}
		}
	}
}

// findTx returns the answered transaction of a hash.
func findTx(t *testing.T, blocks []evmapi.Block, hash common.Hash) evmapi.Transaction {
	t.Helper()
	for _, b := range blocks {
		for _, tx := range b.Transactions {
			if tx.Hash == hash {
				return tx
			}
		}
	}
	t.Fatalf("transaction %s not answered", hash)
	return evmapi.Transaction{}
}

// frameTypes lists the types and depths of frames, with (R) for those
// reverted.
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

// callsChain is a chain built by TestGetBlocks: the transactions that make
// every kind of frame.
type callsChain struct {
	c       *testChain
	vm      *evm.VM
	ix      *rpc.Client
	head    uint64
	factory common.Address
	txs     map[string]common.Hash
}

// buildCallsChain builds, block by block (manual production), plain
// transfers, contract creations, token transfers and mints with their
// logs, and the Factory's calls: creations by a contract (CREATE and
// CREATE2), value-carrying internal calls, caught reverts and out-of-gas,
// a failed creation, a failed transaction, a self-destruct.
func buildCallsChain(t *testing.T, dataDir string) *callsChain {
	t.Helper()
	cs := testContracts(t)
	vm := evm.New()
	cfg := map[string]any{"cache-mb": 16, "log-level": "warn", "block-production": "manual", "dev-api-enabled": true}
	raw, _ := json.Marshal(cfg)
	h := plugintest.Start(t, vm, plugintest.Options{Name: "C", Genesis: []byte(testGenesis(43112)), Config: raw, DataDir: dataDir})
	rc, err := rpc.Dial(h.URL("rpc"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	c := &testChain{h: h, rpc: rc, client: ethclient.NewClient(rc)}
	s := newSender(t, c.client)
	alice, bob := common.HexToAddress("0xa11ce00000000000000000000000000000000001"), common.HexToAddress("0xb0b0000000000000000000000000000000000002")
	txs := map[string]common.Hash{}

	// Block 1: plain transfers.
	txs["transfer"] = s.send(&alice, 1e18, nil, 21000)
	s.send(&bob, 1, nil, 21000)
	mine(t, rc)
	// Block 2: creations.
	token20, token721, token1155, factory := created(2), created(3), created(4), created(5)
	txs["create20"] = s.send(nil, 0, cs["Token20"].create(t, big.NewInt(1e6)), 2_000_000)
	s.send(nil, 0, cs["Token721"].bin, 2_000_000)
	s.send(nil, 0, cs["Token1155"].bin, 2_000_000)
	s.send(nil, 0, cs["Factory"].bin, 3_000_000)
	mine(t, rc)
	// Block 3: token logs, then creations by a contract.
	txs["erc20"] = s.send(&token20, 0, cs["Token20"].call(t, "transfer", alice, big.NewInt(5)), 100_000)
	txs["erc721"] = s.send(&token721, 0, cs["Token721"].call(t, "mint", alice, big.NewInt(1)), 200_000)
	txs["erc1155"] = s.send(&token1155, 0, cs["Token1155"].call(t, "mint", alice, big.NewInt(7), big.NewInt(3)), 200_000)
	txs["make"] = s.send(&factory, 1000, cs["Factory"].call(t, "make", [32]byte{1}), 1_000_000)
	mine(t, rc)
	// Block 4: internal calls of every kind, failures.
	txs["mixed"] = s.send(&factory, 400, cs["Factory"].call(t, "mixed", bob), 1_000_000)
	txs["boom"] = s.send(&factory, 0, cs["Factory"].call(t, "boom"), 500_000)
	txs["createFails"] = s.send(nil, 0, cs["Reverter"].bin, 500_000)
	txs["destroy"] = s.send(&factory, 0, cs["Factory"].call(t, "destroy", alice), 200_000)
	txs["last"] = s.send(&alice, 1, nil, 21000)
	mine(t, rc)

	r := waitReceipt(t, t.Context(), c.client, txs["last"])
	if r.BlockNumber.Uint64() != 4 {
		t.Fatalf("last transaction in block %d, want 4", r.BlockNumber)
	}
	waitReported(t, h, 4)
	return &callsChain{c: c, vm: vm, ix: dialIndexer(t, h), head: 4, factory: factory, txs: txs}
}

// TestGetBlocks: indexer_getBlocks answers every accepted block with its
// transactions, receipts and logs as the standard methods report them, and
// call frames equal to what debug_traceBlockByNumber's call tracer
// reports: transfers, creations at the top and by a contract (CREATE,
// CREATE2), value-carrying internal calls, a reverted and an out-of-gas
// internal call in a successful transaction, a failed creation, a failed
// transaction, a self-destruct, ERC-20/721/1155 logs. Every frame was
// recorded when the simulated beacon's blocks were inserted: none is
// re-executed. From 0 it answers the genesis block.
func TestGetBlocks(t *testing.T) {
	cc := buildCallsChain(t, "")
	blocks := getBlocks(t, cc.ix, 1, 100)
	if len(blocks) != int(cc.head) {
		t.Fatalf("%d blocks, want %d", len(blocks), cc.head)
	}
	checkBlocks(t, cc.c.client, blocks)
	checkFrames(t, cc.ix, blocks)
	if n := reexecuted(t, cc.c.h); n != 0 {
		t.Fatalf("%v blocks re-executed, want 0: the frames of the built blocks were not recorded", n)
	}

	// The scenario makes what it claims (so that the comparisons above
	// are not vacuous).
	tx := func(name string) evmapi.Transaction { return findTx(t, blocks, cc.txs[name]) }
	for _, c := range []struct{ name, types string }{
		{"transfer", "CALL0"},
		{"create20", "CREATE0"},
		{"make", "CALL0 CREATE1 CREATE21"},
		{"mixed", "CALL0 CALL1 CALL1 CALL1(R) CALL1(R) STATICCALL1 DELEGATECALL1 STATICCALL1 CREATE1(R)"},
		{"boom", "CALL0(R) CALL1"},
		{"createFails", "CREATE0(R)"},
		{"destroy", "CALL0 CALL1 SELFDESTRUCT2"},
	} {
		if got := frameTypes(tx(c.name).Calls); got != c.types {
			t.Errorf("%s: frames %q, want %q", c.name, got, c.types)
		}
	}
	mixed := tx("mixed").Calls
	if v := mixed[1].Value.ToInt(); mixed[1].To != common.HexToAddress("0xb0b0000000000000000000000000000000000002") || v.Int64() != 100 {
		t.Errorf("mixed: first internal call %+v, want 100 to bob", mixed[1])
	}
	if mixed[8].To != (common.Address{}) {
		t.Errorf("mixed: the failed creation made %s, want the zero address", mixed[8].To)
	}
	mk := tx("make")
	if len(mk.Logs) != 2 || mk.Calls[1].To != common.BytesToAddress(mk.Logs[0].Data[:32]) || mk.Calls[2].To != common.BytesToAddress(mk.Logs[1].Data[:32]) {
		t.Errorf("make: created %s and %s, logs %+v", mk.Calls[1].To, mk.Calls[2].To, mk.Logs)
	}
	if boom := tx("boom"); boom.Status != 0 || !boom.Calls[0].Reverted {
		t.Errorf("boom: status %d, top call %+v; want a failed transaction", boom.Status, boom.Calls[0])
	}
	if fails := tx("createFails"); fails.ContractAddress != nil || fails.Status != 0 {
		t.Errorf("failed creation: status %d, contract %v", fails.Status, fails.ContractAddress)
	}
	if c20 := tx("create20"); c20.ContractAddress == nil || *c20.ContractAddress != created(2) || c20.Calls[0].To != created(2) {
		t.Errorf("Token20 creation: contract %v, top call to %s; want %s", c20.ContractAddress, c20.Calls[0].To, created(2))
	}
	// Logs carry their index in the block: block 3 holds the ERC-20, 721
	// and 1155 logs, then the Factory's two.
	var idx []uint64
	for _, name := range []string{"erc20", "erc721", "erc1155", "make"} {
		for _, l := range tx(name).Logs {
			idx = append(idx, uint64(l.Index))
		}
	}
	if want := []uint64{0, 1, 2, 3, 4}; !jsonEqual(t, idx, want) {
		t.Errorf("log indexes of block 3: %v, want %v", idx, want)
	}
	for _, name := range []string{"erc721", "erc1155"} { // Transfer, TransferSingle
		if logs := tx(name).Logs; len(logs) != 1 || len(logs[0].Topics) != 4 {
			t.Errorf("%s: logs %+v, want one with 4 topics", name, logs)
		}
	}

	// From 0: the genesis block, which the index does not hold, then the
	// others.
	all := getBlocks(t, cc.ix, 0, 100)
	genesis, err := cc.c.client.HeaderByNumber(t.Context(), big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != int(cc.head)+1 || all[0].Number != 0 || all[0].Hash != genesis.Hash() || len(all[0].Transactions) != 0 || all[0].Transactions == nil {
		t.Fatalf("from 0: %d blocks, first %+v; want the genesis block %s then the others", len(all), all[0], genesis.Hash())
	}
	if !jsonEqual(t, all[1:], blocks) {
		t.Fatal("from 0: the blocks after genesis differ from those answered from 1")
	}
}

// TestGetBlocksPaging: from and count select the blocks, the answer stops
// at the head (the reported height), past it is empty, and bad params are
// -32602 errors that say what is wrong.
func TestGetBlocksPaging(t *testing.T) {
	cc := buildCallsChain(t, "")
	all := getBlocks(t, cc.ix, 0, 100)
	for _, tt := range []struct {
		from, count uint64
		want        []evmapi.Block
	}{
		{0, 1, all[:1]},
		{1, 2, all[1:3]},
		{2, 1, all[2:3]},
		{3, 10, all[3:]},
		{4, 1 << 40, all[4:]},
		{5, 1, []evmapi.Block{}},
		{1 << 63, 1 << 63, []evmapi.Block{}},
	} {
		if got := getBlocks(t, cc.ix, tt.from, tt.count); !jsonEqual(t, got, tt.want) {
			t.Errorf("[%d, %d]: %d blocks, want %d", tt.from, tt.count, len(got), len(tt.want))
		}
	}
	if raw := getBlocksRaw(t, cc.ix, 5, 1); string(raw) != "[]" {
		t.Errorf("past the head: %s, want []", raw)
	}

	for _, tt := range []struct {
		params []any
		want   string
	}{
		{[]any{}, "missing value for required argument 0"},
		{[]any{"0x1"}, "missing value for required argument 1"},
		{[]any{"0x1", "0x0"}, "count must be at least 1"},
		{[]any{"1", "0x1"}, "invalid argument 0"},
		{[]any{1, 2}, "invalid argument 0"},
		{[]any{"0x1", "ten"}, "invalid argument 1"},
		{[]any{"0x1", "0x1", "0x1"}, "too many arguments"},
		{[]any{"0x10000000000000000", "0x1"}, "invalid argument 0"},
	} {
		var out any
		err := cc.ix.CallContext(t.Context(), &out, evmapi.GetBlocksMethod, tt.params...)
		var rpcErr rpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32602 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("params %v: %v, want -32602 %q", tt.params, err, tt.want)
		}
	}
}

// TestGetBlocksFallback: the blocks whose frames were not recorded are
// re-executed with go-ethereum's call tracer, with the same answer to the
// byte: one block's frames deleted, then a chain whose whole frame store is
// gone (as for blocks inserted before it existed).
func TestGetBlocksFallback(t *testing.T) {
	dir := t.TempDir()
	var want json.RawMessage
	t.Run("one block's frames deleted", func(t *testing.T) {
		cc := buildCallsChain(t, dir)
		want = getBlocksRaw(t, cc.ix, 0, 100)
		mixed := waitReceipt(t, t.Context(), cc.c.client, cc.txs["mixed"])
		if err := cc.vm.DeleteFrames(mixed.BlockHash); err != nil {
			t.Fatal(err)
		}
		if got := getBlocksRaw(t, cc.ix, 0, 100); !bytes.Equal(got, want) {
			t.Fatalf("re-executed answer differs:\n%s\nrecorded:\n%s", got, want)
		}
		if n := reexecuted(t, cc.c.h); n != 1 {
			t.Fatalf("%v blocks re-executed, want 1", n)
		}
	})
	if err := os.RemoveAll(filepath.Join(dir, "frames")); err != nil {
		t.Fatal(err)
	}
	t.Run("frame store gone", func(t *testing.T) {
		h := plugintest.Start(t, evm.New(), plugintest.Options{Name: "C", Genesis: []byte(testGenesis(43112)),
			Config: []byte(`{"cache-mb": 16, "log-level": "warn", "block-production": "manual"}`), DataDir: dir})
		waitReported(t, h, 4)
		ix := dialIndexer(t, h)
		if got := getBlocksRaw(t, ix, 0, 100); !bytes.Equal(got, want) {
			t.Fatalf("re-executed answer differs:\n%s\nrecorded:\n%s", got, want)
		}
		if n := reexecuted(t, h); n != 4 {
			t.Fatalf("%v blocks re-executed, want 4", n)
		}
	})
}

// generateChain generates n blocks on testGenesis(43112) with
// go-ethereum's chain maker and writes them to an RLP chain file (as geth
// export does) in dir.
func generateChain(t testing.TB, dir string, n int, gen func(int, *core.BlockGen)) (string, []*types.Block) {
	t.Helper()
	genesis, err := evm.ParseGenesis([]byte(testGenesis(43112)))
	if err != nil {
		t.Fatal(err)
	}
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), n, gen)
	path := filepath.Join(dir, "chain.rlp")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, b := range blocks {
		if err := rlp.Encode(f, b); err != nil {
			t.Fatal(err)
		}
	}
	return path, blocks
}

// transfers adds n plain transfers of the local key to a generated block.
func transfers(g *core.BlockGen, key *ecdsa.PrivateKey, n int) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	signer := types.LatestSignerForChainID(big.NewInt(43112))
	for range n {
		to := common.BigToAddress(big.NewInt(int64(1000 + g.TxNonce(from)%50)))
		g.AddTx(types.MustSignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID: big.NewInt(43112), Nonce: g.TxNonce(from), To: &to, Value: big.NewInt(1), Gas: 21000,
			GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9),
		}))
	}
}

// TestGetBlocksLimits: on an imported chain (whose frames were recorded at
// import), an answer stops at MaxBlocks blocks, and after the block with
// which it reaches MaxTransactions transactions.
func TestGetBlocksLimits(t *testing.T) {
	const full, txsPerBlock, empty = 8, 1300, evmapi.MaxBlocks + 80
	key := localKey(t)
	path, blocks := generateChain(t, t.TempDir(), full+empty, func(i int, g *core.BlockGen) {
		if i < full {
			transfers(g, key, txsPerBlock)
		}
	})
	head := uint64(len(blocks))
	vm := evm.New()
	cfg, _ := json.Marshal(map[string]any{"cache-mb": 64, "log-level": "warn", "block-production": "none", "import-chain-file": path})
	h := plugintest.Start(t, vm, plugintest.Options{Name: "C", Genesis: []byte(testGenesis(43112)), Config: cfg})
	waitReported(t, h, head)
	ix := dialIndexer(t, h)

	// 7 full blocks hold 9,100 transactions, the 8th brings 10,400.
	got := getBlocks(t, ix, 1, evmapi.MaxBlocks)
	txs := 0
	for _, b := range got {
		txs += len(b.Transactions)
	}
	if len(got) != full || txs != full*txsPerBlock {
		t.Errorf("[1, MaxBlocks]: %d blocks, %d transactions; want %d and %d (stopped by MaxTransactions)", len(got), txs, full, full*txsPerBlock)
	}
	for i, b := range got {
		if b.Hash != blocks[i].Hash() {
			t.Fatalf("block %d: %s, want %s", i+1, b.Hash, blocks[i].Hash())
		}
	}
	// From 2, 7 full blocks do not reach it: MaxBlocks stops the answer.
	got = getBlocks(t, ix, 2, 5000)
	if len(got) != evmapi.MaxBlocks || uint64(got[0].Number) != 2 || uint64(got[len(got)-1].Number) != 2+evmapi.MaxBlocks-1 {
		t.Errorf("[2, 5000]: %d blocks from %d, want %d from 2 (stopped by MaxBlocks)", len(got), got[0].Number, evmapi.MaxBlocks)
	}
	if got = getBlocks(t, ix, head-2, 100); len(got) != 3 || uint64(got[2].Number) != head {
		t.Errorf("[head-2, 100]: %d blocks, want 3 up to the head", len(got))
	}
	if got = getBlocks(t, ix, head+1, 100); len(got) != 0 {
		t.Errorf("[head+1, 100]: %d blocks, want none", len(got))
	}
	// Imported blocks are traced at insertion too.
	if n := reexecuted(t, h); n != 0 {
		t.Errorf("%v blocks re-executed, want 0: the frames of imported blocks were not recorded", n)
	}
	got = getBlocks(t, ix, full, 1)
	checkFrames(t, ix, got)
	if c := got[0].Transactions[0].Calls; len(c) != 1 || c[0].Type != evmapi.CallType || c[0].GasUsed != 21000 {
		t.Errorf("a transfer's frames: %+v", c)
	}
}

// TestGetBlocksReportedHeight: no block above the height reported to the
// index is answered, though go-ethereum holds it: the node could still
// replace it (docs/evm.md, Storage and the index).
func TestGetBlocksReportedHeight(t *testing.T) {
	fh := newFakeHost()
	d := mustInitVM(t, t.TempDir(), fh)
	ctx := t.Context()
	key := localKey(t)
	waitReceipt(t, ctx, d.client, transfer(t, ctx, d.client, key, 0, recoverTo, big.NewInt(1)).Hash())
	waitIndexed(t, fh, 1)
	fh.mu.Lock()
	fh.refuse = true
	fh.mu.Unlock()
	for n := uint64(1); n < 3; n++ {
		waitReceipt(t, ctx, d.client, transfer(t, ctx, d.client, key, n, recoverTo, big.NewInt(1)).Hash())
	}
	if head, err := d.client.BlockNumber(ctx); err != nil || head != 3 {
		t.Fatalf("head %d (%v), want 3", head, err)
	}
	if got := getBlocks(t, d.indexer, 0, 10); len(got) != 2 || got[1].Number != 1 {
		t.Fatalf("%d blocks answered with the index at 1, want blocks 0 and 1", len(got))
	}
	if got := getBlocks(t, d.indexer, 2, 10); len(got) != 0 {
		t.Fatalf("%d blocks answered above the reported height, want none", len(got))
	}
	fh.mu.Lock()
	fh.refuse = false
	fh.mu.Unlock()
	waitIndexed(t, fh, 3)
	got := getBlocks(t, d.indexer, 1, 10)
	if len(got) != 3 {
		t.Fatalf("%d blocks answered once reported, want 3", len(got))
	}
	checkBlocks(t, d.client, got)
	checkFrames(t, d.indexer, got)
}

// TestGetBlocksAfterRecovery: the blocks re-imported at start after a crash
// (from the index, then from go-ethereum's own database, recover.go) have
// their frames recorded as they are re-executed, equal to the call
// tracer's. (TestRecoverAccepted checks the frames of every recovery with
// the frame store kept, blocks executed twice included.)
func TestGetBlocksAfterRecovery(t *testing.T) {
	base := buildChain(t, 5, recoverTo)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(base.dir)); err != nil {
		t.Fatal(err)
	}
	crash(t, dir)
	if err := os.RemoveAll(filepath.Join(dir, "frames")); err != nil {
		t.Fatal(err)
	}
	d := mustInitVM(t, dir, base.fh.clone(3))
	for _, want := range []string{"source=index blocks=3", `source="go-ethereum's database" blocks=2`} {
		if !strings.Contains(d.logs.String(), want) {
			t.Fatalf("log lacks %q:\n%s", want, d.logs.String())
		}
	}
	for i, hash := range base.hashes {
		if ok, err := d.vm.HasFrames(hash); err != nil || !ok {
			t.Fatalf("block %d: frames recorded %v (%v), want true", i+1, ok, err)
		}
	}
	got := getBlocks(t, d.indexer, 1, 10)
	if len(got) != len(base.hashes) {
		t.Fatalf("%d blocks, want %d", len(got), len(base.hashes))
	}
	checkBlocks(t, d.client, got)
	checkFrames(t, d.indexer, got)
}

// TestGetBlocksStateGone: on a pruning chain, a block whose frames were not
// recorded is re-executed while its state is recent; once the state is
// gone, the answer is an error naming the block (never wrong frames), and
// the blocks before it are answered.
func TestGetBlocksStateGone(t *testing.T) {
	const n = 200
	key := localKey(t)
	// Every block changes the state: one more layer of the pruning state
	// database each, which keeps the most recent 128.
	path, blocks := generateChain(t, t.TempDir(), n, func(i int, g *core.BlockGen) { transfers(g, key, 1) })
	vm := evm.New()
	cfg, _ := json.Marshal(map[string]any{"cache-mb": 16, "log-level": "warn", "pruning-enabled": true,
		"block-production": "none", "import-chain-file": path})
	h := plugintest.Start(t, vm, plugintest.Options{Name: "C", Genesis: []byte(testGenesis(43112)), Config: cfg})
	waitReported(t, h, n)
	ix := dialIndexer(t, h)
	first, last := blocks[0], blocks[n-1]
	for _, b := range []*types.Block{first, last} {
		if err := vm.DeleteFrames(b.Hash()); err != nil {
			t.Fatal(err)
		}
	}
	got := getBlocks(t, ix, n, 1)
	checkFrames(t, ix, got)
	if c := reexecuted(t, h); c != 1 {
		t.Fatalf("%v blocks re-executed, want 1", c)
	}

	var out any
	err := ix.CallContext(t.Context(), &out, evmapi.GetBlocksMethod, "0x1", "0x1")
	var rpcErr rpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32000 ||
		!strings.Contains(err.Error(), "block 1 ("+first.Hash().Hex()+"): its call frames were not recorded, and re-executing it failed") {
		t.Fatalf("block 1 without frames or state: %v, want a -32000 error naming it", err)
	}
	if got := getBlocks(t, ix, 0, 10); len(got) != 1 || got[0].Number != 0 {
		t.Fatalf("from 0: %d blocks, want the genesis block alone (the answer stops before block 1)", len(got))
	}
}
