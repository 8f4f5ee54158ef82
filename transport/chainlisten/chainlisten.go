// Package chainlisten serves a chain's public handlers on the listening
// socket the host hands the chain's plugin process (the chain's "listen";
// docs/listeners.md): at the paths the host's router serves them at,
// /ext/bc/<chain>/<handler>/..., and at the root, /<handler>/..., with the
// node's HTTP limits, and with its request metrics on the plugin's
// registry, which the host exports labelled with the chain.
package chainlisten

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/transport/httpserve"
	"github.com/chainhost/chainhost/transport/httpwire"
	"github.com/chainhost/chainhost/transport/route"
)

// Options configures Serve.
type Options struct {
	Listener httpserve.Listener
	// Name is the chain's primary alias, its label in the metric routes.
	Name string
	// Names are what /ext/bc/<chain>/ may name the chain by: its ID and
	// its aliases.
	Names []string
	// Handlers are the chain's public handlers by name.
	Handlers map[string]http.Handler
	// Metrics receives the request metrics.
	Metrics prometheus.Registerer
	Logger  hclog.Logger
}

// Serve serves the inherited socket in the background until Shutdown of
// the returned server, which closes the process's copy of the socket only:
// the host keeps it open for the next process.
func Serve(opts Options) (*httpserve.Server, error) {
	f := os.NewFile(uintptr(opts.Listener.FD), "chain listener "+opts.Listener.Addr)
	if f == nil {
		return nil, fmt.Errorf("chain listener %s: file descriptor %d is not valid", opts.Listener.Addr, opts.Listener.FD)
	}
	ln, err := net.FileListener(f) // a copy: f is not needed afterwards
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("chain listener %s on file descriptor %d: %w", opts.Listener.Addr, opts.Listener.FD, err)
	}
	m := httpserve.NewRequestMetrics()
	for _, c := range m.Collectors() {
		if err := opts.Metrics.Register(c); err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("chain listener %s: register request metrics: %w", opts.Listener.Addr, err)
		}
	}
	rt := &router{opts: opts, metrics: m, routes: make(map[string]http.Handler, len(opts.Handlers))}
	for name, h := range opts.Handlers {
		rt.routes[name] = m.Instrument("bc/"+opts.Name+"/"+name, rt.serve(h))
	}
	errorLog := opts.Logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})
	srv, err := httpserve.Serve(ln, opts.Listener.Limits, rt, errorLog)
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("chain listener %s: %w", opts.Listener.Addr, err)
	}
	return srv, nil
}

// router picks the handler of a request, as the host's router does for
// /ext/bc/<chain>/.
type router struct {
	opts    Options
	metrics *httpserve.RequestMetrics
	// routes are the handlers by name, each with its body check and
	// metrics, made once.
	routes map[string]http.Handler
}

// ServeHTTP serves /ext/bc/<chain>/<handler>[/<path>] and
// /<handler>[/<path>]; a handler named "" (a chain's root API) answers at
// /ext/bc/<chain> and at /.
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := route.CheckSegments(r.URL.Path); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/")
	if below, ok := strings.CutPrefix(r.URL.Path, "/ext/bc/"); ok {
		name, tail, _ := strings.Cut(below, "/")
		if !slices.Contains(rt.opts.Names, name) {
			writeError(w, http.StatusNotFound, fmt.Errorf("unknown chain %q: this listener serves chain %s only", name, rt.opts.Name))
			return
		}
		rest = tail
	}
	handler, sub, _ := strings.Cut(rest, "/")
	h, ok := rt.routes[handler]
	if !ok {
		err := fmt.Errorf("chain %s has no handler at %s; it serves %v", rt.opts.Name, r.URL.Path, slices.Sorted(maps.Keys(rt.opts.Handlers)))
		// A client's typo must not become a metric of its own.
		rt.metrics.Serve("bc/"+rt.opts.Name+"/unknown", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeError(w, http.StatusNotFound, err)
		}), w, r)
		return
	}
	// The handler sees the path below it, as behind the host's router.
	u := *r.URL
	u.Path, u.RawPath = "/"+sub, ""
	r2 := r.WithContext(r.Context())
	r2.URL = &u
	h.ServeHTTP(w, r2)
}

// serve refuses a body over the body cap before the handler runs, as the
// host does before it forwards a request, so that both paths refuse the
// same bodies alike. A body of said length under the cap goes to the
// handler as it comes (net/http reads no further than the length said);
// one of unsaid length (chunked) is read whole first, to find out. A
// WebSocket upgrade goes straight to the handler.
func (rt *router) serve(h http.Handler) http.Handler {
	limit := rt.opts.Listener.Limits.MaxBodyBytes
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if limit <= 0 || r.Body == nil || r.Body == http.NoBody || r.Header.Get("Upgrade") != "" ||
			(r.ContentLength >= 0 && r.ContentLength <= limit) {
			h.ServeHTTP(w, r)
			return
		}
		body, err := httpwire.ReadBody(w, r, limit)
		if err != nil {
			writeError(w, httpwire.BodyStatus(err), err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	})
}

// writeError answers with a JSON-RPC error object, as the host's chain
// routes do.
func writeError(w http.ResponseWriter, status int, err error) {
	jsonrpc.WriteHTTPError(w, status, jsonrpc.ServerError("%s", err.Error()))
}
