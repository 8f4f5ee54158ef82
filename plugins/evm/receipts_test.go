package evm

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// TestDecodeReceipts: decodeReceipts reads go-ethereum's stored receipts
// as go-ethereum's own decoding does, and refuses what does not decode.
func TestDecodeReceipts(t *testing.T) {
	addr := common.Address{0xaa}
	receipts := []*types.ReceiptForStorage{
		{Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: 21000},
		{Status: types.ReceiptStatusFailed, CumulativeGasUsed: 60000, Logs: []*types.Log{}},
		{Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: 1 << 40, Logs: []*types.Log{
			{Address: addr, Topics: []common.Hash{{1}, {2}, {3}, {4}}, Data: bytes.Repeat([]byte{7}, 100)},
			{Address: addr},
			{Address: addr, Topics: []common.Hash{{5}}, Data: []byte{1}},
		}},
		{PostState: common.Hash{9}.Bytes(), CumulativeGasUsed: 1 << 41, Logs: []*types.Log{{Address: addr, Topics: []common.Hash{{6}}}}},
	}
	raw, err := rlp.EncodeToBytes(receipts)
	if err != nil {
		t.Fatal(err)
	}
	var want []*types.ReceiptForStorage
	if err := rlp.DecodeBytes(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, err := decodeReceipts(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d receipts, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		wantLogs := []evmapi.Log{}
		for _, l := range w.Logs {
			wantLogs = append(wantLogs, evmapi.Log{Address: l.Address, Topics: l.Topics, Data: l.Data})
		}
		gl, _ := json.Marshal(g.logs)
		wl, _ := json.Marshal(wantLogs)
		if g.status != w.Status || g.cumGas != w.CumulativeGasUsed || !bytes.Equal(gl, wl) || g.logs == nil {
			t.Errorf("receipt %d: status %d, gas %d, logs %s; want %d, %d, %s", i, g.status, g.cumGas, gl, w.Status, w.CumulativeGasUsed, wl)
		}
	}
	empty, _ := rlp.EncodeToBytes([]*types.ReceiptForStorage{})
	if got, err := decodeReceipts(empty); err != nil || len(got) != 0 {
		t.Errorf("no receipts: %v, %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"empty":           nil,
		"truncated":       raw[:len(raw)-1],
		"trailing bytes":  append(bytes.Clone(raw), 0x80),
		"not a list":      {0x80},
		"invalid status":  mustRLP(t, []any{[]any{[]byte{2}, uint64(1), []any{}}}),
		"short address":   mustRLP(t, []any{[]any{[]byte{1}, uint64(1), []any{[]any{make([]byte, 19), []any{}, []byte{}}}}}),
		"short topic":     mustRLP(t, []any{[]any{[]byte{1}, uint64(1), []any{[]any{make([]byte, 20), []any{make([]byte, 31)}, []byte{}}}}}),
		"log field extra": mustRLP(t, []any{[]any{[]byte{1}, uint64(1), []any{[]any{make([]byte, 20), []any{}, []byte{}, []byte{}}}}}),
		"receipt extra":   mustRLP(t, []any{[]any{[]byte{1}, uint64(1), []any{}, []byte{}}}),
	} {
		if _, err := decodeReceipts(bad); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func mustRLP(t *testing.T, v any) []byte {
	t.Helper()
	b, err := rlp.EncodeToBytes(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
