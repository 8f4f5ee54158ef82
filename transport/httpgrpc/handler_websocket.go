package httpgrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// serveWebSocket opens a ServeWebSocket stream for the upgrade request r and,
// when the plugin's handler accepts, upgrades the client and relays.
func (h *handler) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if code, err := checkUpgrade(r); err != nil {
		h.fail(w, r, code, err)
		return
	}
	client, err := h.client()
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, err)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stream, err := client.ServeWebSocket(ctx)
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, h.callError(err))
		return
	}
	open := requestToProto(r, h.opts.Handler, nil, dropWebSocketHeader)
	if err := stream.Send(&pluginv1.WebSocketFrame{Frame: &pluginv1.WebSocketFrame_Open{Open: open}}); err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, h.callError(err))
		return
	}
	f, err := stream.Recv()
	if err != nil {
		if errors.Is(err, io.EOF) {
			h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: no websocket answer", ErrBadResponse, h.opts.Handler))
			return
		}
		h.fail(w, r, http.StatusServiceUnavailable, h.callError(err))
		return
	}
	opened := f.GetOpened()
	if opened == nil {
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: websocket answer is not opened", ErrBadResponse, h.opts.Handler))
		return
	}
	if !opened.GetAccepted() {
		h.writeRefusal(w, r, opened)
		return
	}
	respHeader := make(http.Header, len(opened.GetHeaders()))
	headersFromProto(opened.GetHeaders(), respHeader, dropWebSocketHeader)
	up := websocket.Upgrader{
		HandshakeTimeout: writeWait,
		// The plugin's handler saw the Origin header and accepted.
		CheckOrigin: func(*http.Request) bool { return true },
		Error: func(w http.ResponseWriter, r *http.Request, code int, reason error) {
			h.fail(w, r, code, fmt.Errorf("websocket upgrade: %w", reason))
		},
	}
	conn, err := up.Upgrade(w, r, respHeader)
	if err != nil {
		return // answered by Error; cancel ends the stream
	}
	h.relayWebSocket(cancel, stream, conn)
}

// checkUpgrade refuses an upgrade request the host could not complete, before
// the plugin is bothered with it.
func checkUpgrade(r *http.Request) (int, error) {
	if r.Method != http.MethodGet {
		return http.StatusMethodNotAllowed, fmt.Errorf("websocket upgrade: method %s, want GET", r.Method)
	}
	if !headerHasToken(r.Header, "Sec-Websocket-Version", "13") {
		return http.StatusBadRequest, errors.New("websocket upgrade: Sec-WebSocket-Version is not 13")
	}
	if r.Header.Get("Sec-Websocket-Key") == "" {
		return http.StatusBadRequest, errors.New("websocket upgrade: no Sec-WebSocket-Key")
	}
	return 0, nil
}

// headerHasToken reports whether a comma-separated header lists token.
func headerHasToken(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), token) {
				return true
			}
		}
	}
	return false
}

// writeRefusal answers the client with the plugin handler's refusal, as
// plain HTTP.
func (h *handler) writeRefusal(w http.ResponseWriter, r *http.Request, opened *pluginv1.WebSocketOpened) {
	code := int(opened.GetStatus())
	if code < 200 || code > 999 {
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: websocket refusal status %d", ErrBadResponse, h.opts.Handler, code))
		return
	}
	hdr := make(http.Header, len(opened.GetHeaders()))
	headersFromProto(opened.GetHeaders(), hdr, dropContentLength)
	setHeaders(w.Header(), hdr)
	w.WriteHeader(code)
	_, _ = w.Write(opened.GetBody())
}

// relayWebSocket pumps messages between the client and the stream until
// either ends, closes the other, and returns once every goroutine it started
// has stopped.
func (h *handler) relayWebSocket(cancel context.CancelFunc, stream pluginv1.Plugin_ServeWebSocketClient, conn *websocket.Conn) {
	conn.SetReadLimit(h.opts.MaxBodyBytes)
	stopPings := h.keepAlive(conn)
	fromClient := make(chan struct{})
	go func() {
		defer close(fromClient)
		relayFromClient(stream, conn)
	}()
	toClient := make(chan struct{})
	go func() {
		defer close(toClient)
		h.relayToClient(stream, conn)
	}()
	select {
	case <-toClient:
		// The plugin ended and the client was sent a close: let it answer.
		waitFor(fromClient, closeTimeout)
	case <-fromClient:
		// The client ended and the plugin was sent the close: let it finish.
		waitFor(toClient, closeTimeout)
	}
	cancel()
	_ = conn.Close()
	<-fromClient
	<-toClient
	stopPings()
}

// keepAlive pings the client every PingInterval and drops it when two pongs
// are missed. The returned func stops the pings and waits for the pinger.
func (h *handler) keepAlive(conn *websocket.Conn) (stop func()) {
	interval := h.opts.PingInterval
	if interval < 0 {
		return func() {}
	}
	wait := 2 * interval
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(wait)) })
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// relayFromClient sends the client's messages to the plugin; when the client
// ends it sends the close, ends its side of the stream and returns. It is the
// stream's only sender once open was sent.
func relayFromClient(stream pluginv1.Plugin_ServeWebSocketClient, conn *websocket.Conn) {
	for {
		typ, data, err := conn.ReadMessage()
		if err != nil {
			_ = stream.Send(closeFrame(closeOf(err)))
			_ = stream.CloseSend()
			return
		}
		if err := stream.Send(messageFrame(typ, data)); err != nil {
			return // the stream broke; the receiver sees why
		}
	}
}

// relayToClient writes the plugin's messages and close to the client until
// the stream ends; a stream that ends without a close closes the client with
// 1001, one that fails with 1011.
func (h *handler) relayToClient(stream pluginv1.Plugin_ServeWebSocketClient, conn *websocket.Conn) {
	closed := false
	for {
		f, err := stream.Recv()
		if err != nil {
			switch {
			case closed:
			case errors.Is(err, io.EOF):
				_ = writeClose(conn, websocket.CloseGoingAway, "")
			default:
				if status.Code(err) != codes.Canceled {
					h.opts.Logger.Warn("websocket stream to plugin failed", "handler", h.opts.Handler, "error", err)
				}
				_ = writeClose(conn, websocket.CloseInternalServerErr, "plugin unavailable")
			}
			return
		}
		switch fr := f.GetFrame().(type) {
		case *pluginv1.WebSocketFrame_Message:
			typ := int(fr.Message.GetType())
			if closed || !isDataMessage(typ) {
				continue
			}
			_ = conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := conn.WriteMessage(typ, fr.Message.GetData()); err != nil {
				_ = conn.Close() // the client is gone or stopped reading: end the session
			}
		case *pluginv1.WebSocketFrame_Close:
			_ = writeClose(conn, int(fr.Close.GetCode()), fr.Close.GetText())
			closed = true
		}
	}
}
