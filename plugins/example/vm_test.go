package example_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk/ids"
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

// TestPutAfterACutAccept: when an accept fails without saying whether the
// host committed it (the call was cut), the next put builds on the block
// that was committed, never a second block at its height: whether the VM
// runs on or dies there and restarts.
func TestPutAfterACutAccept(t *testing.T) {
	for _, crash := range []bool{false, true} {
		t.Run(fmt.Sprintf("crash=%v", crash), func(t *testing.T) {
			h := plugintest.Start(t, example.New(), plugintest.Options{Name: "kv"})
			ctx := t.Context()
			put := func(key string) (jsonrpc.Uint64, error) {
				var r struct {
					Height jsonrpc.Uint64 `json:"height"`
				}
				err := jsonrpc.Call(ctx, http.DefaultClient, h.URL("rpc"), "kv.put", map[string]string{"key": key, "value": "v"}, &r)
				return r.Height, err
			}
			h.CutNextAccept()
			if _, err := put("a"); err == nil {
				t.Fatal("the cut accept was answered as a success")
			}
			if crash {
				h.Crash(t)
				h.Restart(t, example.New())
			}
			if height, err := put("b"); err != nil || height != 1 {
				t.Fatalf("put after the cut accept: height %d, %v; want 1, on the committed block", height, err)
			}
			var blk struct {
				Height jsonrpc.Uint64 `json:"height"`
				Parent ids.ID         `json:"parent"`
			}
			if err := jsonrpc.Call(ctx, http.DefaultClient, h.URL("rpc"), "kv.getBlock", map[string]any{"height": 1}, &blk); err != nil {
				t.Fatal(err)
			}
			if committed := h.Containers(example.Kind)[0].ID; blk.Parent != committed {
				t.Fatalf("block 1's parent %s, want the committed block 0 %s", blk.Parent, committed)
			}
			var got map[string]string
			if err := jsonrpc.Call(ctx, http.DefaultClient, h.URL("rpc"), "kv.get", map[string]string{"key": "a"}, &got); err != nil || got["value"] != "v" {
				t.Fatalf("kv.get of the cut put's key = %v, %v; want its committed value", got, err)
			}
		})
	}
}

// TestRestartKeepsTheChain: a VM restarted over the host's state serves
// what it accepted and builds on its last block.
func TestRestartKeepsTheChain(t *testing.T) {
	h := plugintest.Start(t, example.New(), plugintest.Options{Name: "kv"})
	ctx := t.Context()
	call := func(method string, params, result any) error {
		return jsonrpc.Call(ctx, http.DefaultClient, h.URL("rpc"), method, params, result)
	}
	for _, k := range []string{"a", "b"} {
		if err := call("kv.put", map[string]string{"key": k, "value": k + "!"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	h.Restart(t, example.New())
	var got map[string]string
	if err := call("kv.get", map[string]string{"key": "b"}, &got); err != nil || got["value"] != "b!" {
		t.Fatalf("kv.get b after the restart = %v, %v", got, err)
	}
	var r struct {
		Height jsonrpc.Uint64 `json:"height"`
	}
	if err := call("kv.put", map[string]string{"key": "c", "value": "c!"}, &r); err != nil || r.Height != 2 {
		t.Fatalf("kv.put after the restart: height %d, %v; want 2", r.Height, err)
	}
}
