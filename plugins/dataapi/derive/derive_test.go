package derive

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

var (
	a   = common.HexToAddress("0xa")
	b   = common.HexToAddress("0xb")
	tok = common.HexToAddress("0x70")
)

func w32(n int64) []byte { return common.BigToHash(big.NewInt(n)).Bytes() }

func topic(x common.Address) common.Hash { return common.BytesToHash(x[:]) }

func TestTopics(t *testing.T) {
	for sig, h := range map[string]common.Hash{
		"Transfer(address,address,uint256)":                          TransferTopic,
		"TransferSingle(address,address,address,uint256,uint256)":    TransferSingleTopic,
		"TransferBatch(address,address,address,uint256[],uint256[])": TransferBatchTopic,
	} {
		if crypto.Keccak256Hash([]byte(sig)) != h {
			t.Errorf("%s: topic %s", sig, h)
		}
	}
}

func TestDecodeLog(t *testing.T) {
	batch := func(ids, values []int64) []byte {
		d := append(w32(64), w32(int64(64+32+32*len(ids)))...)
		d = append(d, w32(int64(len(ids)))...)
		for _, x := range ids {
			d = append(d, w32(x)...)
		}
		d = append(d, w32(int64(len(values)))...)
		for _, x := range values {
			d = append(d, w32(x)...)
		}
		return d
	}
	for _, tc := range []struct {
		name string
		log  evmapi.Log
		want int  // transfers
		kind kind // of the first
	}{
		{"erc20", evmapi.Log{Topics: []common.Hash{TransferTopic, topic(a), topic(b)}, Data: w32(5)}, 1, erc20},
		{"erc721", evmapi.Log{Topics: []common.Hash{TransferTopic, topic(a), topic(b), common.BigToHash(big.NewInt(9))}}, 1, erc721},
		{"erc20 with short data", evmapi.Log{Topics: []common.Hash{TransferTopic, topic(a), topic(b)}, Data: []byte{1}}, 0, 0},
		{"erc721 with data", evmapi.Log{Topics: []common.Hash{TransferTopic, topic(a), topic(b), {}}, Data: w32(1)}, 0, 0},
		{"transfer with two topics", evmapi.Log{Topics: []common.Hash{TransferTopic, topic(a)}, Data: w32(1)}, 0, 0},
		{"no topics", evmapi.Log{Data: w32(1)}, 0, 0},
		{"other event", evmapi.Log{Topics: []common.Hash{{1}, topic(a), topic(b)}, Data: w32(1)}, 0, 0},
		{"single", evmapi.Log{Topics: []common.Hash{TransferSingleTopic, topic(a), topic(a), topic(b)}, Data: append(w32(7), w32(3)...)}, 1, erc1155},
		{"single, short", evmapi.Log{Topics: []common.Hash{TransferSingleTopic, topic(a), topic(a), topic(b)}, Data: w32(7)}, 0, 0},
		{"batch", evmapi.Log{Topics: []common.Hash{TransferBatchTopic, topic(a), topic(a), topic(b)}, Data: batch([]int64{1, 2, 3}, []int64{4, 5, 6})}, 3, erc1155},
		{"empty batch", evmapi.Log{Topics: []common.Hash{TransferBatchTopic, topic(a), topic(a), topic(b)}, Data: batch(nil, nil)}, 0, 0},
		{"batch, lengths differ", evmapi.Log{Topics: []common.Hash{TransferBatchTopic, topic(a), topic(a), topic(b)}, Data: batch([]int64{1, 2}, []int64{4})}, 0, 0},
		{"batch, truncated", evmapi.Log{Topics: []common.Hash{TransferBatchTopic, topic(a), topic(a), topic(b)}, Data: batch([]int64{1, 2}, []int64{4, 5})[:200]}, 0, 0},
		{"batch, huge length", evmapi.Log{Topics: []common.Hash{TransferBatchTopic, topic(a), topic(a), topic(b)}, Data: append(append(w32(64), w32(96)...), common.MaxHash[:]...)}, 0, 0},
	} {
		got := decodeLog(&tc.log)
		if len(got) != tc.want || (tc.want > 0 && got[0].kind != tc.kind) {
			t.Errorf("%s: %+v", tc.name, got)
		}
	}
	got := decodeLog(&evmapi.Log{Index: 4, Address: tok, Topics: []common.Hash{TransferBatchTopic, topic(b), topic(a), topic(b)}, Data: batch([]int64{1, 2}, []int64{4, 5})})
	if got[1].batch != 1 || got[1].id.Int64() != 2 || got[1].value.Int64() != 5 || got[1].from != a || got[1].to != b || got[1].log != 4 || got[1].token != tok {
		t.Errorf("batch item 1: %+v", got[1])
	}
}

func hx(n int64) *hexutil.Big { return (*hexutil.Big)(big.NewInt(n)) }

func TestFrames(t *testing.T) {
	c2, c3, f := common.HexToAddress("0xc2"), common.HexToAddress("0xc3"), common.HexToAddress("0xf")
	tx := evmapi.Transaction{To: &f, Status: 1, Calls: []evmapi.CallFrame{
		{Type: "CALL", From: a, To: f, Value: hx(1), Depth: 0},
		{Type: "CREATE2", From: f, To: c2, Value: hx(0), Depth: 1},
		{Type: "CREATE", From: c2, To: c3, Value: hx(0), Depth: 2}, // CREATE3
		{Type: "CALL", From: f, To: b, Value: hx(0), Depth: 1},     // no value
		{Type: "CALL", From: f, To: b, Value: hx(2), Depth: 1, Reverted: true},
		{Type: "CREATE", From: b, To: c3, Value: hx(0), Depth: 2},      // under a revert: made nothing
		{Type: "CALL", From: b, To: a, Value: hx(3), Depth: 3},         // reverted with its parent's parent
		{Type: "DELEGATECALL", From: f, To: b, Value: hx(5), Depth: 1}, // never listed
		{Type: "SELFDESTRUCT", From: f, To: b, Value: hx(5), Depth: 1}, // never listed
		{Type: "CALL", From: f, To: b, Value: hx(4), Depth: 9},         // malformed: skipped
	}}
	internal, created := frames(&tx)
	var got []string
	for _, it := range internal {
		got = append(got, it.Type+map[bool]string{true: "!", false: ""}[it.Reverted])
	}
	want := []string{"CREATE2", "CREATE3", "CALL!", "CREATE!", "CALL!"}
	if len(got) != len(want) {
		t.Fatalf("internal %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("internal %v, want %v", got, want)
		}
	}
	if len(created) != 2 || created[0].address != c2 || created[1].address != c3 || created[1].factory != c2 || created[1].frame != 2 {
		t.Errorf("created %+v", created)
	}
	// A top-level creation is a deployment from frame 0; a failed one none.
	c := common.HexToAddress("0xcc")
	_, created = frames(&evmapi.Transaction{Status: 1, ContractAddress: &c, Calls: []evmapi.CallFrame{{Type: "CREATE", From: a, To: c, Depth: 0}}})
	if len(created) != 1 || created[0].address != c || created[0].factory != (common.Address{}) {
		t.Errorf("top-level creation: %+v", created)
	}
	_, created = frames(&evmapi.Transaction{Status: 0, ContractAddress: &c, Calls: []evmapi.CallFrame{{Type: "CREATE", From: a, To: c, Depth: 0, Reverted: true}}})
	if len(created) != 0 {
		t.Errorf("failed creation: %+v", created)
	}
}

// TestBuild: balances add up across blocks, shortfalls are reported and
// overridden, block totals and state are right.
func TestBuild(t *testing.T) {
	mk := func(n uint64, logs ...evmapi.Log) evmapi.Block {
		return evmapi.Block{Number: hexutil.Uint64(n), Hash: common.Hash{byte(n)}, Timestamp: hexutil.Uint64(100 + n), BaseFee: hx(10), GasUsed: 21000,
			Transactions: []evmapi.Transaction{{Hash: common.Hash{0xee, byte(n)}, From: a, To: &tok, Value: hx(0), GasPrice: hx(12), GasUsed: 100, Status: 1, Input: []byte{0xa9, 0x05, 0x9c, 0xbb, 1}, Logs: logs}}}
	}
	tr := func(from, to common.Address, v int64) evmapi.Log {
		return evmapi.Log{Address: tok, Topics: []common.Hash{TransferTopic, topic(from), topic(to)}, Data: w32(v)}
	}
	d := Decode([]evmapi.Block{mk(5, tr(common.Address{}, a, 10)), mk(6, tr(a, b, 4), tr(b, a, 1)), mk(7, tr(b, a, 9))})
	n := d.Needs()
	if len(n.Tokens) != 1 || n.Tokens[tok].Block != 5 || len(n.Balances) != 2 {
		t.Fatalf("needs %+v", n)
	}
	r := &Resolved{
		Tokens:   map[common.Address]store.Token{tok: {Address: tok, Name: "T", Decimals: 2}},
		Balances: map[BalanceKey]*big.Int{{Holder: a, Token: tok}: big.NewInt(0), {Holder: b, Token: tok}: big.NewInt(0)},
	}
	chain := ids.ID{1}
	_, short := d.Build(chain, store.ChainState{EVMChainID: 7, Next: 5, CumulativeTxs: 40}, r)
	// b: +4 -1 at block 6, then -9 at block 7: the events fall short.
	if len(short) != 1 || short[0] != (BalanceAt{Key: BalanceKey{Holder: b, Token: tok}, Block: 7}) {
		t.Fatalf("shortfalls %+v", short)
	}
	r.Overrides = map[BalanceAt]*big.Int{short[0]: big.NewInt(6)}
	batch, short := d.Build(chain, store.ChainState{EVMChainID: 7, Next: 5, CumulativeTxs: 40}, r)
	if len(short) != 0 {
		t.Fatalf("shortfalls after the override: %+v", short)
	}
	var got []string
	for _, c := range batch.Balances {
		got = append(got, fmt.Sprintf("%d:%s=%s", c.Block, c.Holder.Hex()[:4], c.Balance))
	}
	want := []string{"5:0x00=10", "6:0x00=7", "6:0x00=3", "7:0x00=6", "7:0x00=16"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("balance changes %v, want %v", got, want)
	}
	if batch.Balances[1].Holder != a || batch.Balances[2].Holder != b || batch.Balances[0].Token.Name != "T" {
		t.Errorf("balance changes %+v", batch.Balances)
	}
	if batch.State != (store.ChainState{EVMChainID: 7, Next: 8, CumulativeTxs: 43}) {
		t.Errorf("state %+v", batch.State)
	}
	if blk := batch.Blocks[1]; blk.CumulativeTxs != 42 || blk.FeesSpent.Int64() != 1200 || blk.TxCount != 1 || blk.BaseFee.Int64() != 10 {
		t.Errorf("block 6 %+v", blk)
	}
	if tx := batch.Txs[1]; len(tx.ERC20) != 2 || tx.ERC20[0].Token.Kind != store.KindERC20 || string(tx.Method) != "\xa9\x05\x9c\xbb" || tx.BlockTimestamp != 106 {
		t.Errorf("tx of block 6 %+v", tx)
	}
}
