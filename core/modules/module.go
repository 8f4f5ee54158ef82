package modules

import (
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// Module is one configured REST module: an instance of a module plugin.
type Module struct {
	// Name is the module's name, also its logger and metrics label.
	Name string
	// Config is the module's entry of the node config.
	Config config.Module

	mu       sync.RWMutex
	plugin   *catalog.Module // nil until the plugin is installed
	prefixes []string        // from the config, else from the plugin once found
	routed   bool            // the node routes the prefixes to the module
	refused  error           // why the module may never start
	inst     *pluginhost.Instance
	reason   string       // why the module is not running, when inst is nil
	proxy    http.Handler // to inst's handler, built on first use
}

// Listen is the address of the module's own listener; "" for the node's
// main one.
func (m *Module) Listen() string { return m.Config.Listen }

// Prefixes returns the path prefixes the module serves: those of its
// config, else those its plugin declares; nil while its plugin is not
// installed and its config names none.
func (m *Module) Prefixes() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.prefixes)
}

// MessageArrayPrefixes returns the path prefixes under which the module's
// error bodies carry `message` as an array of strings, as its plugin
// describes them; nil while the plugin is not installed.
func (m *Module) MessageArrayPrefixes() []string {
	if p := m.Plugin(); p != nil {
		return p.Desc.MessageArrayPrefixes
	}
	return nil
}

// Plugin returns the module's plugin; nil while it is not installed.
func (m *Module) Plugin() *catalog.Module {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.plugin
}

// Instance returns the running plugin instance, or nil and why there is
// none.
func (m *Module) Instance() (*pluginhost.Instance, string) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.inst, m.reason
}

// Handler returns the module's route: it forwards every request, with its
// whole path and query, to the module's plugin, and answers with onError
// while the module is not running (503) or when the plugin fails.
func (m *Module) Handler(onError httpwire.ErrorWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		if m.inst == nil {
			reason := m.reason
			m.mu.Unlock()
			onError(w, r, http.StatusServiceUnavailable, fmt.Errorf("module %s is not running: %s", m.Name, reason))
			return
		}
		if m.proxy == nil {
			m.proxy = m.inst.Handler(pluginv1.ModuleHandler, onError)
		}
		h := m.proxy
		m.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// setPlugin records the installed plugin, and the prefixes it declares
// unless the config names the module's.
func (m *Module) setPlugin(p *catalog.Module) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.plugin = p
	if len(m.prefixes) == 0 {
		m.prefixes = slices.Clone(p.Desc.Prefixes)
	}
}

// refusal is why the module may never start; nil when it may.
func (m *Module) refusal() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.refused
}

func (m *Module) setInstance(inst *pluginhost.Instance) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inst, m.reason, m.proxy = inst, "", nil
}

func (m *Module) setNotRunning(reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inst, m.reason, m.proxy = nil, reason, nil
}
