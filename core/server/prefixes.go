package server

import (
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/chainhost/chainhost/transport/httpwire"
	"github.com/chainhost/chainhost/transport/route"
)

// Prefixes routes URL path prefixes to REST modules (docs/modules.md). A
// path goes to the most specific prefix it falls under (route.MoreSpecific:
// a literal segment beats a wildcard, longer beats shorter), so prefixes
// may nest, but no two match the same paths. It is safe for concurrent
// use; modules may be mounted while it serves.
type Prefixes struct {
	mu     sync.RWMutex
	routes []prefixRoute
	homes  []Home // where GET / may redirect, first first
}

// prefixRoute is one mounted prefix.
type prefixRoute struct {
	prefix  string
	module  string
	h       http.Handler
	onError httpwire.ErrorWriter
}

// Mount routes each of prefixes to h, for the module called module;
// onError writes the errors the host answers on them before h (a path
// with a dot segment). It mounts all of them or none: a prefix that
// matches the same paths as another module's (equal but for the names of
// wildcards) is refused with an error naming both modules.
func (p *Prefixes) Mount(module string, prefixes []string, h http.Handler, onError httpwire.ErrorWriter) error {
	if len(prefixes) == 0 {
		return fmt.Errorf("module %s: no path prefixes to serve (set prefixes in its config)", module)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, prefix := range prefixes {
		if err := route.CheckPrefix(prefix); err != nil {
			return fmt.Errorf("module %s: %w", module, err)
		}
		for _, other := range prefixes[:i] {
			if route.SamePaths(prefix, other) {
				return fmt.Errorf("module %s: path prefixes %s and %s match the same paths", module, other, prefix)
			}
		}
		for _, r := range p.routes {
			if route.SamePaths(prefix, r.prefix) {
				return fmt.Errorf("modules %s and %s both claim path prefix %s (%s claims %s)", r.module, module, prefix, r.module, r.prefix)
			}
		}
	}
	for _, prefix := range prefixes {
		p.routes = append(p.routes, prefixRoute{prefix: prefix, module: module, h: h, onError: onError})
	}
	return nil
}

// Home says where GET / redirects: the first prefix of a module that
// serves pages for people (its plugin's describe says home). ok is false
// while it does not (its plugin not installed yet, or not a home page).
type Home func() (prefix string, ok bool)

// AddHome adds a module that may be the listener's home page; GET /
// redirects to the first added that is one when asked. It is asked on
// each request, so a module whose plugin a hot-load installs becomes home
// then.
func (p *Prefixes) AddHome(h Home) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.homes = append(p.homes, h)
}

// home returns the home prefix; "" when no module is the home page.
func (p *Prefixes) home() string {
	p.mu.RLock()
	homes := p.homes
	p.mu.RUnlock()
	for _, h := range homes {
		if prefix, ok := h(); ok {
			return prefix
		}
	}
	return ""
}

// serveHome redirects GET and HEAD / to the home prefix, keeping the
// query; it reports false when it did not answer.
func (p *Prefixes) serveHome(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "/" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	home := p.home()
	if home == "" {
		return false
	}
	target := home + "/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusFound)
	return true
}

// Lookup returns the handler of the most specific prefix path falls
// under.
func (p *Prefixes) Lookup(path string) (http.Handler, bool) {
	r, ok := p.route(path)
	return r.h, ok
}

// route returns the route of the most specific prefix path falls under.
func (p *Prefixes) route(path string) (prefixRoute, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	var (
		best  prefixRoute
		found bool
	)
	for _, r := range p.routes {
		if route.PrefixMatches(r.prefix, path) && (!found || route.MoreSpecific(r.prefix, best.prefix)) {
			best, found = r, true
		}
	}
	return best, found
}

// errorWriter returns the writer of the host's errors on path: its
// module's, or WriteRESTError outside every prefix.
func (p *Prefixes) errorWriter(path string) httpwire.ErrorWriter {
	if r, ok := p.route(path); ok && r.onError != nil {
		return r.onError
	}
	return WriteRESTError
}

// List returns the mounted prefixes, sorted.
func (p *Prefixes) List() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]string, len(p.routes))
	for i, r := range p.routes {
		out[i] = r.prefix
	}
	slices.Sort(out)
	return out
}

// ServeHTTP serves a listener of REST modules alone: a path outside every
// prefix gets a 404 in the REST error body, one with a dot segment a 400;
// / redirects to the home prefix when a module is the home page.
func (p *Prefixes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := route.CheckSegments(r.URL.Path); err != nil {
		p.errorWriter(r.URL.Path)(w, r, http.StatusBadRequest, err)
		return
	}
	if p.serveHome(w, r) {
		return
	}
	if h, ok := p.Lookup(r.URL.Path); ok {
		h.ServeHTTP(w, r)
		return
	}
	WriteRESTError(w, r, http.StatusNotFound, p.noRoute(r.URL.Path))
}

// noRoute is the error of a path no module serves.
func (p *Prefixes) noRoute(path string) error {
	if list := p.List(); len(list) > 0 {
		return fmt.Errorf("no route for %s (this listener serves %v)", path, list)
	}
	return fmt.Errorf("no route for %s", path)
}
