package httpunix

import (
	"bufio"
	"net/http"

	"github.com/chainhost/chainhost/transport/httpwire"
)

// The headers the host adds to a forwarded request.
const (
	// HeaderHandler names the plugin handler of the request.
	HeaderHandler = "Chainhost-Handler"
	// HeaderRemoteAddr is the client's address, for r.RemoteAddr.
	HeaderRemoteAddr = "Chainhost-Remote-Addr"
	// HeaderRequestURI is the request target the client sent, for
	// r.RequestURI.
	HeaderRequestURI = "Chainhost-Request-Uri"
)

// WriteField writes one header line, as both ends frame their messages by
// hand; the value is checked by the caller or written by the framing
// itself.
func WriteField(bw *bufio.Writer, k, v string) {
	_, _ = bw.WriteString(k)
	_, _ = bw.WriteString(": ")
	_, _ = bw.WriteString(v)
	_, _ = bw.WriteString("\r\n")
}

// Bodyless reports whether an answer to a request of method has no body
// whatever its headers say.
func Bodyless(method string, status int) bool {
	return method == http.MethodHead || !httpwire.BodyAllowed(status)
}
