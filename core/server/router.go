// Package server is the node's HTTP front: it routes the path prefixes of
// REST modules to them, and /ext/... to the host's own APIs and to the
// chains' plugin handlers, resolving chain aliases and endpoint aliases at
// request time.
package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/transport/httpwire"
	"github.com/chainhost/chainhost/transport/route"
)

// Chain is what the router needs of a chain.
type Chain interface {
	// Name is the chain's primary alias, its label in metrics.
	Name() string
	// Handlers lists the public handler names; nil while the chain is not
	// running.
	Handlers() []string
	// Handler returns the route to a public handler; it answers through
	// onError while the chain cannot serve it.
	Handler(name string, onError httpwire.ErrorWriter) http.Handler
}

// HeaderRouted is a Chain that may serve requests routed to it by the
// HeaderRoute header, whatever their path.
type HeaderRouted interface {
	HeaderHandler(onError httpwire.ErrorWriter) (http.Handler, bool)
}

// HeaderRoute is the header that routes a request to a chain by its ID
// (or alias), whatever its path, as avalanchego routes it to a VM's
// NewHTTPHandler (docs/rpcchainvm.md).
const HeaderRoute = "Avalanche-Api-Route"

// ChainLookup finds a chain by alias or ID.
type ChainLookup func(name string) (Chain, bool)

// LookupOf adapts a resolver of a concrete chain type, like the chain
// manager's Resolve, to a ChainLookup.
func LookupOf[C Chain](resolve func(name string) (C, bool)) ChainLookup {
	return func(name string) (Chain, bool) {
		c, ok := resolve(name)
		return c, ok
	}
}

// IndexRoute returns the index API handler of a chain's kind and the
// chain's name for metrics, or an error when the node has no such index.
type IndexRoute func(chain, kind string) (h http.Handler, chainName string, err error)

// RouterOptions configures a Router.
type RouterOptions struct {
	Chains  ChainLookup
	Metrics *metrics.Metrics
	// Index is nil when indexing is off.
	Index IndexRoute
	// Modules are the REST modules' path prefixes on the main listener.
	Modules *Prefixes
}

// Router serves the main listener: module prefixes first, then /ext/....
// It is safe for concurrent use; endpoints may be added while it serves.
type Router struct {
	chains  ChainLookup
	metrics *metrics.Metrics
	index   IndexRoute
	modules *Prefixes

	mu     sync.RWMutex
	static map[string]http.Handler // first path segment after /ext/ -> handler
	// endpoints maps an endpoint alias (a first path segment after /ext/)
	// to the endpoint it stands for; see AliasEndpoint.
	endpoints  map[string]string
	endpointNS *storage.Namespace // where new endpoint aliases persist; nil: not persisted
}

// NewRouter returns a router.
func NewRouter(opts RouterOptions) *Router {
	modules := opts.Modules
	if modules == nil {
		modules = &Prefixes{}
	}
	return &Router{
		chains: opts.Chains, metrics: opts.Metrics, index: opts.Index, modules: modules,
		static: map[string]http.Handler{}, endpoints: map[string]string{},
	}
}

// Handle serves an endpoint of the host at /ext/<name>, instrumented.
func (rt *Router) Handle(name string, h http.Handler) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.static[name] = rt.metrics.Instrument(name, h)
}

// ServeHTTP routes one request: GET / to the home prefix when a module is
// the home page (Prefixes.AddHome), then to the module whose prefix it falls under,
// else below /ext/, where a first segment that is an endpoint alias is
// replaced by its endpoint first; anything else is a 404 in the REST
// error body. A path with a dot segment is a 400, before any routing.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := route.CheckSegments(r.URL.Path); err != nil {
		write := rt.modules.errorWriter(r.URL.Path)
		if r.URL.Path == "/ext" || strings.HasPrefix(r.URL.Path, "/ext/") {
			write = WriteJSONRPCError
		}
		write(w, r, http.StatusBadRequest, err)
		return
	}
	if names, ok := r.Header[HeaderRoute]; ok {
		rt.serveHeaderRoute(w, r, names)
		return
	}
	if rt.modules.serveHome(w, r) {
		return
	}
	if h, ok := rt.modules.Lookup(r.URL.Path); ok {
		h.ServeHTTP(w, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/ext/")
	if !ok {
		if r.URL.Path == "/ext" {
			WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("no API at /ext: APIs are served under /ext/"))
			return
		}
		WriteRESTError(w, r, http.StatusNotFound, rt.modules.noRoute(r.URL.Path))
		return
	}
	head, _, _ := strings.Cut(rest, "/")
	if r2 := rt.rewriteAlias(r, head); r2 != r {
		r = r2
		rest = strings.TrimPrefix(r.URL.Path, "/ext/")
	}
	head, tail, _ := strings.Cut(rest, "/")
	switch head {
	case "bc":
		rt.serveChain(w, r, tail)
		return
	case "index":
		rt.serveIndex(w, r, tail)
		return
	}
	rt.mu.RLock()
	h, ok := rt.static[head]
	rt.mu.RUnlock()
	if !ok || tail != "" {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("no API at %s", r.URL.Path))
		return
	}
	h.ServeHTTP(w, r)
}

// serveHeaderRoute serves a request to the chain its HeaderRoute names,
// as avalanchego does: an empty header is a 400, a chain without such a
// handler a 404.
func (rt *Router) serveHeaderRoute(w http.ResponseWriter, r *http.Request, names []string) {
	if len(names) == 0 || names[0] == "" {
		WriteJSONRPCError(w, r, http.StatusBadRequest, fmt.Errorf("%s names no chain", HeaderRoute))
		return
	}
	c, ok := rt.chains(names[0])
	if !ok {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("%s: unknown chain %q", HeaderRoute, names[0]))
		return
	}
	hr, ok := c.(HeaderRouted)
	var h http.Handler
	if ok {
		h, ok = hr.HeaderHandler(WriteJSONRPCError)
	}
	if !ok {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("%s: chain %s serves nothing routed by header", HeaderRoute, c.Name()))
		return
	}
	rt.metrics.Serve("bc/"+c.Name()+"/header", h, w, r)
}

// serveChain serves /ext/bc/<chain>/<handler>[/<path>].
func (rt *Router) serveChain(w http.ResponseWriter, r *http.Request, rest string) {
	name, rest, _ := strings.Cut(rest, "/")
	handler, sub, _ := strings.Cut(rest, "/")
	c, ok := rt.chains(name)
	if !ok {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("unknown chain %q", name))
		return
	}
	// A chain may serve a handler named "" at /ext/bc/<chain> itself, as
	// avalanchego's X-Chain does (docs/xvm.md). The handlers of a chain
	// that never ran are not known: its route says why it does not run.
	hs := c.Handlers()
	if handler == "" && hs != nil && !slices.Contains(hs, "") {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("chain %s: no handler in path; it serves %v", c.Name(), hs))
		return
	}
	// A shallow copy with its own URL: the handler sees the path below it,
	// and nothing else of the request needs copying.
	u := *r.URL
	u.Path, u.RawPath = "", ""
	if sub != "" {
		u.Path = "/" + sub
	}
	r2 := r.WithContext(r.Context())
	r2.URL = &u
	route := "bc/" + c.Name() + "/" + handler
	if hs != nil && !slices.Contains(hs, handler) {
		route = "bc/" + c.Name() + "/unknown" // a client's typo must not become a metric
	}
	rt.metrics.Serve(route, c.Handler(handler, WriteJSONRPCError), w, r2)
}

// serveIndex serves /ext/index/<chain>/<kind>.
func (rt *Router) serveIndex(w http.ResponseWriter, r *http.Request, rest string) {
	name, kind, _ := strings.Cut(rest, "/")
	if rt.index == nil {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("the index API is off: start the node with --index-enabled=true"))
		return
	}
	h, chain, err := rt.index(name, kind)
	if err != nil {
		WriteJSONRPCError(w, r, http.StatusNotFound, err)
		return
	}
	rt.metrics.Serve("index/"+chain+"/"+kind, h, w, r)
}
