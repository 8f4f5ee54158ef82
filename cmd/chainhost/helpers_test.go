package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The helpers that several of the end-to-end tests use; a helper that one
// file uses stays in that file.

// postJSON POSTs body as application/json to url and returns the answer's
// status and body, trimmed: the raw-body way to talk to the node, for
// tests that check the bytes or the status. Typed JSON-RPC calls go
// through nodetest.Node.Call.
func postJSON(t testing.TB, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: read the answer: %v", url, err)
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// rpcRequest is the body of a JSON-RPC 2.0 call with id 1 and params, JSON.
func rpcRequest(method, params string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
}
