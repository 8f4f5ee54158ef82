// Package proxy is the host's proxy to a plugin's handlers: the one
// http.Handler the router mounts for a handler, which chooses the carrier
// of each request and forwards it (docs/decisions.md, "Packages"):
//
//   - a WebSocket upgrade: a ServeWebSocket stream, on which the host
//     terminates the client's WebSocket and relays its messages;
//   - any other request to a process that serves a data socket: that
//     socket (transport/host/unixpool);
//   - otherwise the process's ServeHTTPChannel stream, one per handler and
//     process, for a body up to 1 MiB;
//   - and a ServeHTTP call of its own for a bigger body, or for every
//     request to a plugin whose SDK predates the channel (it answers
//     Unimplemented).
//
// Whatever the carrier, a request is answered alike: its body is read
// whole under the cap first (413 over it), a failure before the answer
// began reaches OnError with an httpwire sentinel (503 unavailable, 502
// bad response, 504 timeout), and one after it cuts the answer.
package proxy

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/host/unixpool"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// DefaultPingInterval is how often the host pings a WebSocket client.
const DefaultPingInterval = 30 * time.Second

// Options configures the handler of NewHandler.
type Options struct {
	// Handler is the handler name in the plugin.
	Handler string
	// MaxBodyBytes caps the request body, and each WebSocket message from
	// the client; 0 or less means httpwire.DefaultMaxBodyBytes. A body over
	// it is refused through OnError with 413 and an error wrapping
	// httpwire.ErrBodyTooLarge.
	MaxBodyBytes int64
	// Timeout bounds each request, not a WebSocket session: a plugin that
	// has not begun its answer by then is answered for through OnError
	// with 504 and an error wrapping httpwire.ErrPluginTimeout, and its
	// handler's context is cancelled (an answer already started is cut).
	// 0 means none.
	Timeout time.Duration
	// OnError writes an error in the route's format; nil writes the status
	// text as plain text.
	OnError httpwire.ErrorWriter
	// Process returns the carriers of the plugin's current process; an
	// error means the plugin is down, answered at once with 503.
	Process func() (Process, error)
	// Logger receives relay failures; nil discards them.
	Logger hclog.Logger
	// PingInterval is how often a WebSocket client is pinged; a client that
	// misses two pongs is dropped. 0 means DefaultPingInterval, less than 0
	// turns pings off.
	PingInterval time.Duration
}

// Process is what reaches one plugin process.
type Process struct {
	// Client is the process's Plugin service.
	Client pluginv1.PluginClient
	// Pool is the process's data socket; nil when it serves none.
	Pool *unixpool.Pool
}

// handler forwards requests to one plugin handler.
type handler struct {
	opts  Options
	chans channels
}

// NewHandler returns an http.Handler that forwards each request, or
// WebSocket connection, to a plugin handler. The router must have stripped
// the route's prefix: r.URL.Path is the path below the handler.
func NewHandler(opts Options) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = httpwire.DefaultMaxBodyBytes
	}
	if opts.OnError == nil {
		opts.OnError = func(w http.ResponseWriter, _ *http.Request, status int, _ error) {
			http.Error(w, http.StatusText(status), status)
		}
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.PingInterval == 0 {
		opts.PingInterval = DefaultPingInterval
	}
	return &handler{opts: opts}
}

// ServeHTTP forwards r to the plugin on the carrier it calls for, and
// relays the answer.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if websocket.IsWebSocketUpgrade(r) {
		h.serveWebSocket(w, r)
		return
	}
	var deadline time.Time
	if h.opts.Timeout > 0 {
		deadline = time.Now().Add(h.opts.Timeout)
	}
	proc, err := h.process()
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, err)
		return
	}
	body, err := httpwire.ReadBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		h.fail(w, r, httpwire.BodyStatus(err), err)
		return
	}
	if proc.Pool != nil {
		h.serveUnix(w, r, proc.Pool, body, deadline)
		return
	}
	h.serveGRPC(w, r, proc.Client, body, deadline)
}

// process returns the plugin's current process, or an error wrapping
// httpwire.ErrPluginUnavailable.
func (h *handler) process() (Process, error) {
	if h.opts.Process == nil {
		return Process{}, fmt.Errorf("%w: handler %s: no process", httpwire.ErrPluginUnavailable, h.opts.Handler)
	}
	p, err := h.opts.Process()
	if err != nil {
		return Process{}, fmt.Errorf("%w: handler %s: %w", httpwire.ErrPluginUnavailable, h.opts.Handler, err)
	}
	return p, nil
}

// client returns c, or an error wrapping httpwire.ErrPluginUnavailable
// when the process has none.
func (h *handler) client(c pluginv1.PluginClient) (pluginv1.PluginClient, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: handler %s: no client", httpwire.ErrPluginUnavailable, h.opts.Handler)
	}
	return c, nil
}

// serveUnix forwards r on the process's data socket.
func (h *handler) serveUnix(w http.ResponseWriter, r *http.Request, pool *unixpool.Pool, body []byte, deadline time.Time) {
	err := pool.Forward(w, r, h.opts.Handler, body, deadline)
	if err == nil {
		return
	}
	fe, _ := errors.AsType[*unixpool.ForwardError](err)
	switch {
	case fe != nil && fe.Started:
		h.abort(w, r, err)
	case fe != nil && fe.Bad:
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: %w", httpwire.ErrBadResponse, h.opts.Handler, err))
	case fe != nil && fe.TimedOut:
		h.fail(w, r, http.StatusGatewayTimeout, h.timeoutError())
	default:
		h.fail(w, r, http.StatusServiceUnavailable, fmt.Errorf("handler %s: %w", h.opts.Handler, err))
	}
}

// timeoutError is the error of a request the plugin did not answer within
// Timeout.
func (h *handler) timeoutError() error {
	return fmt.Errorf("%w: handler %s: no answer within %s", httpwire.ErrPluginTimeout, h.opts.Handler, h.opts.Timeout)
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
	err = fmt.Errorf("%w: handler %s: %w", httpwire.ErrResponseAborted, h.opts.Handler, err)
	if r.Context().Err() == nil {
		h.opts.Logger.Warn("plugin response aborted", "handler", h.opts.Handler, "error", err)
	}
	if r.Context().Value(http.ServerContextKey) != nil {
		panic(http.ErrAbortHandler)
	}
	h.opts.OnError(w, r, http.StatusBadGateway, err)
}
