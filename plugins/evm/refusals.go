package evm

import (
	"net/http"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// jsonRefusals wraps go-ethereum's JSON-RPC HTTP handler so that its 405
// (a PUT or DELETE) and 415 (a Content-Type it does not take) carry a
// JSON-RPC error object, as every other JSON-RPC route of the node does
// (docs/bad-input.md), instead of go-ethereum's plain text. go-ethereum
// still decides which requests it refuses; only the body changes.
type jsonRefusals struct{ next http.Handler }

// ServeHTTP serves the request, rewriting a refusal's body.
func (j jsonRefusals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	j.next.ServeHTTP(&refusalWriter{ResponseWriter: w, r: r}, r)
}

// refusalWriter replaces the plain-text answer of a 405 or 415 written
// through it with the JSON-RPC one; any other answer passes untouched.
type refusalWriter struct {
	http.ResponseWriter
	r       *http.Request
	started bool // a status was written
	refused bool // it was a refusal, answered here; the handler's body is dropped
}

// WriteHeader answers a refusal itself and passes any other status on.
func (w *refusalWriter) WriteHeader(code int) {
	if w.started {
		return
	}
	w.started = true
	switch code {
	case http.StatusMethodNotAllowed:
		w.refused = true
		jsonrpc.RefuseMethod(w.ResponseWriter, w.r.Method)
	case http.StatusUnsupportedMediaType:
		w.refused = true
		jsonrpc.RefuseContentType(w.ResponseWriter, w.r.Header.Get("Content-Type"))
	default:
		w.ResponseWriter.WriteHeader(code)
	}
}

// Write drops the body of a refusal answered here.
func (w *refusalWriter) Write(b []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if w.refused {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
