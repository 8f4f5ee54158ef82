// Package httpmsg holds what both ends of the gRPC carrier build and read:
// headers as the Plugin service's messages carry them, and the frames and
// close rules of a WebSocket relayed on a ServeWebSocket stream. The
// plugin's server (transport/httpgrpc) and the host's proxy
// (transport/host/proxy) share it.
package httpmsg

import (
	"errors"
	"net/http"
	"net/textproto"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"golang.org/x/net/http/httpguts"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// HeadersToProto converts h for the wire, leaving out hop-by-hop headers
// and those drop reports (drop may be nil).
func HeadersToProto(h http.Header, drop func(key string) bool) []*pluginv1.Header {
	conn := httpwire.ConnectionTokens(h)
	out := make([]*pluginv1.Header, 0, len(h))
	for k, vs := range h {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if httpwire.IsHopHeader(ck) || conn[ck] || (drop != nil && drop(ck)) {
			continue
		}
		out = append(out, &pluginv1.Header{Key: k, Values: vs})
	}
	return out
}

// HeadersFromProto adds the wire headers to into, leaving out hop-by-hop
// headers, those drop reports (drop may be nil) and invalid names or
// values.
func HeadersFromProto(hs []*pluginv1.Header, into http.Header, drop func(key string) bool) {
	for _, hd := range hs {
		if !httpguts.ValidHeaderFieldName(hd.GetKey()) {
			continue
		}
		k := textproto.CanonicalMIMEHeaderKey(hd.GetKey())
		if httpwire.IsHopHeader(k) || (drop != nil && drop(k)) {
			continue
		}
		for _, v := range hd.GetValues() {
			if httpguts.ValidHeaderFieldValue(v) {
				into[k] = append(into[k], v)
			}
		}
	}
}

// DropContentLength leaves Content-Length out: the receiving side sets it
// from the body it gets, which may have come chunked.
func DropContentLength(key string) bool { return key == "Content-Length" }

// DropWebSocketHeader leaves out the headers of one WebSocket handshake,
// which the other side's handshake sets itself. Sec-WebSocket-Protocol is
// not one of them: it is negotiated end to end.
func DropWebSocketHeader(key string) bool {
	switch key {
	case "Sec-Websocket-Key", "Sec-Websocket-Version", "Sec-Websocket-Extensions", "Sec-Websocket-Accept":
		return true
	}
	return false
}

// Timing of the WebSocket relay, at both ends.
const (
	// CloseTimeout bounds the wait for the other side's part of a close.
	CloseTimeout = 5 * time.Second
	// WriteWait bounds one write to a WebSocket connection.
	WriteWait = 10 * time.Second
	// maxCloseText is the longest close reason a close frame can carry.
	maxCloseText = 123
)

// MessageFrame returns the frame of a data message.
func MessageFrame(typ int, data []byte) *pluginv1.WebSocketFrame {
	return &pluginv1.WebSocketFrame{Frame: &pluginv1.WebSocketFrame_Message{
		Message: &pluginv1.WebSocketMessage{Type: int32(typ), Data: data},
	}}
}

// CloseFrame returns the frame of a close.
func CloseFrame(code int, text string) *pluginv1.WebSocketFrame {
	return &pluginv1.WebSocketFrame{Frame: &pluginv1.WebSocketFrame_Close{
		Close: &pluginv1.WebSocketClose{Code: int32(code), Text: text},
	}}
}

// IsDataMessage reports whether typ is a text or binary message.
func IsDataMessage(typ int) bool {
	return typ == websocket.TextMessage || typ == websocket.BinaryMessage
}

// CloseOf returns the close code and reason that ended a read: the peer's
// close frame, 1009 for a message over the read limit, 1006 when the peer
// vanished without a close frame.
func CloseOf(err error) (int, string) {
	var ce *websocket.CloseError
	switch {
	case errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure:
		return ce.Code, ce.Text
	case errors.Is(err, websocket.ErrReadLimit):
		return websocket.CloseMessageTooBig, "message too big"
	default:
		return websocket.CloseAbnormalClosure, ""
	}
}

// sendableCloseCode reports whether code may appear in a close frame
// (RFC 6455 section 7.4).
func sendableCloseCode(code int) bool {
	return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999)
}

// WriteClose sends a close frame. 1005 (no status) becomes an empty close
// frame, other codes that may not be sent become 1001 (going away), and the
// reason is cut to fit a control frame.
func WriteClose(conn *websocket.Conn, code int, text string) error {
	if code != websocket.CloseNoStatusReceived && !sendableCloseCode(code) {
		code = websocket.CloseGoingAway
	}
	text = strings.ToValidUTF8(text, "")
	if len(text) > maxCloseText {
		text = text[:maxCloseText]
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
	}
	msg := websocket.FormatCloseMessage(code, text)
	return conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(WriteWait))
}

// WaitFor waits until done is closed or d has passed.
func WaitFor(done <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
