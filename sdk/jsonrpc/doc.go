// Package jsonrpc serves JSON-RPC 2.0 over HTTP and WebSocket with the
// framing rules of the node APIs (admin, index, info, chain-native), and
// holds a small client for the same endpoints.
//
// The rules (POST and application/json only, the HTTP-level refusals and
// their JSON-RPC bodies, ids and notifications, the shapes params may take,
// batches, the error codes, recovered panics) are written once, in
// docs/api/jsonrpc.md; TestFraming checks them over real HTTP.
package jsonrpc
