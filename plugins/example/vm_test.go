package example_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/host/hosttest"
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

// cutIndex commits every accept with its state, like the host, but
// answers the first with an error, as a call cut after the host committed.
type cutIndex struct {
	host.Index
	db       *hosttest.Database
	accepted []ids.ID
}

func (x *cutIndex) Accept(ctx context.Context, _ string, id ids.ID, _ []byte, state []host.Op) (host.Accepted, error) {
	if err := x.db.Write(ctx, state, false); err != nil {
		return host.Accepted{}, err
	}
	x.accepted = append(x.accepted, id)
	if len(x.accepted) == 1 {
		return host.Accepted{}, errors.New("connection lost")
	}
	return host.Accepted{Index: uint64(len(x.accepted) - 1)}, nil
}

// TestPutAfterACutAccept: when an accept fails without saying whether the
// host committed it, the next put reads the height back and builds on the
// block that was committed, never a second block at its height.
func TestPutAfterACutAccept(t *testing.T) {
	db := hosttest.NewDatabase()
	ix := &cutIndex{db: db}
	vm := example.New()
	ctx := context.Background()
	if err := vm.Initialize(ctx, &sdk.Env{Logger: hclog.NewNullLogger(), Host: host.Services{DB: db, Index: ix}}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(vm.Handlers()["rpc"])
	defer srv.Close()
	put := func(key string) (jsonrpc.Uint64, error) {
		var r struct {
			Height jsonrpc.Uint64 `json:"height"`
		}
		err := jsonrpc.Call(ctx, srv.Client(), srv.URL, "kv.put", map[string]string{"key": key, "value": "v"}, &r)
		return r.Height, err
	}
	if _, err := put("a"); err == nil {
		t.Fatal("the cut accept was answered as a success")
	}
	if h, err := put("b"); err != nil || h != 1 {
		t.Fatalf("put after the cut accept: height %d, %v; want 1, on the committed block", h, err)
	}
	var blk struct {
		Height jsonrpc.Uint64 `json:"height"`
		Parent ids.ID         `json:"parent"`
	}
	if err := jsonrpc.Call(ctx, srv.Client(), srv.URL, "kv.getBlock", map[string]any{"height": 1}, &blk); err != nil {
		t.Fatal(err)
	}
	if blk.Parent != ix.accepted[0] {
		t.Fatalf("block 1's parent %s, want the committed block 0 %s", blk.Parent, ix.accepted[0])
	}
}
