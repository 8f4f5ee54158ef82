package httpgrpc

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// DefaultChunkSize is the largest body piece of one HTTPResponse message.
const DefaultChunkSize = 32 << 10

// ServerOptions configures a Server.
type ServerOptions struct {
	// Lookup returns the plugin's handler of a name; nil means no handlers.
	Lookup func(handler string) (http.Handler, bool)
	// Logger receives handler panics and relay failures; nil discards them.
	Logger hclog.Logger
	// ChunkSize is the body buffer of a response, sent when full; 0 or less
	// means DefaultChunkSize, and it is at most pluginv1.HTTPChannelWindow.
	ChunkSize int
}

// Server serves the Plugin service's ServeHTTP and ServeWebSocket RPCs by
// calling ordinary http.Handlers, in the plugin process.
type Server struct {
	lookup    func(string) (http.Handler, bool)
	logger    hclog.Logger
	chunkSize int
}

// NewServer returns a Server with opts, defaults filled in.
func NewServer(opts ServerOptions) *Server {
	s := &Server{lookup: opts.Lookup, logger: opts.Logger, chunkSize: opts.ChunkSize}
	if s.lookup == nil {
		s.lookup = func(string) (http.Handler, bool) { return nil, false }
	}
	if s.logger == nil {
		s.logger = hclog.NewNullLogger()
	}
	if s.chunkSize <= 0 {
		s.chunkSize = DefaultChunkSize
	}
	s.chunkSize = min(s.chunkSize, pluginv1.HTTPChannelWindow)
	return s
}

// ServeHTTP serves one request with the named handler and streams the
// response: status and headers in the first message, body in chunks.
func (s *Server) ServeHTTP(req *pluginv1.HTTPRequest, stream pluginv1.Plugin_ServeHTTPServer) error {
	return s.serveRequest(stream.Context(), req, stream.Send)
}

// serveRequest serves one request with the named handler, handing each
// response message to send. An error is a response cut short (the handler
// panicked or aborted after answering began, or send failed), as a gRPC
// status.
func (s *Server) serveRequest(ctx context.Context, req *pluginv1.HTTPRequest, send func(*pluginv1.HTTPResponse) error) error {
	name := req.GetHandler()
	w := newResponseWriter(send, s.chunkSize, req.GetMethod() == http.MethodHead)
	h, ok := s.lookup(name)
	if !ok {
		return w.sendError(http.StatusNotFound, fmt.Sprintf("no handler %q", name))
	}
	r, err := requestFromProto(ctx, req)
	if err != nil {
		return w.sendError(http.StatusBadRequest, err.Error())
	}
	if err := s.serve(name, h, w, r); err != nil {
		return err
	}
	return w.finish()
}

// serve runs h, turning a panic into a 500 answer when nothing was sent yet
// and into a failed stream (an aborted response at the host) otherwise.
func (s *Server) serve(name string, h http.Handler, w *responseWriter, r *http.Request) (err error) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			err = status.Errorf(codes.Aborted, "handler %s aborted the response", name)
			return
		}
		s.logger.Error("http handler panicked", "handler", name, "method", r.Method,
			"path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
		if w.started {
			err = status.Errorf(codes.Internal, "handler %s panicked", name)
			return
		}
		err = w.sendError(http.StatusInternalServerError, http.StatusText(http.StatusInternalServerError))
	}()
	h.ServeHTTP(w, r)
	return nil
}
