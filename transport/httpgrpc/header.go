package httpgrpc

import (
	"net/http"
	"net/textproto"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// IsHopHeader reports whether a canonical header key is hop-by-hop (RFC 9110
// section 7.6.1, plus the obsolete ones proxies still drop).
func IsHopHeader(key string) bool {
	switch key {
	case "Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
		"Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// isWebSocketHandshakeHeader reports whether a canonical header key belongs
// to one WebSocket handshake and must not reach the other side's, which sets
// its own. Sec-WebSocket-Protocol is not one of them: it is negotiated end to
// end.
func isWebSocketHandshakeHeader(key string) bool {
	switch key {
	case "Sec-Websocket-Key", "Sec-Websocket-Version", "Sec-Websocket-Extensions", "Sec-Websocket-Accept":
		return true
	}
	return false
}

// ConnectionTokens returns the canonical header names listed in h's
// Connection header, which are hop-by-hop too.
func ConnectionTokens(h http.Header) map[string]bool {
	var names map[string]bool
	for _, v := range h["Connection"] {
		for tok := range strings.SplitSeq(v, ",") {
			tok = strings.TrimSpace(tok)
			if tok == "" {
				continue
			}
			if names == nil {
				names = make(map[string]bool)
			}
			names[textproto.CanonicalMIMEHeaderKey(tok)] = true
		}
	}
	return names
}

// headersToProto converts h for the wire, leaving out hop-by-hop headers and
// those drop reports (drop may be nil).
func headersToProto(h http.Header, drop func(key string) bool) []*pluginv1.Header {
	conn := ConnectionTokens(h)
	out := make([]*pluginv1.Header, 0, len(h))
	for k, vs := range h {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if IsHopHeader(ck) || conn[ck] || (drop != nil && drop(ck)) {
			continue
		}
		out = append(out, &pluginv1.Header{Key: k, Values: vs})
	}
	return out
}

// headersFromProto adds the wire headers to into, leaving out hop-by-hop
// headers, those drop reports (drop may be nil) and invalid names or values.
func headersFromProto(hs []*pluginv1.Header, into http.Header, drop func(key string) bool) {
	for _, hd := range hs {
		if !httpguts.ValidHeaderFieldName(hd.GetKey()) {
			continue
		}
		k := textproto.CanonicalMIMEHeaderKey(hd.GetKey())
		if IsHopHeader(k) || (drop != nil && drop(k)) {
			continue
		}
		for _, v := range hd.GetValues() {
			if httpguts.ValidHeaderFieldValue(v) {
				into[k] = append(into[k], v)
			}
		}
	}
}

// setHeaders replaces, in dst, every header that src holds.
func setHeaders(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = vs
	}
}
