package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCall(t *testing.T) {
	ts := newTestServer(t, Options{MaxBodyBytes: 1024})
	hs := httptest.NewServer(ts)
	defer hs.Close()
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "upstream down", http.StatusBadGateway)
	}))
	defer gateway.Close()
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("hello"))
	}))
	defer notJSON.Close()

	tests := []struct {
		name     string
		url      string
		method   string
		params   any
		result   any
		want     string // the result, re-encoded as text
		wantCode int    // a JSON-RPC error code
		wantErr  string // a plain error containing this
	}{
		{name: "typed params and result", url: hs.URL, method: "test.echo",
			params: echoParams{Index: 5, Name: "x"}, result: new(echoParams), want: "&{5 0 x 11111111111111111111111111111111LpoYY}"},
		{name: "nil params", url: hs.URL, method: "test.none", result: new(map[string]bool), want: "&map[ok:true]"},
		{name: "nil result", url: hs.URL, method: "test.none"},
		{name: "method not found", url: hs.URL, method: "test.nope", wantCode: CodeMethodNotFound},
		{name: "invalid params", url: hs.URL, method: "test.echo", params: map[string]int{"indx": 1}, wantCode: CodeInvalidParams},
		{name: "error with HTTP 413", url: hs.URL, method: "test.echo",
			params: map[string]string{"name": strings.Repeat("x", 2048)}, wantCode: CodeInvalidRequest},
		{name: "HTTP error without JSON-RPC body", url: gateway.URL, method: "test.none", wantErr: "call test.none: HTTP 502: upstream down"},
		{name: "body not JSON", url: notJSON.URL, method: "test.none", wantErr: "call test.none: decode response"},
		{name: "result of the wrong type", url: hs.URL, method: "test.none", result: new(int), wantErr: "call test.none: decode result"},
		{name: "params not encodable", url: hs.URL, method: "test.none", params: make(chan int), wantErr: "call test.none: encode params"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Call(t.Context(), hs.Client(), tc.url, tc.method, tc.params, tc.result)
			switch {
			case tc.wantCode != 0:
				var rpcErr *Error
				if !errors.As(err, &rpcErr) || rpcErr.Code != tc.wantCode {
					t.Fatalf("error = %v, want JSON-RPC code %d", err, tc.wantCode)
				}
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want containing %q", err, tc.wantErr)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if tc.result != nil {
					if got := fmt.Sprint(tc.result); got != tc.want {
						t.Fatalf("result = %s, want %s", got, tc.want)
					}
				}
			}
		})
	}
}

func TestCallCanceled(t *testing.T) {
	hs := httptest.NewServer(newTestServer(t, Options{}))
	defer hs.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := Call(ctx, nil, hs.URL, "test.none", nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}
