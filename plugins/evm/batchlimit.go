package evm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// batchLimit wraps the JSON-RPC HTTP handler so that a batch with more
// items than the chain's api-max-batch-size is refused with an error that
// says the limit, before any item runs. The answer has go-ethereum's shape
// for an oversized batch: a one-element array holding an invalid-request
// error (-32600) with the id of the batch's first call. Single requests
// pass through untouched.
type batchLimit struct {
	next     http.Handler
	max      int
	maxBytes int64
}

// ServeHTTP checks a batch's length and hands the request on.
func (b batchLimit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil {
		b.next.ServeHTTP(w, r)
		return
	}
	// Only the first byte that is not a space is looked at: a small buffer,
	// which the handler's larger reads then bypass.
	br := bufio.NewReaderSize(r.Body, 64)
	if !startsBatch(br) {
		r.Body = readCloser{br, r.Body}
		b.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(br, b.maxBytes+1))
	if err != nil {
		http.Error(w, fmt.Sprintf("read request body: %v", err), http.StatusBadRequest)
		return
	}
	var items []struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if int64(len(body)) <= b.maxBytes && json.Unmarshal(body, &items) == nil && len(items) > b.max {
		var id json.RawMessage
		for _, it := range items {
			if it.Method != "" && len(it.ID) > 0 && string(it.ID) != "null" {
				id = it.ID
				break
			}
		}
		writeBatchTooLarge(w, id, len(items), b.max)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	b.next.ServeHTTP(w, r)
}

// startsBatch reports whether the first non-space byte of the body is '['.
func startsBatch(br *bufio.Reader) bool {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return false
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		_ = br.UnreadByte()
		return c == '['
	}
}

func writeBatchTooLarge(w http.ResponseWriter, id json.RawMessage, n, max int) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := []map[string]any{{
		"jsonrpc": "2.0",
		"id":      id,
		"error": map[string]any{
			"code":    -32600,
			"message": fmt.Sprintf("batch too large: %d requests, the limit is %d (api-max-batch-size)", n, max),
		},
	}}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(resp)
}

// readCloser reads from a buffered reader and closes the original body.
type readCloser struct {
	io.Reader
	io.Closer
}
