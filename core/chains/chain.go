package chains

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// Chain is one configured chain: an instance of a VM plugin.
type Chain struct {
	ID     ids.ID
	Alias  string
	Config config.Chain
	// configVMID is the VM ID the config's vm gives (a CB58 VM ID, or
	// a name padded), until the VM is loaded.
	configVMID ids.ID

	// key is the chain's config key ("chains[2]"), for errors.
	key string
	// listener is the chain's own listening socket, when its config
	// names one; set by Manager.Listen before any start.
	listener *pluginhost.Listener

	mu       sync.RWMutex
	inst     Runtime
	vm       *catalog.VM // the VM it last started on; nil until then
	reason   string      // why the chain is not running, when inst is nil
	handlers map[handlerKey]http.Handler

	// indexMu guards backfilling; every append holds it shared, so setting
	// backfilling waits for the appends in flight.
	indexMu sync.RWMutex
	// backfilling is set while the host appends containers the index
	// lacks; the VM's own appends are refused meanwhile (see
	// Manager.backfillKind).
	backfilling bool
	// backfilled is set once a backfill of the chain's index has
	// completed in this run.
	backfilled atomic.Bool
}

// setBackfilling opens or closes the chain's index to the VM's appends;
// closing it waits for the appends in flight.
func (c *Chain) setBackfilling(on bool) {
	c.indexMu.Lock()
	defer c.indexMu.Unlock()
	c.backfilling = on
}

// IsLegacyIndexKind reports whether kind is one of the chain's read-only
// index kinds (legacy-index-kinds in its config): served from the history
// the index holds, never appended to.
func (c *Chain) IsLegacyIndexKind(kind string) bool {
	return slices.Contains(c.Config.LegacyIndexKinds, kind)
}

// IndexKinds lists the index kinds served for the chain: those its VM
// declares while it runs, then its legacy kinds.
func (c *Chain) IndexKinds() []string {
	var out []string
	if inst, _ := c.Instance(); inst != nil {
		out = inst.IndexKinds()
	}
	for _, k := range c.Config.LegacyIndexKinds {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Instance returns the running plugin instance, or nil and why there is none.
func (c *Chain) Instance() (Runtime, string) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.inst, c.reason
}

// VMName is the name of the VM the chain runs, as the plugin describes it
// once loaded, else as configured.
func (c *Chain) VMName() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.vm != nil {
		return c.vm.Desc.Name
	}
	return c.Config.VM
}

// VMVersion is the version of the VM as the chain's running plugin says
// it is (docs/plugins.md, "Protocol versions"); "" while it is not
// running, and for an avalanchego VM, which says none.
func (c *Chain) VMVersion() string {
	inst, _ := c.Instance()
	d, ok := inst.(interface{ Description() pluginv1.Description })
	if !ok {
		return ""
	}
	return d.Description().Version
}

// runs reports whether the chain's plugin runs vm's binary.
func (c *Chain) runs(vm *catalog.VM) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.inst != nil && c.vm == vm
}

// VMID is the ID of the VM the chain runs, as the plugin describes it
// once loaded (docs/decisions.md, "Identity"), else as the config gives it.
func (c *Chain) VMID() ids.ID {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.vm != nil {
		return c.vm.ID
	}
	return c.configVMID
}

func (c *Chain) setInstance(inst Runtime, vm *catalog.VM) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inst, c.vm, c.reason = inst, vm, ""
	c.handlers = map[handlerKey]http.Handler{}
}

func (c *Chain) setNotRunning(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inst, c.reason, c.handlers = nil, reason, nil
}

// ListenAddr is the address of the chain's own listener; "" when it has
// none.
func (c *Chain) ListenAddr() string {
	if c.listener == nil {
		return ""
	}
	return c.listener.Addr
}

// Name is the chain's primary alias.
func (c *Chain) Name() string { return c.Alias }

// Handlers lists the chain's public handler names; empty while it is not
// running.
func (c *Chain) Handlers() []string {
	inst, _ := c.Instance()
	if inst == nil {
		return nil
	}
	return inst.Handlers()
}

// Handler returns the proxy to the chain's public handler name. While the
// chain is not running, or for a handler it does not serve publicly, it
// answers with onError.
func (c *Chain) Handler(name string, onError httpwire.ErrorWriter) http.Handler {
	return c.handler(name, onError, false)
}

// handler is Handler; with internal, the chain's internal handlers are
// found too (for host chain calls).
func (c *Chain) handler(name string, onError httpwire.ErrorWriter, internal bool) http.Handler {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inst == nil {
		reason := c.reason
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			onError(w, r, http.StatusServiceUnavailable, fmt.Errorf("chain %s is not running: %s", c.Alias, reason))
		})
	}
	if !c.inst.Serves(name, internal) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			onError(w, r, http.StatusNotFound, notFound{fmt.Errorf("chain %s has no handler %q", c.Alias, name)})
		})
	}
	// A handler is made once per name and caller kind: the router and the
	// chain calls each always pass the same onError, and one kind's must
	// never answer the other's requests.
	key := handlerKey{name: name, internal: internal}
	h, ok := c.handlers[key]
	if !ok {
		h = c.inst.Handler(name, onError)
		c.handlers[key] = h
	}
	return h
}

// handlerKey names a cached handler: a handler name, for the router or
// for chain calls (internal).
type handlerKey struct {
	name     string
	internal bool
}

// HeaderHandler returns the chain's handler routed by the
// Avalanche-Api-Route header (an avalanchego VM's NewHTTPHandler,
// docs/rpcchainvm.md); ok is false when it has none.
func (c *Chain) HeaderHandler(onError httpwire.ErrorWriter) (h http.Handler, ok bool) {
	inst, _ := c.Instance()
	hr, is := inst.(interface {
		HeaderHandler(onError httpwire.ErrorWriter) (http.Handler, bool)
	})
	if !is {
		return nil, false
	}
	return hr.HeaderHandler(onError)
}
