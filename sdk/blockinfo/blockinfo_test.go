package blockinfo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chainhost/chainhost/sdk/blockinfo"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// caller serves chain calls with an internal handler.
type caller struct{ h http.Handler }

func (c caller) Call(ctx context.Context, _, _ string, body []byte) (int, []byte, error) {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}

// TestGetAnswer: a VM that has accepted 5 blocks answers the positions
// asked for, up to its last; a VM without the method is ErrNotServed.
func TestGetAnswer(t *testing.T) {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	s.Register(blockinfo.Method, jsonrpc.Method(func(ctx context.Context, a blockinfo.Args) ([]blockinfo.Block, error) {
		return blockinfo.Answer(ctx, a, 5, func(_ context.Context, p uint64) (blockinfo.Block, error) {
			return blockinfo.Block{ID: ids.ID{byte(p)}, Height: p + 1, Time: int64(100 + p), Txs: int(p)}, nil
		})
	}))
	for _, tc := range []struct {
		from  uint64
		count int
		want  string
	}{{0, 2, "[0 1]"}, {3, 10, "[3 4]"}, {5, 1, "[]"}} {
		got, err := blockinfo.Get(t.Context(), caller{s}, "X", tc.from, tc.count)
		var positions []uint64
		for _, b := range got {
			if b.ID != (ids.ID{byte(b.Position)}) || b.Height != b.Position+1 || b.Time != int64(100+b.Position) || b.Txs != int(b.Position) {
				t.Errorf("block %+v", b)
			}
			positions = append(positions, b.Position)
		}
		if err != nil || fmt.Sprint(positions) != tc.want {
			t.Errorf("Get(%d, %d) = %v, %v; want %s", tc.from, tc.count, positions, err, tc.want)
		}
	}
	_, err := blockinfo.Get(t.Context(), caller{jsonrpc.NewServer(jsonrpc.Options{})}, "X", 0, 1)
	if !errors.Is(err, blockinfo.ErrNotServed) {
		t.Errorf("Get of a VM without the method = %v, want ErrNotServed", err)
	}
}
