// Package jsonrpc serves JSON-RPC 2.0 over HTTP with the framing rules of the
// node APIs (admin, index, info, chain-native; DESIGN.md "Wire formats"), and
// holds a small client for the same endpoints.
//
// Framing decisions, where JSON-RPC 2.0 and SPEC leave a choice:
//
//   - Only POST is served; any other HTTP method gets 405 with "Allow: POST".
//     The Content-Type must be application/json; parameters are allowed, but
//     a charset other than utf-8 is refused. Otherwise 415.
//   - A body over Options.MaxBodyBytes gets HTTP 413, and a body that cannot
//     be read HTTP 400. These HTTP-level refusals carry a JSON-RPC error
//     response (code -32600, id null) as their body, so every client can read
//     the reason the same way.
//   - Every other failure is HTTP 200 with an error object {code, message,
//     data?}: -32700 parse error, -32600 invalid request, -32601 method not
//     found, -32602 invalid params, -32000 any other error of a method.
//     Messages start with the name of the error ("invalid params: ...").
//   - id may be a number, a string or null and is echoed byte for byte; when
//     it cannot be read the answer carries id null. A request without an id
//     member is a notification: it runs but is not answered. A request too
//     malformed to be trusted as a notification (bad jsonrpc, method or id)
//     is answered with -32600 even when it has no id.
//   - params may be an object, an array holding one object, an empty array,
//     absent or null; methods always see an object ({} for the last three).
//     A non-structured params (number, string, boolean) is -32600; an array
//     of another shape is -32602.
//   - A batch holds 1 to Options.MaxBatchSize items, answered in order in
//     one array that leaves out notifications. An empty or oversized batch
//     gets a single -32600 response (not an array).
//   - When nothing is to be answered (a notification, or a batch of only
//     notifications), the response is HTTP 200 with an empty body, as
//     avalanchego and go-ethereum do.
//   - A panic in a method is recovered and answered with -32000 "internal
//     error"; the stack goes to Options.OnPanic, never to the client.
package jsonrpc
