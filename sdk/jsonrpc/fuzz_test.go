package jsonrpc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzServe: whatever the body, the server answers without panicking,
// within its own rules: status 200 with a JSON-RPC response (an object, or
// an array for a batch) or nothing (notifications only), or a 4xx of the
// HTTP framing; never a 5xx.
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"index":"3","name":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"test.none"},{"jsonrpc":"2.0","method":"test.count"}]`,
		`{"jsonrpc":"2.0","id":"a","method":"test.range","params":[{"numToFetch":2000}]}`,
		`{"jsonrpc":"2.0","method":"test.count"}`,
		`[]`, `{`, `null`, `"x"`, `{"jsonrpc":"1.0","id":1,"method":"test.none"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"test.none"}`,
		`{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"index":-1,"id":"nothex"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		ts := newTestServer(t, Options{MaxBatchSize: 10})
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		ts.ServeHTTP(rec, req)
		switch {
		case rec.Code >= 500:
			t.Fatalf("%q: status %d %s", body, rec.Code, rec.Body)
		case rec.Code != http.StatusOK:
			return
		case rec.Body.Len() == 0:
			return // notifications only
		}
		var v any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("%q: answer is not JSON: %s", body, rec.Body)
		}
		switch v.(type) {
		case map[string]any, []any:
		default:
			t.Fatalf("%q: answer is neither an object nor a batch: %s", body, rec.Body)
		}
	})
}
