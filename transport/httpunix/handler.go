package httpunix

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/transport/httpgrpc"
)

// HandlerOptions configures the host-side handler of NewHandler. The
// errors handed to OnError are those of httpgrpc's handler, so a route
// answers alike whichever path a request took.
type HandlerOptions struct {
	// Handler is the handler name in the plugin.
	Handler string
	// MaxBodyBytes caps the request body; 0 or less means
	// httpgrpc.DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Timeout bounds each request: a plugin that has not begun its answer
	// by then is answered for with 504 (httpgrpc.ErrPluginTimeout), and the
	// connection is closed, which cancels the handler. 0 means none.
	Timeout time.Duration
	// OnError writes an error in the route's format; nil writes the status
	// text.
	OnError httpgrpc.ErrorWriter
	// Pool returns the current process's pool, nil when the process has no
	// data socket (Fallback serves the request then); an error means the
	// plugin is down, answered at once with 503.
	Pool func() (*Pool, error)
	// Fallback serves WebSocket upgrades, and every request to a process
	// without a data socket: the gRPC handler.
	Fallback http.Handler
	// Logger receives relay failures; nil discards them.
	Logger hclog.Logger
}

// handler forwards requests to one plugin handler over its data socket.
type handler struct{ opts HandlerOptions }

// NewHandler returns an http.Handler that forwards each request to a
// plugin handler over the process's data socket, and WebSocket upgrades
// to Fallback. The router must have stripped the route's prefix.
func NewHandler(opts HandlerOptions) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = httpgrpc.DefaultMaxBodyBytes
	}
	if opts.OnError == nil {
		opts.OnError = func(w http.ResponseWriter, _ *http.Request, status int, _ error) {
			http.Error(w, http.StatusText(status), status)
		}
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	return &handler{opts: opts}
}

// ServeHTTP forwards r to the plugin and relays the answer.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if websocket.IsWebSocketUpgrade(r) {
		h.opts.Fallback.ServeHTTP(w, r)
		return
	}
	pool, err := h.opts.Pool()
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, fmt.Errorf("%w: handler %s: %w", httpgrpc.ErrPluginUnavailable, h.opts.Handler, err))
		return
	}
	if pool == nil {
		h.opts.Fallback.ServeHTTP(w, r)
		return
	}
	var deadline time.Time
	if h.opts.Timeout > 0 {
		deadline = time.Now().Add(h.opts.Timeout)
	}
	body, err := httpgrpc.ReadBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, httpgrpc.ErrBodyTooLarge) {
			code = http.StatusRequestEntityTooLarge
		}
		h.fail(w, r, code, err)
		return
	}
	err = pool.forward(w, r, h.opts.Handler, body, deadline)
	if err == nil {
		return
	}
	var fe *forwardError
	errors.As(err, &fe)
	switch {
	case fe != nil && fe.started:
		h.abort(w, r, err)
	case fe != nil && fe.bad:
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: %w", httpgrpc.ErrBadResponse, h.opts.Handler, err))
	case fe != nil && fe.timedOut:
		h.fail(w, r, http.StatusGatewayTimeout, fmt.Errorf("%w: handler %s: no answer within %s", httpgrpc.ErrPluginTimeout, h.opts.Handler, h.opts.Timeout))
	default:
		h.fail(w, r, http.StatusServiceUnavailable, fmt.Errorf("handler %s: %w", h.opts.Handler, err))
	}
}

// fail logs err and hands it to OnError.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	h.opts.Logger.Debug("plugin request failed", "handler", h.opts.Handler, "status", code, "error", err)
	h.opts.OnError(w, r, code, err)
}

// abort ends a response that already started: the client's connection is
// closed under net/http's server, an in-process caller is told through
// OnError.
func (h *handler) abort(w http.ResponseWriter, r *http.Request, err error) {
	err = fmt.Errorf("%w: handler %s: %w", httpgrpc.ErrResponseAborted, h.opts.Handler, err)
	if r.Context().Err() == nil {
		h.opts.Logger.Warn("plugin response aborted", "handler", h.opts.Handler, "error", err)
	}
	if r.Context().Value(http.ServerContextKey) != nil {
		panic(http.ErrAbortHandler)
	}
	h.opts.OnError(w, r, http.StatusBadGateway, err)
}
