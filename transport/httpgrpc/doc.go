// Package httpgrpc is the plugin's side of the gRPC carrier of HTTP
// requests and WebSocket connections, the Plugin service's
// ServeHTTPChannel, ServeHTTP and ServeWebSocket RPCs (docs/decisions.md,
// "Packages"): Server serves them by calling ordinary http.Handlers,
// including ones that upgrade to WebSocket. The host's side is
// transport/host/proxy; what both ends build and read is
// transport/internal/httpmsg.
//
// Wire decisions:
//
//   - Requests travel on one long-lived ServeHTTPChannel stream per host
//     handler and plugin process, numbered by the host, so that a request
//     costs two messages rather than a call set up and torn down. The
//     messages of each request are those ServeHTTP would send. A response
//     body is flow-controlled per request (pluginv1.HTTPChannelWindow of
//     credit, granted back as the host writes to its client), so a client
//     that stops reading stalls only its own response; a plugin that
//     overruns the window has that response aborted. A client that goes
//     away cancels its request in the plugin. Bodies over 1 MiB, and every
//     request to a plugin whose SDK predates the channel (it answers
//     Unimplemented), use a ServeHTTP call of their own.
//   - The request body is read whole, under the host's cap, and sent in the
//     one HTTPRequest message; the gRPC message limits of both sides must
//     exceed that cap. A body over it is refused with 413, with an error
//     wrapping httpwire.ErrBodyTooLarge.
//   - HTTPRequest.path is the escaped path below the handler ("" or "/...");
//     the plugin's handler sees "/" for an empty path, as a real server
//     would. RequestURI is the one the client sent.
//   - The plugin buffers the response body up to ServerOptions.ChunkSize. The
//     first HTTPResponse carries status and headers and is sent at the
//     handler's first Flush, when the buffer fills or when the handler
//     returns; every later message carries only body. The host writes and
//     flushes each message as it arrives, so streamed answers stream.
//   - Hop-by-hop headers (RFC 9110 section 7.6.1, and those named in
//     Connection) are not forwarded, in either direction.
//   - A failure before the first response message is answered by the
//     host's error writer: 503 and httpwire.ErrPluginUnavailable when the
//     plugin cannot be reached or the call fails, 502 and
//     httpwire.ErrBadResponse when the answer is malformed. A failure after
//     the response started aborts it: the connection is closed
//     (panic(http.ErrAbortHandler)) when net/http serves the request, and
//     the error writer is told httpwire.ErrResponseAborted otherwise (an
//     in-process caller with its own ResponseWriter).
//   - A handler panic is recovered and logged; the client gets 500 when
//     nothing was sent yet, an aborted response otherwise. An unknown
//     handler name is answered 404.
//
// WebSocket: the host terminates the client's WebSocket and carries its
// messages on one ServeWebSocket stream. The host sends open (the upgrade
// request without its Sec-WebSocket-Key, -Version and -Extensions), the
// plugin runs its handler on an in-memory connection and answers opened: a
// refusal is passed to the client as a plain HTTP answer (its body truncated
// to 1 KiB), an acceptance makes the host upgrade the client. Then text and
// binary messages and close frames are relayed both ways; pings and pongs
// stay local to each side, and the host pings the client every
// proxy.Options.PingInterval. A message is capped by the body cap (close
// 1009). When either side ends, the other is closed with a close frame: the
// peer's code when it sent one, 1001 (going away) when it vanished, 1011
// when the plugin failed.
package httpgrpc
