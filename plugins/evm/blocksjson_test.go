package evm

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/chainhost/chainhost/avax/evmapi"
)

func bigOf(s string) *hexutil.Big {
	v, ok := new(big.Int).SetString(s, 0)
	if !ok {
		panic(s)
	}
	return (*hexutil.Big)(v)
}

// TestAppendBlocks: appendBlocks writes what encoding/json writes for the
// same blocks, byte for byte, nil and empty fields included.
func TestAppendBlocks(t *testing.T) {
	to := common.HexToAddress("0x00000000000000000000000000000000000000ff")
	tests := []struct {
		name   string
		blocks []evmapi.Block
	}{
		{"nil", nil},
		{"empty", []evmapi.Block{}},
		{"genesis, no base fee", []evmapi.Block{{Hash: common.Hash{1}}}},
		{"nil transactions", []evmapi.Block{{Number: 7, BaseFee: bigOf("0")}}},
		{"full", []evmapi.Block{{
			Number: 1 << 40, Hash: common.HexToHash("0xab"), ParentHash: common.HexToHash("0xcd"), Timestamp: 1700000000,
			GasLimit: 30_000_000, GasUsed: 21000, BaseFee: bigOf("875000000"),
			Transactions: []evmapi.Transaction{{
				Hash: common.Hash{2}, Index: 0, Type: 2, From: common.Address{3}, To: &to, Value: bigOf("1000000000000000000"),
				Input: []byte{0xa9, 0x05, 0x9c, 0xbb}, Nonce: 9, Gas: 100000, GasPrice: bigOf("875000002"),
				MaxFeePerGas: bigOf("100000000000"), MaxPriorityFeePerGas: bigOf("2"), Status: 1, GasUsed: 51234,
				Logs: []evmapi.Log{
					{Index: 0, Address: to, Topics: []common.Hash{{4}, {5}}, Data: make([]byte, 32)},
					{Index: 1, Address: to, Topics: []common.Hash{}, Data: nil},
					{Index: 2, Address: to},
				},
				Calls: []evmapi.CallFrame{
					{Type: evmapi.CallType, From: common.Address{3}, To: to, Value: bigOf("0"), Gas: 100000, GasUsed: 51234},
					{Type: evmapi.StaticCallType, From: to, To: common.Address{6}, Gas: 3000, GasUsed: 72, Depth: 1},
					{Type: evmapi.Create2Type, From: to, Value: bigOf("-5"), Gas: 1 << 63, Depth: 12, Reverted: true},
				},
			}, {
				Hash: common.Hash{7}, Index: 1, Type: 0, Value: bigOf("0x400000000000000000"), Input: []byte{}, GasPrice: bigOf("18446744073709551615"),
				ContractAddress: &to, Logs: []evmapi.Log{}, Calls: []evmapi.CallFrame{},
			}, {
				Index: 2,
			}},
		}, {Number: 2, Transactions: []evmapi.Transaction{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.blocks)
			if err != nil {
				t.Fatal(err)
			}
			got := appendBlocks([]byte("prefix"), tt.blocks)
			if !bytes.Equal(got, append([]byte("prefix"), want...)) {
				t.Fatalf("appendBlocks:\n%s\nencoding/json:\nprefix%s", got, want)
			}
		})
	}
}

// TestFrameRecord: a frame record decodes to the frames recorded, with the
// call tracer's type names; a record that does not match its block fails.
func TestFrameRecord(t *testing.T) {
	a, b := common.Address{1}, common.Address{2}
	txs := [][]recFrame{
		{{typ: byte(vm.CALL), from: a, to: b, value: big.NewInt(0), gas: 21000, gasUsed: 21000}},
		{
			{typ: byte(vm.CALL), from: a, to: b, value: big.NewInt(1000), gas: 1_000_000, gasUsed: 500_000, reverted: true},
			{typ: byte(vm.STATICCALL), from: b, to: a, gas: 3000, gasUsed: 100, depth: 1},
			{typ: byte(vm.CREATE2), from: b, value: new(big.Int).Lsh(big.NewInt(1), 200), gas: 1 << 40, gasUsed: 7, depth: 1, reverted: true},
			{typ: byte(vm.SELFDESTRUCT), from: b, to: a, value: big.NewInt(5), depth: 2},
			{typ: byte(vm.DELEGATECALL), from: b, to: a, value: big.NewInt(0), depth: 1},
			{typ: byte(vm.CALLCODE), from: b, to: a, value: big.NewInt(0), depth: 1},
			{typ: byte(vm.CREATE), from: b, to: a, value: big.NewInt(0), depth: 1},
		},
	}
	rec := []byte{frameRecordVersion, byte(len(txs))}
	for i, frames := range txs {
		rec = appendFrames(rec, common.Hash{byte(i + 1)}, frames)
	}
	got, err := decodeFrames(rec, len(txs))
	if err != nil {
		t.Fatal(err)
	}
	for i, frames := range txs {
		if got.hashes[i] != (common.Hash{byte(i + 1)}) {
			t.Errorf("tx %d: hash %s", i, got.hashes[i])
		}
		calls := got.tx(i)
		if len(calls) != len(frames) {
			t.Fatalf("tx %d: %d frames, want %d", i, len(calls), len(frames))
		}
		for j, f := range frames {
			want := evmapi.CallFrame{Type: vm.OpCode(f.typ).String(), From: f.from, To: f.to, Value: (*hexutil.Big)(f.value),
				Gas: hexutil.Uint64(f.gas), GasUsed: hexutil.Uint64(f.gasUsed), Depth: f.depth, Reverted: f.reverted}
			gj, _ := json.Marshal(calls[j])
			wj, _ := json.Marshal(want)
			if !bytes.Equal(gj, wj) {
				t.Errorf("tx %d frame %d: %s, want %s", i, j, gj, wj)
			}
		}
	}
	for _, bad := range []struct {
		name string
		rec  []byte
		txs  int
	}{
		{"empty", nil, 0},
		{"other version", append([]byte{2}, rec[1:]...), len(txs)},
		{"fewer transactions than the block", rec, len(txs) + 1},
		{"truncated", rec[:len(rec)-1], len(txs)},
		{"bytes left", append(bytes.Clone(rec), 0), len(txs)},
		{"no hash", []byte{frameRecordVersion, 1}, 1},
		{"no frames", append(append([]byte{frameRecordVersion, 1}, make([]byte, 32)...), 0), 1},
	} {
		if _, err := decodeFrames(bad.rec, bad.txs); !errors.Is(err, errBadRecord) {
			t.Errorf("%s: %v, want a bad record", bad.name, err)
		}
	}
}
