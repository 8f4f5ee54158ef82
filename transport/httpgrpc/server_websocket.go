package httpgrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/internal/httpmsg"
)

// handshakeTimeout bounds the plugin handler's answer to the upgrade.
const handshakeTimeout = 30 * time.Second

// ServeWebSocket carries one WebSocket connection to the handler named in
// the stream's first frame, an open. The handler upgrades an in-memory
// connection; its answer goes back as opened, then messages and close frames
// are relayed both ways until either side ends.
func (s *Server) ServeWebSocket(stream pluginv1.Plugin_ServeWebSocketServer) error {
	first, err := stream.Recv()
	if err != nil {
		return fmt.Errorf("receive websocket open: %w", err)
	}
	open := first.GetOpen()
	if open == nil {
		return status.Error(codes.InvalidArgument, "first websocket frame is not open")
	}
	name := open.GetHandler()
	h, ok := s.lookup(name)
	if !ok {
		return sendRefusal(stream, http.StatusNotFound, fmt.Sprintf("no handler %q", name))
	}
	u, err := urlFromProto(open.GetPath(), open.GetRawQuery())
	if err != nil {
		return sendRefusal(stream, http.StatusBadRequest, err.Error())
	}
	u.Scheme, u.Host = "ws", open.GetHost()
	if u.Host == "" {
		u.Host = "plugin"
	}
	header := make(http.Header, len(open.GetHeaders()))
	httpmsg.HeadersFromProto(open.GetHeaders(), header, httpmsg.DropWebSocketHeader)

	ctx := stream.Context()
	b := s.startBridge(ctx, name, h, open.GetRemoteAddr())
	defer b.close()
	conn, resp, err := b.dial(ctx, u.String(), header)
	if err != nil {
		if resp == nil || resp.StatusCode == http.StatusSwitchingProtocols {
			s.logger.Warn("websocket handshake with handler failed", "handler", name, "error", err)
			return sendRefusal(stream, http.StatusBadGateway, "websocket handshake with the handler failed")
		}
		return sendOpened(stream, refusalOf(resp))
	}
	accepted := &pluginv1.WebSocketOpened{
		Accepted: true,
		Headers:  httpmsg.HeadersToProto(resp.Header, httpmsg.DropWebSocketHeader),
	}
	if err := sendOpened(stream, accepted); err != nil {
		_ = conn.Close()
		return err
	}
	s.relay(stream, conn, name)
	return nil
}

// sendOpened sends the plugin's answer to the open.
func sendOpened(stream pluginv1.Plugin_ServeWebSocketServer, opened *pluginv1.WebSocketOpened) error {
	err := stream.Send(&pluginv1.WebSocketFrame{Frame: &pluginv1.WebSocketFrame_Opened{Opened: opened}})
	if err != nil {
		return fmt.Errorf("send websocket opened: %w", err)
	}
	return nil
}

// sendRefusal refuses the upgrade with a plain-text HTTP answer.
func sendRefusal(stream pluginv1.Plugin_ServeWebSocketServer, code int, text string) error {
	return sendOpened(stream, &pluginv1.WebSocketOpened{
		Status: int32(code),
		Body:   []byte(text + "\n"),
		Headers: []*pluginv1.Header{
			{Key: "Content-Type", Values: []string{"text/plain; charset=utf-8"}},
			{Key: "X-Content-Type-Options", Values: []string{"nosniff"}},
		},
	})
}

// refusalOf returns the opened message of a handler that answered the
// upgrade without switching protocols. The dialer keeps at most 1 KiB of the
// body, so Content-Length is left out.
func refusalOf(resp *http.Response) *pluginv1.WebSocketOpened {
	body, _ := io.ReadAll(resp.Body)
	return &pluginv1.WebSocketOpened{
		Status:  int32(resp.StatusCode),
		Body:    body,
		Headers: httpmsg.HeadersToProto(resp.Header, httpmsg.DropContentLength),
	}
}

// bridge serves a plugin handler on one end of an in-memory connection and
// dials it from the other.
type bridge struct {
	logger  hclog.Logger
	name    string
	srv     *http.Server
	ln      *pipeListener
	client  net.Conn
	served  chan struct{} // closed when srv.Serve returned
	once    sync.Once
	entered chan struct{} // closed when the handler was called
	exited  chan struct{} // closed when it returned
}

// startBridge serves h with an http.Server on a one-connection listener.
// The handler's request context is ctx, and its RemoteAddr is remote.
func (s *Server) startBridge(ctx context.Context, name string, h http.Handler, remote string) *bridge {
	serverEnd, clientEnd := net.Pipe()
	var conn net.Conn = serverEnd
	if remote != "" {
		conn = remoteConn{Conn: serverEnd, remote: pipeAddr(remote)}
	}
	b := &bridge{
		logger:  s.logger,
		name:    name,
		ln:      newPipeListener(conn),
		client:  clientEnd,
		served:  make(chan struct{}),
		entered: make(chan struct{}),
		exited:  make(chan struct{}),
	}
	b.srv = &http.Server{
		Handler:           b.serveOnce(h),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: handshakeTimeout,
		ErrorLog:          s.logger.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Error}),
	}
	go func() {
		defer close(b.served)
		_ = b.srv.Serve(b.ln)
	}()
	return b
}

// serveOnce runs h for the one upgrade request and records when it returns.
func (b *bridge) serveOnce(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first := false
		b.once.Do(func() {
			first = true
			close(b.entered)
		})
		if !first {
			http.Error(w, "one request per websocket connection", http.StatusBadRequest)
			return
		}
		defer close(b.exited)
		h.ServeHTTP(w, r)
	})
}

// dial performs the upgrade against the handler over the pipe.
func (b *bridge) dial(ctx context.Context, url string, header http.Header) (*websocket.Conn, *http.Response, error) {
	d := websocket.Dialer{
		NetDialContext:   func(context.Context, string, string) (net.Conn, error) { return b.client, nil },
		HandshakeTimeout: handshakeTimeout,
	}
	conn, resp, err := d.DialContext(ctx, url, header)
	if err != nil {
		return nil, resp, fmt.Errorf("dial handler %s: %w", b.name, err)
	}
	return conn, resp, nil
}

// close tears the bridge down: the pipe, the server and its listener; it
// waits for the handler to return, for a bounded time.
func (b *bridge) close() {
	_ = b.client.Close()
	_ = b.srv.Close()
	<-b.served
	select {
	case <-b.entered:
	default:
		return
	}
	select {
	case <-b.exited:
	case <-time.After(httpmsg.CloseTimeout):
		b.logger.Warn("websocket handler still running after its connection closed", "handler", b.name)
	}
}

// relay pumps messages between the stream and the handler's connection
// until either side ends, then closes the other.
func (s *Server) relay(stream pluginv1.Plugin_ServeWebSocketServer, conn *websocket.Conn, name string) {
	fromHost := make(chan struct{})
	go func() {
		defer close(fromHost)
		s.relayFromHost(stream, conn, name)
	}()
	toHost := make(chan struct{})
	go func() {
		defer close(toHost)
		relayToHost(stream, conn)
	}()
	select {
	case <-toHost:
	case <-fromHost:
		// The host is done: give the handler time to answer the close.
		httpmsg.WaitFor(toHost, httpmsg.CloseTimeout)
	}
	_ = conn.Close()
	<-toHost
	// The host ends its side once it has our close. If it does not, the
	// receiver ends with the stream when this method returns.
	httpmsg.WaitFor(fromHost, httpmsg.CloseTimeout)
}

// relayToHost sends the handler's messages to the host; when the handler's
// connection ends it sends the close and returns. It is the stream's only
// sender once opened was sent.
func relayToHost(stream pluginv1.Plugin_ServeWebSocketServer, conn *websocket.Conn) {
	for {
		typ, data, err := conn.ReadMessage()
		if err != nil {
			_ = stream.Send(httpmsg.CloseFrame(httpmsg.CloseOf(err)))
			return
		}
		if err := stream.Send(httpmsg.MessageFrame(typ, data)); err != nil {
			return
		}
	}
}

// relayFromHost writes the host's messages and close to the handler's
// connection until the host ends its side of the stream.
func (s *Server) relayFromHost(stream pluginv1.Plugin_ServeWebSocketServer, conn *websocket.Conn, name string) {
	for {
		f, err := stream.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.logger.Debug("websocket stream from host ended", "handler", name, "error", err)
			}
			_ = httpmsg.WriteClose(conn, websocket.CloseGoingAway, "")
			return
		}
		switch fr := f.GetFrame().(type) {
		case *pluginv1.WebSocketFrame_Message:
			typ := int(fr.Message.GetType())
			if !httpmsg.IsDataMessage(typ) {
				s.logger.Warn("websocket message of unknown type dropped", "handler", name, "type", typ)
				continue
			}
			_ = conn.SetWriteDeadline(time.Now().Add(httpmsg.WriteWait))
			if err := conn.WriteMessage(typ, fr.Message.GetData()); err != nil {
				_ = conn.Close() // the handler stopped reading: end the session
			}
		case *pluginv1.WebSocketFrame_Close:
			_ = httpmsg.WriteClose(conn, int(fr.Close.GetCode()), fr.Close.GetText())
		default:
			s.logger.Warn("unexpected websocket frame from host dropped", "handler", name)
		}
	}
}
