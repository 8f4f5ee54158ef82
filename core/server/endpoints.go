package server

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/storage"
)

// AliasError is an endpoint alias the router refuses. Param names the
// admin.alias param at fault: "endpoint" or "alias".
type AliasError struct {
	Param string
	Msg   string
}

// Error returns the reason.
func (e *AliasError) Error() string { return e.Param + ": " + e.Msg }

// reservedRoute reports whether name is a first path segment after /ext/
// that the host routes itself, mounted or not: an alias never takes one,
// so that turning an API on later cannot be shadowed by an alias.
func reservedRoute(name string) bool {
	switch name {
	case "bc", "index", "admin", "info", "health", "metrics":
		return true
	}
	return false
}

// LoadEndpointAliases restores the endpoint aliases persisted in ns and
// persists the ones added later there. Call it once, before serving.
func (rt *Router) LoadEndpointAliases(ns *storage.Namespace) error {
	loaded := map[string]string{}
	err := ns.Iterate(nil, nil, func(k, v []byte) error {
		loaded[string(k)] = string(v)
		return nil
	})
	if err != nil {
		return fmt.Errorf("load endpoint aliases: %w", err)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.endpointNS = ns
	maps.Copy(rt.endpoints, loaded)
	return nil
}

// AliasEndpoint makes /ext/<alias>[/...] answer like /ext/<endpoint>[/...]
// from now on, for every request method and for WebSocket; the original
// path keeps working. endpoint is the part after /ext/ ("bc/C/rpc",
// "info"); an endpoint that is itself an alias is resolved first. The
// alias is persisted when LoadEndpointAliases gave a namespace. A refused
// alias is an *AliasError.
func (rt *Router) AliasEndpoint(endpoint, alias string) error {
	endpoint = strings.Trim(strings.TrimPrefix(endpoint, "/ext/"), "/")
	if err := aliases.Validate(alias); err != nil {
		return &AliasError{Param: "alias", Msg: err.Error()}
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if reservedRoute(alias) || rt.static[alias] != nil {
		return &AliasError{Param: "alias", Msg: fmt.Sprintf("alias %q would shadow the API at /ext/%s", alias, alias)}
	}
	if ep, ok := rt.endpoints[alias]; ok {
		return &AliasError{Param: "alias", Msg: fmt.Sprintf("alias %q is already used for endpoint %s", alias, ep)}
	}
	endpoint, err := rt.checkEndpointLocked(endpoint)
	if err != nil {
		return &AliasError{Param: "endpoint", Msg: err.Error()}
	}
	if rt.endpointNS != nil {
		if err := rt.endpointNS.Put([]byte(alias), []byte(endpoint)); err != nil {
			return fmt.Errorf("persist endpoint alias %q: %w", alias, err)
		}
	}
	rt.endpoints[alias] = endpoint
	return nil
}

// EndpointAliases returns the endpoint aliases: alias -> endpoint.
func (rt *Router) EndpointAliases() map[string]string {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return maps.Clone(rt.endpoints)
}

// checkEndpointLocked resolves an alias at the head of endpoint and checks
// that the endpoint is served; it returns the resolved endpoint. rt.mu is
// held.
func (rt *Router) checkEndpointLocked(endpoint string) (string, error) {
	if endpoint == "" {
		return "", fmt.Errorf("endpoint is empty: give the path after /ext/, like bc/<chain>/rpc or info")
	}
	if strings.ContainsAny(endpoint, "?#") {
		return "", fmt.Errorf("endpoint %q is not a path: it holds a query or fragment", endpoint)
	}
	head, tail, slash := strings.Cut(endpoint, "/")
	if ep, ok := rt.endpoints[head]; ok {
		endpoint = ep
		if slash {
			endpoint += "/" + tail
		}
		head, tail, _ = strings.Cut(endpoint, "/")
	}
	switch head {
	case "bc":
		return endpoint, rt.checkChainEndpoint(tail)
	case "index":
		return endpoint, rt.checkIndexEndpoint(tail)
	}
	if rt.static[head] == nil || tail != "" {
		return "", fmt.Errorf("no API at /ext/%s", endpoint)
	}
	return endpoint, nil
}

// checkChainEndpoint checks bc/<chain>[/<handler>[/...]]: the chain exists
// and, while it runs, has the handler. The handlers of a chain that is not
// running are not known, so any handler name is taken.
func (rt *Router) checkChainEndpoint(rest string) error {
	if rest == "" {
		return nil
	}
	name, rest, _ := strings.Cut(rest, "/")
	c, ok := rt.chains(name)
	if !ok {
		return fmt.Errorf("unknown chain %q", name)
	}
	handler, _, _ := strings.Cut(rest, "/")
	if hs := c.Handlers(); handler != "" && len(hs) > 0 && !slices.Contains(hs, handler) {
		return fmt.Errorf("chain %s has no handler %q; it serves %s", c.Name(), handler, strings.Join(hs, ", "))
	}
	return nil
}

// checkIndexEndpoint checks index/<chain>[/<kind>]: indexing is on, the
// chain exists and has the index kind.
func (rt *Router) checkIndexEndpoint(rest string) error {
	if rt.index == nil {
		return fmt.Errorf("the index API is off: start the node with --index-enabled=true")
	}
	if rest == "" {
		return nil
	}
	name, kind, _ := strings.Cut(rest, "/")
	if _, ok := rt.chains(name); !ok {
		return fmt.Errorf("unknown chain %q", name)
	}
	if kind == "" {
		return nil
	}
	_, _, err := rt.index(name, kind)
	return err
}

// rewriteAlias returns r addressed to the endpoint that head aliases, or r
// itself when head is a route or no alias. Routes win over aliases, so an
// API mounted after an alias was made is never shadowed by it. A head that
// is no endpoint alias but names a chain is the chain's endpoint, as in
// avalanchego (/ext/P is /ext/bc/P, where its wallets call the P-Chain).
func (rt *Router) rewriteAlias(r *http.Request, head string) *http.Request {
	if reservedRoute(head) {
		return r
	}
	rt.mu.RLock()
	_, mounted := rt.static[head]
	endpoint, ok := rt.endpoints[head]
	rt.mu.RUnlock()
	if mounted {
		return r
	}
	if !ok {
		if _, chain := rt.chains(head); !chain {
			return r
		}
		endpoint = "bc/" + head
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/ext/" + endpoint + strings.TrimPrefix(r.URL.Path, "/ext/"+head)
	r2.URL.RawPath = ""
	return r2
}
