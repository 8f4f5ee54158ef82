package evm

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBatchLimit(t *testing.T) {
	var seen string
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = string(b)
		w.WriteHeader(http.StatusTeapot)
	})
	h := batchLimit{next: next, max: 2, maxBytes: 1 << 20}
	tests := []struct {
		name    string
		body    string
		passed  bool
		firstID string
	}{
		{name: "single", body: `{"jsonrpc":"2.0","id":1,"method":"a"}`, passed: true},
		{name: "batch at limit", body: ` [{"id":1,"method":"a"},{"id":2,"method":"a"}]`, passed: true},
		{name: "batch over limit", body: "\n[{\"method\":\"n\"},{\"id\":7,\"method\":\"a\"},{\"id\":8,\"method\":\"a\"}]", firstID: "7"},
		{name: "invalid batch passes on", body: `[1,2,3`, passed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = ""
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body)))
			if tt.passed {
				if rec.Code != http.StatusTeapot || seen != strings.TrimLeft(tt.body, " \n") {
					t.Fatalf("not passed on intact: %d %q", rec.Code, seen)
				}
				return
			}
			var resp []struct {
				ID    json.RawMessage `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || len(resp) != 1 {
				t.Fatalf("response %s: %v", rec.Body, err)
			}
			if seen != "" || resp[0].Error.Code != -32600 || string(resp[0].ID) != tt.firstID || !strings.Contains(resp[0].Error.Message, "limit is 2") {
				t.Fatalf("response %s, handler saw %q", rec.Body, seen)
			}
		})
	}
}
