package jsonrpc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkServeHTTP measures the framing around a trivial method.
func BenchmarkServeHTTP(b *testing.B) {
	s := NewServer(Options{})
	s.Register("bench.add", Method(func(_ context.Context, p struct {
		A Uint64 `json:"a"`
		B Uint64 `json:"b"`
	}) (Uint64, error) {
		return p.A + p.B, nil
	}))
	const body = `{"jsonrpc":"2.0","id":1,"method":"bench.add","params":{"a":1,"b":"2"}}`
	const want = `{"jsonrpc":"2.0","result":"3","id":1}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/ext/bench", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK || w.Body.String() != want {
			b.Fatalf("HTTP %d: %s", w.Code, w.Body.String())
		}
	}
}
