package jsonrpc

import (
	"context"
	"net/http"
)

// requestKey is the context key of the HTTP request being served.
type requestKey struct{}

// withRequest returns ctx carrying r.
func withRequest(ctx context.Context, r *http.Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// RequestFromContext returns the HTTP request that carried the call being
// served, or nil outside a call.
func RequestFromContext(ctx context.Context) *http.Request {
	r, _ := ctx.Value(requestKey{}).(*http.Request)
	return r
}
