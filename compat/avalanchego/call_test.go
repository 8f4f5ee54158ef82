package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// call makes a JSON-RPC call.
func call(ctx context.Context, url, method string, params, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if out.Error != nil {
		return fmt.Errorf("%s: %s", method, out.Error.Message)
	}
	return json.Unmarshal(out.Result, result)
}
