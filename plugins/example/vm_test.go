package example_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"testing"

	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// TestPutGetAndIndex runs the VM over real gRPC in the SDK's harness: the
// way a VM author unit-tests a plugin without starting a node.
func TestPutGetAndIndex(t *testing.T) {
	h := plugintest.Start(t, example.New(), plugintest.Options{Name: "kv"})
	ctx := context.Background()
	url := h.URL("rpc")
	call := func(method string, params, result any) error {
		return jsonrpc.Call(ctx, http.DefaultClient, url, method, params, result)
	}
	for i, kv := range [][2]string{{"a", "1"}, {"b", "2"}, {"a", "3"}} {
		var r struct {
			Height jsonrpc.Uint64 `json:"height"`
			Index  jsonrpc.Uint64 `json:"index"`
		}
		if err := call("kv.put", map[string]string{"key": kv[0], "value": kv[1]}, &r); err != nil {
			t.Fatal(err)
		}
		if int(r.Height) != i || int(r.Index) != i {
			t.Fatalf("put %d: %+v", i, r)
		}
	}
	var got map[string]string
	if err := call("kv.get", map[string]string{"key": "a"}, &got); err != nil || got["value"] != "3" {
		t.Fatalf("kv.get a = %v, %v", got, err)
	}
	if err := call("kv.get", map[string]string{"key": "zz"}, &got); err == nil {
		t.Fatal("kv.get of a missing key succeeded")
	}
	var rpcErr *jsonrpc.Error
	if err := call("kv.put", map[string]string{"key": ""}, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("empty key: %v", err)
	}
	// The index holds each block, in order, with its ID = sha256 of bytes.
	blocks := h.Containers(example.Kind)
	if len(blocks) != 3 {
		t.Fatalf("indexed %d blocks, want 3", len(blocks))
	}
	for i, b := range blocks {
		if b.ID != sha256.Sum256(b.Bytes) || b.Index != uint64(i) {
			t.Fatalf("block %d: index %d, id %s", i, b.Index, b.ID)
		}
	}
	if n, err := h.AcceptedCount(ctx, example.Kind); err != nil || n != 3 {
		t.Fatalf("AcceptedCount = %d, %v", n, err)
	}
	c, err := h.GetAccepted(ctx, example.Kind, 1)
	if err != nil || c.ID != blocks[1].ID {
		t.Fatalf("GetAccepted(1) = %s, %v", c.ID, err)
	}
}
