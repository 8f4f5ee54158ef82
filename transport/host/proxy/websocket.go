package proxy

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
	"github.com/chainhost/chainhost/transport/httpwire"
	"github.com/chainhost/chainhost/transport/internal/httpmsg"
)

// serveWebSocket opens a ServeWebSocket stream for the upgrade request r and,
// when the plugin's handler accepts, upgrades the client and relays.
func (h *handler) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if code, err := checkUpgrade(r); err != nil {
		h.fail(w, r, code, err)
		return
	}
	proc, err := h.process()
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, err)
		return
	}
	client, err := h.client(proc.Client)
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, err)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stream, err := client.ServeWebSocket(ctx)
	if err != nil {
		h.failStream(w, r, err)
		return
	}
	open := requestToProto(r, h.opts.Handler, nil, httpmsg.DropWebSocketHeader)
	if err := stream.Send(&pluginv1.WebSocketFrame{Frame: &pluginv1.WebSocketFrame_Open{Open: open}}); err != nil {
		h.failStream(w, r, err)
		return
	}
	f, err := stream.Recv()
	if err != nil {
		h.noAnswer(w, r, err, "no websocket answer", h.failStream)
		return
	}
	opened := f.GetOpened()
	if opened == nil {
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: websocket answer is not opened", httpwire.ErrBadResponse, h.opts.Handler))
		return
	}
	if !opened.GetAccepted() {
		h.writeRefusal(w, r, opened)
		return
	}
	respHeader := make(http.Header, len(opened.GetHeaders()))
	httpmsg.HeadersFromProto(opened.GetHeaders(), respHeader, httpmsg.DropWebSocketHeader)
	up := websocket.Upgrader{
		HandshakeTimeout: httpmsg.WriteWait,
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
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: websocket refusal status %d", httpwire.ErrBadResponse, h.opts.Handler, code))
		return
	}
	hdr := make(http.Header, len(opened.GetHeaders()))
	httpmsg.HeadersFromProto(opened.GetHeaders(), hdr, httpmsg.DropContentLength)
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
		httpmsg.WaitFor(fromClient, httpmsg.CloseTimeout)
	case <-fromClient:
		// The client ended and the plugin was sent the close: let it finish.
		httpmsg.WaitFor(toClient, httpmsg.CloseTimeout)
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
				if err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(httpmsg.WriteWait)); err != nil {
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
			_ = stream.Send(httpmsg.CloseFrame(httpmsg.CloseOf(err)))
			_ = stream.CloseSend()
			return
		}
		if err := stream.Send(httpmsg.MessageFrame(typ, data)); err != nil {
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
				_ = httpmsg.WriteClose(conn, websocket.CloseGoingAway, "")
			default:
				if status.Code(err) != codes.Canceled {
					h.opts.Logger.Warn("websocket stream to plugin failed", "handler", h.opts.Handler, "error", err)
				}
				_ = httpmsg.WriteClose(conn, websocket.CloseInternalServerErr, "plugin unavailable")
			}
			return
		}
		switch fr := f.GetFrame().(type) {
		case *pluginv1.WebSocketFrame_Message:
			typ := int(fr.Message.GetType())
			if closed || !httpmsg.IsDataMessage(typ) {
				continue
			}
			_ = conn.SetWriteDeadline(time.Now().Add(httpmsg.WriteWait))
			if err := conn.WriteMessage(typ, fr.Message.GetData()); err != nil {
				_ = conn.Close() // the client is gone or stopped reading: end the session
			}
		case *pluginv1.WebSocketFrame_Close:
			_ = httpmsg.WriteClose(conn, int(fr.Close.GetCode()), fr.Close.GetText())
			closed = true
		}
	}
}

// failStream answers an upgrade whose stream failed before the plugin's
// answer: 503, with the error of the failed call.
func (h *handler) failStream(w http.ResponseWriter, r *http.Request, err error) {
	_, err = h.callFailure(err)
	h.fail(w, r, http.StatusServiceUnavailable, err)
}
