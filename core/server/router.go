// Package server is the node's HTTP front: it routes /ext/... to the host's
// own APIs and to the chains' plugin handlers, resolving chain aliases and
// endpoint aliases at request time.
package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// IndexRoute returns the index API handler of a chain's kind, or an error
// when the chain has no such index.
type IndexRoute func(c *chains.Chain, kind string) (http.Handler, error)

// Router serves /ext/.... It is safe for concurrent use; endpoints may be
// added while it serves.
type Router struct {
	chains  *chains.Manager
	metrics *metrics.Metrics
	index   IndexRoute

	mu     sync.RWMutex
	static map[string]http.Handler // first path segment after /ext/ -> handler
	// endpoints maps an endpoint alias (a first path segment after /ext/)
	// to the endpoint it stands for; see AliasEndpoint.
	endpoints  map[string]string
	endpointNS *storage.Namespace // where new endpoint aliases persist; nil: not persisted
}

// NewRouter returns a router over the chains; index may be nil when
// indexing is off.
func NewRouter(cm *chains.Manager, m *metrics.Metrics, index IndexRoute) *Router {
	return &Router{chains: cm, metrics: m, index: index, static: map[string]http.Handler{}, endpoints: map[string]string{}}
}

// Handle serves an endpoint of the host at /ext/<name>, instrumented.
func (rt *Router) Handle(name string, h http.Handler) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.static[name] = rt.metrics.Instrument(name, h)
}

// ServeHTTP routes one request. A first segment that is an endpoint alias
// is replaced by its endpoint first.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/ext/")
	if !ok {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("no API at %s: APIs are served under /ext/", r.URL.Path))
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

// serveChain serves /ext/bc/<chain>/<handler>[/<path>].
func (rt *Router) serveChain(w http.ResponseWriter, r *http.Request, rest string) {
	name, rest, _ := strings.Cut(rest, "/")
	handler, sub, _ := strings.Cut(rest, "/")
	c, ok := rt.chains.Resolve(name)
	if !ok {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("unknown chain %q", name))
		return
	}
	if handler == "" {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("chain %s: no handler in path; it serves %v", c.Alias, c.Handlers()))
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
	route := "bc/" + c.Alias + "/" + handler
	if hs := c.Handlers(); hs != nil && !slices.Contains(hs, handler) {
		route = "bc/" + c.Alias + "/unknown" // a client's typo must not become a metric
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
	c, ok := rt.chains.Resolve(name)
	if !ok {
		WriteJSONRPCError(w, r, http.StatusNotFound, fmt.Errorf("unknown chain %q", name))
		return
	}
	h, err := rt.index(c, kind)
	if err != nil {
		WriteJSONRPCError(w, r, http.StatusNotFound, err)
		return
	}
	rt.metrics.Serve("index/"+c.Alias+"/"+kind, h, w, r)
}

// WriteJSONRPCError answers with a JSON-RPC error object (code -32000) and
// the given HTTP status, for routes that speak JSON-RPC.
func WriteJSONRPCError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string         `json:"jsonrpc"`
		Error   *jsonrpc.Error `json:"error"`
		ID      any            `json:"id"`
	}{"2.0", jsonrpc.ServerError("%s", err.Error()), nil})
}
