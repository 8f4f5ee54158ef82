package server

import (
	"encoding/json"
	"net/http"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/rest"
)

// WriteJSONRPCError answers with a JSON-RPC error object (code -32000) and
// the given HTTP status, for routes that speak JSON-RPC.
func WriteJSONRPCError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string         `json:"jsonrpc"`
		Error   *jsonrpc.Error `json:"error"`
		ID      any            `json:"id"`
	}{"2.0", jsonrpc.ServerError("%s", err.Error()), nil})
}

// WriteRESTError answers with the REST error body {message, statusCode,
// error} and the given status, for the routes of REST modules and paths
// outside /ext/ (docs/rest.md).
func WriteRESTError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	rest.WriteError(w, rest.Errorf(status, "%s", err.Error()))
}
