package jsonrpc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestEncodeResult: a success response written by hand is byte for byte
// what json.Marshal writes for it.
func TestEncodeResult(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<12)
	results := []any{nil, 0, "x", []string{}, map[string]any{"a": []int{1, 2}, "b": big}, []any{map[string]string{"id": "2", "bytes": "0x" + big}}}
	ids := []json.RawMessage{nil, json.RawMessage(`1`), json.RawMessage(`-2.5e3`), json.RawMessage(`"abc"`), json.RawMessage(`null`)}
	for _, r := range results {
		res, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			want, err := json.Marshal(&response{JSONRPC: "2.0", Result: res, ID: id})
			if err != nil {
				t.Fatal(err)
			}
			got := encodeResponse(&response{Result: res, ID: id})
			if string(got) != string(want) {
				t.Fatalf("result %.60s id %s: encoded %.200s, want %.200s", res, id, got, want)
			}
		}
	}
}

// TestRawResult: a method's RawResult is answered as it is, empty as null.
func TestRawResult(t *testing.T) {
	for _, tc := range []struct {
		raw  RawResult
		want string
	}{
		{RawResult(`[{"a":1}, 2]`), `{"jsonrpc":"2.0","result":[{"a":1}, 2],"id":7}`},
		{RawResult(`"x"`), `{"jsonrpc":"2.0","result":"x","id":7}`},
		{nil, `{"jsonrpc":"2.0","result":null,"id":7}`},
	} {
		s := NewServer(Options{})
		s.Register("raw", Method(func(context.Context, struct{}) (RawResult, error) { return tc.raw, nil }))
		got := s.handleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"raw"}`))
		if string(got) != tc.want {
			t.Fatalf("RawResult %q answered %s, want %s", tc.raw, got, tc.want)
		}
	}
}
