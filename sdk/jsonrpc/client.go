package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// maxShownBody is how much of a non-JSON-RPC HTTP answer an error repeats.
const maxShownBody = 200

// clientRequest is the request Call sends.
type clientRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// clientResponse is the response Call reads.
type clientResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// Call calls method at url, a node-style JSON-RPC endpoint, with params
// (nil sends {}) and decodes the result into result (nil discards it). A
// JSON-RPC error is returned as an *Error, also when it comes with an HTTP
// error status. client nil means http.DefaultClient.
func Call(ctx context.Context, client *http.Client, url, method string, params, result any) error {
	if client == nil {
		client = http.DefaultClient
	}
	if params == nil {
		params = struct{}{}
	}
	body, err := json.Marshal(clientRequest{JSONRPC: "2.0", ID: 1, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("call %s: encode params: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("call %s: read response: %w", method, err)
	}
	var out clientResponse
	decodeErr := json.Unmarshal(data, &out)
	switch {
	case decodeErr == nil && out.Error != nil:
		return out.Error
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("call %s: HTTP %d: %s", method, resp.StatusCode, clipBody(data))
	case decodeErr != nil:
		return fmt.Errorf("call %s: decode response: %w", method, decodeErr)
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(out.Result, result); err != nil {
		return fmt.Errorf("call %s: decode result: %w", method, err)
	}
	return nil
}

// clipBody shortens an unexpected response body for an error message.
func clipBody(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > maxShownBody {
		return string(b[:maxShownBody]) + "..."
	}
	return string(b)
}
