package httpgrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// DefaultMaxBodyBytes is the request body cap when HandlerOptions leaves it
// unset; it matches the default of the host's http-max-body-size.
const DefaultMaxBodyBytes int64 = 10 << 20

// Errors handed to HandlerOptions.OnError, for errors.Is.
var (
	// ErrBodyTooLarge is the request body over MaxBodyBytes (status 413).
	ErrBodyTooLarge = errors.New("request body too large")
	// ErrPluginUnavailable is a plugin that is down or whose call failed
	// before answering (status 503).
	ErrPluginUnavailable = errors.New("plugin unavailable")
	// ErrBadResponse is a malformed answer from the plugin (status 502).
	ErrBadResponse = errors.New("bad response from plugin")
	// ErrResponseAborted is a call that failed after the response started;
	// OnError sees it only when net/http does not serve the request.
	ErrResponseAborted = errors.New("plugin response aborted")
	// ErrPluginTimeout is a plugin that did not answer within
	// HandlerOptions.Timeout (status 504).
	ErrPluginTimeout = errors.New("plugin did not answer in time")
)

// ErrorWriter answers a request that failed with status, in the format of
// the route it was made to.
type ErrorWriter func(w http.ResponseWriter, r *http.Request, status int, err error)

// HandlerOptions configures the host-side handler of NewHandler.
type HandlerOptions struct {
	// Handler is the handler name in the plugin.
	Handler string
	// MaxBodyBytes caps the request body, and each WebSocket message from
	// the client; 0 or less means DefaultMaxBodyBytes. A body over it is
	// refused through OnError with 413 and an error wrapping ErrBodyTooLarge.
	MaxBodyBytes int64
	// OnError writes an error in the route's format (JSON-RPC error or REST
	// body); nil writes the status text as plain text. err wraps one of the
	// Err* sentinels of this package, or describes a bad upgrade request.
	OnError ErrorWriter
	// Client returns the plugin's current client; an error means the plugin
	// is down, answered at once with 503.
	Client func() (pluginv1.PluginClient, error)
	// Logger receives relay failures; nil discards them.
	Logger hclog.Logger
	// PingInterval is how often a WebSocket client is pinged; a client that
	// misses two pongs is dropped. 0 means DefaultPingInterval, less than 0
	// turns pings off.
	PingInterval time.Duration
	// Timeout bounds each request, not a WebSocket session: a plugin that
	// has not answered by then is answered for through OnError with 504
	// and an error wrapping ErrPluginTimeout, and its handler's context is
	// cancelled (an answer already started is cut). 0 means none.
	Timeout time.Duration
}

// handler forwards requests to one plugin handler.
type handler struct {
	opts  HandlerOptions
	chans channels
}

// NewHandler returns an http.Handler that forwards each request, or
// WebSocket connection, to a plugin handler. The router must have stripped
// the route's prefix: r.URL.Path is the path below the handler.
func NewHandler(opts HandlerOptions) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.OnError == nil {
		opts.OnError = plainError
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.PingInterval == 0 {
		opts.PingInterval = DefaultPingInterval
	}
	return &handler{opts: opts}
}

// plainError is the default OnError: the status text, as plain text.
func plainError(w http.ResponseWriter, _ *http.Request, status int, _ error) {
	http.Error(w, http.StatusText(status), status)
}

// ServeHTTP forwards r to the plugin and streams the answer back.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isWebSocketRequest(r) {
		h.serveWebSocket(w, r)
		return
	}
	if h.opts.Timeout > 0 {
		// A timer, not a context deadline: gRPC would send the deadline to
		// the plugin, whose clock may end the handler a moment earlier and
		// have its answer taken for the plugin's.
		ctx, cancel := context.WithCancelCause(r.Context())
		timer := time.AfterFunc(h.opts.Timeout, func() { cancel(errTimedOut) })
		defer timer.Stop()
		defer cancel(nil)
		r = r.WithContext(ctx)
	}
	client, err := h.client()
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, err)
		return
	}
	body, err := ReadBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, ErrBodyTooLarge) {
			code = http.StatusRequestEntityTooLarge
		}
		h.fail(w, r, code, err)
		return
	}
	req := requestToProto(r, h.opts.Handler, body, dropContentLength)
	if len(body) <= channelMaxBody {
		if ch := h.chans.get(client); ch != nil && h.serveChannel(w, r, client, ch, req) {
			return
		}
	}
	h.serveCall(w, r, client, req)
}

// serveChannel serves a request on the plugin's channel. It returns false,
// having answered nothing, when the plugin turns out not to serve
// channels: the request is then for a call of its own.
func (h *handler) serveChannel(w http.ResponseWriter, r *http.Request, client pluginv1.PluginClient, ch *clientChannel, req *pluginv1.HTTPRequest) bool {
	cr, err := ch.start(req)
	if err != nil {
		if status.Code(err) == codes.Unimplemented {
			h.chans.unsupported(client, ch)
			return false
		}
		h.fail(w, r, callStatus(err), h.callError(err))
		return true
	}
	complete := false
	defer func() { ch.end(cr, complete) }()
	first, err := ch.recv(r.Context(), cr)
	if h.timedOut(w, r) {
		return true
	}
	if err != nil {
		if status.Code(err) == codes.Unimplemented && !cr.received {
			h.chans.unsupported(client, ch)
			return false
		}
		if bad, ok := errors.AsType[malformedError](err); ok {
			h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: %w", ErrBadResponse, h.opts.Handler, bad))
			return true
		}
		h.fail(w, r, callStatus(err), h.callError(err))
		return true
	}
	complete = h.relay(w, r, first, func() (*pluginv1.HTTPResponse, error) {
		return ch.recv(r.Context(), cr)
	}, func(msg *pluginv1.HTTPResponse) error {
		return ch.consumed(cr, msg)
	})
	return true
}

// serveCall serves a request with a ServeHTTP call of its own.
func (h *handler) serveCall(w http.ResponseWriter, r *http.Request, client pluginv1.PluginClient, req *pluginv1.HTTPRequest) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stream, err := client.ServeHTTP(ctx, req)
	if err != nil {
		h.fail(w, r, callStatus(err), h.callError(err))
		return
	}
	first, err := stream.Recv()
	if h.timedOut(w, r) {
		return
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: no response", ErrBadResponse, h.opts.Handler))
			return
		}
		h.fail(w, r, callStatus(err), h.callError(err))
		return
	}
	h.relay(w, r, first, stream.Recv, nil)
}

// relay writes the plugin's response to the client: status and headers
// from first, then the body of every message until the one marked last
// (or the end of next's messages). consumed, if set, is told of each
// message written. It reports whether the response completed.
func (h *handler) relay(w http.ResponseWriter, r *http.Request, first *pluginv1.HTTPResponse,
	next func() (*pluginv1.HTTPResponse, error), consumed func(*pluginv1.HTTPResponse) error) bool {
	code := int(first.GetStatus())
	if code < 200 || code > 999 {
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: status %d", ErrBadResponse, h.opts.Handler, code))
		return false
	}
	resp := make(http.Header, len(first.GetHeaders()))
	headersFromProto(first.GetHeaders(), resp, nil)
	setHeaders(w.Header(), resp)
	w.WriteHeader(code)
	rc := http.NewResponseController(w)
	for msg := first; ; {
		if len(msg.GetBody()) > 0 {
			if _, err := w.Write(msg.GetBody()); err != nil {
				return false // the client is gone, or the status allows no body
			}
		}
		if msg.GetLast() {
			return true // net/http completes the answer, with a Content-Length if it is small
		}
		_ = rc.Flush()
		if consumed != nil {
			if err := consumed(msg); err != nil {
				h.abort(w, r, err)
				return false
			}
		}
		var err error
		msg, err = next()
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			h.abort(w, r, err)
			return false
		}
	}
}

// client returns the plugin's current client, or an error wrapping
// ErrPluginUnavailable.
func (h *handler) client() (pluginv1.PluginClient, error) {
	if h.opts.Client == nil {
		return nil, fmt.Errorf("%w: handler %s: no client", ErrPluginUnavailable, h.opts.Handler)
	}
	c, err := h.opts.Client()
	if err != nil {
		return nil, fmt.Errorf("%w: handler %s: %w", ErrPluginUnavailable, h.opts.Handler, err)
	}
	if c == nil {
		return nil, fmt.Errorf("%w: handler %s: no client", ErrPluginUnavailable, h.opts.Handler)
	}
	return c, nil
}

// ReadBody reads the request body whole, up to limit bytes: a body over it
// is an error wrapping ErrBodyTooLarge, which the router answers with 413.
// A chain's own listener reads bodies with it too, so that both paths
// refuse the same bodies with the same words.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrBodyTooLarge, r.ContentLength, limit)
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength >= 0 {
		// The length is said and under the limit, and net/http reads no
		// further: one buffer of that size.
		body := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		return body, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, fmt.Errorf("%w: limit %d bytes", ErrBodyTooLarge, limit)
		}
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return body, nil
}

// callStatus is the HTTP status of a call that failed before answering: 413
// for a request over the gRPC message limit, 503 otherwise.
func callStatus(err error) int {
	switch status.Code(err) {
	case codes.ResourceExhausted:
		return http.StatusRequestEntityTooLarge
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	}
	return http.StatusServiceUnavailable
}

// errTimedOut is the cause of a request's context cancelled by
// HandlerOptions.Timeout.
var errTimedOut = errors.New("timed out")

// timedOut answers 504 and reports true when r's Timeout passed before the
// plugin's answer began: whatever came then is the cancelled handler's.
func (h *handler) timedOut(w http.ResponseWriter, r *http.Request) bool {
	if !errors.Is(context.Cause(r.Context()), errTimedOut) {
		return false
	}
	h.fail(w, r, http.StatusGatewayTimeout, fmt.Errorf("%w: handler %s: no answer within %s", ErrPluginTimeout, h.opts.Handler, h.opts.Timeout))
	return true
}

// callError wraps the error of a call that failed before answering.
func (h *handler) callError(err error) error {
	switch status.Code(err) {
	case codes.ResourceExhausted:
		return fmt.Errorf("%w: handler %s: %w", ErrBodyTooLarge, h.opts.Handler, err)
	case codes.DeadlineExceeded:
		return fmt.Errorf("%w: handler %s: no answer before the caller's deadline", ErrPluginTimeout, h.opts.Handler)
	}
	return fmt.Errorf("%w: handler %s: %w", ErrPluginUnavailable, h.opts.Handler, err)
}

// fail logs err and hands it to OnError.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	h.opts.Logger.Debug("plugin request failed", "handler", h.opts.Handler, "status", code, "error", err)
	h.opts.OnError(w, r, code, err)
}

// abort ends a response that already started. Under net/http's server the
// connection is closed, so the client sees a truncated answer rather than a
// complete one; an in-process caller is told through OnError.
func (h *handler) abort(w http.ResponseWriter, r *http.Request, err error) {
	err = fmt.Errorf("%w: handler %s: %w", ErrResponseAborted, h.opts.Handler, err)
	if r.Context().Err() == nil {
		h.opts.Logger.Warn("plugin response aborted", "handler", h.opts.Handler, "error", err)
	}
	if r.Context().Value(http.ServerContextKey) != nil {
		panic(http.ErrAbortHandler)
	}
	h.opts.OnError(w, r, http.StatusBadGateway, err)
}
