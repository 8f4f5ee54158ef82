package httpgrpc

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// Timing of the WebSocket relay.
const (
	// DefaultPingInterval is how often the host pings a WebSocket client.
	DefaultPingInterval = 30 * time.Second
	// closeTimeout bounds the wait for the other side's part of a close.
	closeTimeout = 5 * time.Second
	// writeWait bounds one write to a WebSocket connection.
	writeWait = 10 * time.Second
	// handshakeTimeout bounds the plugin handler's answer to the upgrade.
	handshakeTimeout = 30 * time.Second
	// maxCloseText is the longest close reason a close frame can carry.
	maxCloseText = 123
)

// isWebSocketRequest reports whether r asks for a WebSocket upgrade.
func isWebSocketRequest(r *http.Request) bool { return websocket.IsWebSocketUpgrade(r) }

// dropWebSocketHeader leaves out the headers of one handshake, which the
// other side's handshake sets itself.
func dropWebSocketHeader(key string) bool { return isWebSocketHandshakeHeader(key) }

// messageFrame returns the frame of a data message.
func messageFrame(typ int, data []byte) *pluginv1.WebSocketFrame {
	return &pluginv1.WebSocketFrame{Frame: &pluginv1.WebSocketFrame_Message{
		Message: &pluginv1.WebSocketMessage{Type: int32(typ), Data: data},
	}}
}

// closeFrame returns the frame of a close.
func closeFrame(code int, text string) *pluginv1.WebSocketFrame {
	return &pluginv1.WebSocketFrame{Frame: &pluginv1.WebSocketFrame_Close{
		Close: &pluginv1.WebSocketClose{Code: int32(code), Text: text},
	}}
}

// isDataMessage reports whether typ is a text or binary message.
func isDataMessage(typ int) bool {
	return typ == websocket.TextMessage || typ == websocket.BinaryMessage
}

// closeOf returns the close code and reason that ended a read: the peer's
// close frame, 1009 for a message over the read limit, 1006 when the peer
// vanished without a close frame.
func closeOf(err error) (int, string) {
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

// writeClose sends a close frame. 1005 (no status) becomes an empty close
// frame, other codes that may not be sent become 1001 (going away), and the
// reason is cut to fit a control frame.
func writeClose(conn *websocket.Conn, code int, text string) error {
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
	return conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(writeWait))
}
