// Package httpunix is the plugin's side of the data socket, which carries
// the shared listener's HTTP requests from the host to a plugin process
// outside gRPC (docs/decisions.md, "Packages"; the measurements are in
// docs/benchmarks.md, "The shared path"). Serve serves the plugin's
// handlers on the socket with a server of its own (Server): the request
// parsed by net/http's ReadRequest, the answer sent in one write with its
// length, and no read ahead while a light handler runs. The host's side,
// a pool of connections with a small HTTP/1.1 client, is
// transport/host/unixpool; the framing both write by hand is here.
//
// Wire decisions:
//
//   - One request at a time per connection (HTTP/1.1 keep-alive); the host
//     opens up to unixpool.MaxConns connections per process and keeps up to
//     unixpool.MaxIdle of them open between requests. The plugin's server has no timeouts:
//     the host bounds each request, and closes the connection of a request
//     it gives up on, which cancels the handler's context once the handler
//     has read its body and run for watchAfter.
//   - An answer of up to 64 KiB is sent with a Content-Length; a longer
//     one, or one a handler flushes, is chunked. A handler's Connection:
//     close closes the connection after its answer. A panic before the
//     answer began is a 500; after, the connection is cut.
//   - The request line carries the escaped path below the handler and the
//     query. HeaderHandler names the handler ("" is a handler name);
//     HeaderRemoteAddr and HeaderRequestURI carry what the client's request
//     had, which the plugin's handler sees as r.RemoteAddr and
//     r.RequestURI. A client's own Chainhost-* headers are never forwarded.
//   - The body is read whole by the host under its cap first (as on the
//     gRPC path) and sent with a Content-Length. Hop-by-hop headers and
//     Expect are not forwarded, in either direction.
//   - The host sends no WebSocket upgrades here: they stay on the gRPC
//     stream, where it terminates the WebSocket and enforces its message cap
//     and pings (transport/host/proxy). A handler may still take the
//     connection over, which sdk/plugintest's upgrades do.
//   - The socket is in a directory only the host's user can open; the host
//     binds it and passes it to the process as an inherited file, so it
//     stays open across restarts, as a chain's own listener does.
package httpunix
