package server

import (
	"net/http"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/rest"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// WriteJSONRPCError answers with a JSON-RPC error object (code -32000) and
// the given HTTP status, for routes that speak JSON-RPC.
func WriteJSONRPCError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	jsonrpc.WriteHTTPError(w, status, jsonrpc.ServerError("%s", err.Error()))
}

// WriteRESTError answers with the REST error body {message, statusCode,
// error} and the given status, `message` a string, for paths outside
// /ext/ that no module serves (docs/rest.md).
func WriteRESTError(w http.ResponseWriter, r *http.Request, status int, err error) {
	writeREST(nil, w, r, status, err)
}

// RESTErrorWriter returns the writer of the errors the host answers for a
// module's routes: the REST error body, `message` an array of strings on
// the paths under one of the prefixes messageArrays returns (the module's
// described MessageArrayPrefixes, docs/modules.md), a string elsewhere.
// messageArrays is asked per error: a module's plugin may be installed
// after its routes are mounted.
func RESTErrorWriter(messageArrays func() []string) httpwire.ErrorWriter {
	return func(w http.ResponseWriter, r *http.Request, status int, err error) {
		writeREST(messageArrays(), w, r, status, err)
	}
}

// writeREST writes err's text with status in the style of r's path, by
// the toolkit's writers: one error body for the host and the modules.
func writeREST(messageArrays []string, w http.ResponseWriter, r *http.Request, status int, err error) {
	rest.ErrorWriterFor(messageArrays, r.URL.Path)(w, rest.Errorf(status, "%s", err.Error()))
}
