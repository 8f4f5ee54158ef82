package server

import (
	"net/http"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/rest"
)

// WriteJSONRPCError answers with a JSON-RPC error object (code -32000) and
// the given HTTP status, for routes that speak JSON-RPC.
func WriteJSONRPCError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	jsonrpc.WriteHTTPError(w, status, jsonrpc.ServerError("%s", err.Error()))
}

// WriteRESTError answers with the REST error body {message, statusCode,
// error} and the given status, for the routes of REST modules and paths
// outside /ext/ (docs/rest.md).
func WriteRESTError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	rest.WriteError(w, rest.Errorf(status, "%s", err.Error()))
}
