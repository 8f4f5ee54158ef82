package evmrpc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/sdk/host"
)

// caller answers chain calls with a fixed status and body.
type caller struct {
	status int
	body   string
	err    error
}

func (c caller) Call(context.Context, string, string, []byte) (int, []byte, error) {
	return c.status, []byte(c.body), c.err
}

func TestClient(t *testing.T) {
	ctx := context.Background()
	if id, err := New(caller{200, `{"jsonrpc":"2.0","id":1,"result":"0xa868"}`, nil}, "C").ChainID(ctx); err != nil || id != 43112 {
		t.Errorf("ChainID = %d, %v", id, err)
	}
	_, err := New(caller{200, `{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}}`, nil}, "C").BlockNumber(ctx)
	if !Reverted(err) {
		t.Errorf("a revert: %v", err)
	}
	_, err = New(caller{200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"missing trie node"}}`, nil}, "C").BlockNumber(ctx)
	var e *Error
	if Reverted(err) || !errors.As(err, &e) || e.Code != -32000 {
		t.Errorf("a node error: %v", err)
	}
	if _, err := New(caller{0, "", host.ErrNotFound}, "C").ChainID(ctx); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("an unknown chain: %v", err)
	}
	if _, err := New(caller{503, "down", nil}, "C").ChainID(ctx); err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("HTTP 503: %v", err)
	}
	calls := []Call{{To: common.Address{1}}, {To: common.Address{2}}}
	res, err := New(caller{200, `[{"id":1,"error":{"code":3,"message":"execution reverted"}},{"id":0,"result":"0x01"}]`, nil}, "C").CallMany(ctx, calls)
	if err != nil || len(res[0].Data) != 1 || !Reverted(res[1].Err) {
		t.Errorf("a batch answered out of order: %+v, %v", res, err)
	}
	if _, err := New(caller{200, `[{"id":0,"result":"0x01"}]`, nil}, "C").CallMany(ctx, calls); err == nil || !strings.Contains(err.Error(), "left call 1 unanswered") {
		t.Errorf("a batch answered in part: %v", err)
	}
	if _, err := New(caller{200, `{"id":0,"error":{"code":-32600,"message":"batch too large"}}`, nil}, "C").CallMany(ctx, calls); err == nil {
		t.Error("a batch refused whole")
	}
}
