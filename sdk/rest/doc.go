// Package rest is the toolkit of the REST API modules (the chain data API
// and the metrics API): the JSON error body every REST answer uses,
// validation of query and path parameters that names the parameter at
// fault, opaque tamper-evident page tokens, and API keys with per-key and
// per-client-IP rate limits. docs/rest.md is the module author's reference;
// it fixes the wire formats this package writes.
//
// Handlers return errors and answer them with WriteError (or
// WriteErrorMessages on routes whose `message` is an array): an *Error is
// answered with its status and message, anything else with 500 "internal
// error", so causes stay on the server.
package rest
