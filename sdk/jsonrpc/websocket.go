package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/gorilla/websocket"
)

// notifierKey is the context key of a WebSocket connection's Notifier.
type notifierKey struct{}

// Notifier pushes notifications to the WebSocket connection that carried a
// call, so a method can start a subscription.
type Notifier struct {
	mu     sync.Mutex
	conn   *websocket.Conn
	closed chan struct{}
}

// ErrNotifierClosed is returned by Notify after the connection ended.
var ErrNotifierClosed = errors.New("jsonrpc: connection closed")

// NotifierFromContext returns the connection's Notifier; ok is false when
// the call did not come over a WebSocket.
func NotifierFromContext(ctx context.Context) (n *Notifier, ok bool) {
	n, ok = ctx.Value(notifierKey{}).(*Notifier)
	return n, ok
}

// Notify sends a JSON-RPC notification (a request without id).
func (n *Notifier) Notify(method string, params any) error {
	msg, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
	if err != nil {
		return err
	}
	return n.write(msg)
}

// Closed is closed when the connection ends; subscriptions stop on it.
func (n *Notifier) Closed() <-chan struct{} { return n.closed }

func (n *Notifier) write(msg []byte) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case <-n.closed:
		return ErrNotifierClosed
	default:
	}
	return n.conn.WriteMessage(websocket.TextMessage, msg)
}

// WebSocketHandler serves the server's methods over WebSocket: each text
// message is a request or batch, answered on the same connection, in order.
func (s *Server) WebSocketHandler() http.Handler {
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return // the upgrader has answered the client
		}
		defer conn.Close()
		n := &Notifier{conn: conn, closed: make(chan struct{})}
		defer func() {
			n.mu.Lock()
			close(n.closed)
			n.mu.Unlock()
		}()
		conn.SetReadLimit(s.opts.MaxBodyBytes)
		ctx := context.WithValue(withRequest(r.Context(), r), notifierKey{}, n)
		for {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if out := s.handleBody(ctx, msg); out != nil {
				if err := n.write(out); err != nil {
					return
				}
			}
		}
	})
}
