// Package modules runs the node's REST API modules: one plugin process per
// enabled module, with its own data directory, logger, host services and
// restart supervision, beside the chains it reads (docs/modules.md).
package modules

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/proto/pluginv1"
)

// Options configures a Manager.
type Options struct {
	Config  *config.Config
	DB      *storage.DB
	Chains  *chains.Manager // gives modules their view of the chains
	Plugins *catalog.Catalog
	Logs    *logging.Registry
	Metrics *metrics.Metrics
	Log     hclog.Logger
	// SocketDir is where the modules' plugins get their data sockets
	// (pluginhost.Options.SocketDir); empty keeps requests on gRPC.
	SocketDir string
}

// Manager owns the configured, enabled modules.
type Manager struct {
	opts    Options
	modules []*Module
	// startMu serialises finding plugins and starting modules, so that a
	// hot-load and a start-up never start a module twice.
	startMu sync.Mutex
}

// New registers the enabled modules of the config; nothing starts until
// StartPending.
func New(opts Options) *Manager {
	m := &Manager{opts: opts}
	for _, mc := range opts.Config.Modules {
		if !mc.IsEnabled() {
			continue
		}
		mod := &Module{Name: mc.Name, Config: mc, prefixes: slices.Clone(mc.Prefixes)}
		mod.setNotRunning("not started yet")
		m.modules = append(m.modules, mod)
	}
	return m
}

// Modules returns the enabled modules in config order.
func (m *Manager) Modules() []*Module { return m.modules }

// FindPlugins looks up the plugin of every module that has none yet. A
// module whose plugin is not installed waits for admin.loadVMs.
func (m *Manager) FindPlugins() {
	m.startMu.Lock()
	defer m.startMu.Unlock()
	for _, mod := range m.modules {
		if mod.Plugin() != nil || mod.refusal() != nil {
			continue
		}
		p, ok := m.opts.Plugins.LookupModule(mod.Config.PluginName())
		if !ok {
			why := fmt.Sprintf("module plugin %q is not installed in %s (install it, then call admin.loadVMs)",
				mod.Config.PluginName(), m.opts.Plugins.Dir())
			if len(mod.Prefixes()) == 0 {
				// Only the plugin's describe declares them (docs/modules.md).
				why += "; its config names no prefixes, so its paths answer 404 until then"
			}
			mod.setNotRunning(why)
			m.opts.Log.Warn("module waits for its plugin", "module", mod.Name, "plugin", mod.Config.PluginName(), "why", why)
			continue
		}
		mod.setPlugin(p)
	}
}

// ToRoute returns the modules whose prefixes are known (from their config,
// or from their plugin once found) and that the node does not route yet,
// and marks them routed: the node routes them before StartPending starts
// them, and a module that waits for its plugin answers 503 on them.
func (m *Manager) ToRoute() []*Module {
	m.startMu.Lock()
	defer m.startMu.Unlock()
	var out []*Module
	for _, mod := range m.modules {
		mod.mu.Lock()
		if !mod.routed && len(mod.prefixes) > 0 && mod.refused == nil {
			mod.routed = true
			out = append(out, mod)
		}
		mod.mu.Unlock()
	}
	return out
}

// Refuse keeps a module from ever starting, for why (a route the node
// could not give it); its routes, if any, answer 503 with why.
func (m *Manager) Refuse(mod *Module, why error) {
	m.startMu.Lock()
	defer m.startMu.Unlock()
	mod.setNotRunning(why.Error())
	mod.mu.Lock()
	mod.refused = why
	mod.mu.Unlock()
	m.opts.Log.Error("module refused", "module", mod.Name, "error", why)
}

// StartPending starts every module that has found its plugin and is not
// running, and returns those it started. A module that fails to start is
// logged and left not running, its routes answering 503 with why.
func (m *Manager) StartPending(ctx context.Context) []*Module {
	m.startMu.Lock()
	defer m.startMu.Unlock()
	var started []*Module
	for _, mod := range m.modules {
		if inst, _ := mod.Instance(); inst != nil || mod.Plugin() == nil || mod.refusal() != nil {
			continue
		}
		if err := m.start(ctx, mod); err != nil {
			mod.setNotRunning(err.Error())
			m.opts.Log.Error("module failed to start", "module", mod.Name, "error", err)
			continue
		}
		started = append(started, mod)
	}
	return started
}

func (m *Manager) start(ctx context.Context, mod *Module) error {
	p := mod.Plugin()
	modCfg, err := mod.Config.ConfigJSON()
	if err != nil {
		return err
	}
	opts, err := pluginhost.NodeOptions(m.opts.Config, m.opts.Logs, m.opts.SocketDir, p.Path, p.Exec, pluginhost.Init{
		Kind:     pluginv1.KindModule,
		Name:     mod.Name,
		Config:   modCfg,
		DataDir:  filepath.Join(m.opts.Config.DataDir, "modules", mod.Name),
		Prefixes: mod.Prefixes(),
	})
	if err != nil {
		return err
	}
	opts.Services = m.opts.Chains.ReaderServices(mod.Name, m.opts.DB.Namespace("modules").Namespace(mod.Name))
	opts.OnStateChange = func(s pluginhost.State, reason string) {
		m.opts.Metrics.PluginUp(mod.Name, s == pluginhost.Running)
		if s == pluginhost.Down {
			m.opts.Metrics.PluginRestarted(mod.Name)
			m.opts.Log.Warn("module plugin down, restarting", "module", mod.Name, "reason", reason)
		}
	}
	inst, err := pluginhost.Start(ctx, opts)
	if err != nil {
		return fmt.Errorf("start module plugin %s: %w", p.Desc.Name, err)
	}
	mod.setInstance(inst)
	m.opts.Log.Info("module started", "module", mod.Name, "plugin", p.Desc.Name, "version", inst.Description().Version,
		"sha256", p.SHA256, "prefixes", mod.Prefixes(), "listen", mod.Listen())
	return nil
}

// UpgradeModule restarts the modules that run u.Old on u.New (docs/plugins.md,
// "Upgrades in place"), and returns their names; a module of u.Old that
// does not run will start on u.New. If one fails to start on u.New, each
// of them is restarted on u.Old again, and the error says why.
func (m *Manager) UpgradeModule(ctx context.Context, u catalog.Upgrade[*catalog.Module]) ([]string, error) {
	m.startMu.Lock()
	defer m.startMu.Unlock()
	var on, idle []*Module
	for _, mod := range m.modules {
		if mod.Plugin() != u.Old {
			continue
		}
		if inst, _ := mod.Instance(); inst != nil {
			on = append(on, mod)
		} else {
			idle = append(idle, mod)
		}
	}
	var err error
	for _, mod := range on {
		if err = m.restart(ctx, mod, u.New); err != nil {
			err = fmt.Errorf("module %s: %w", mod.Name, err)
			break
		}
	}
	if err != nil {
		for _, mod := range on {
			if inst, _ := mod.Instance(); inst != nil && mod.Plugin() == u.Old { // not reached
				continue
			}
			if rerr := m.restart(ctx, mod, u.Old); rerr != nil {
				m.opts.Log.Error("module failed to start again on its plugin's previous binary", "module", mod.Name, "error", rerr)
			}
		}
		return nil, err
	}
	names := make([]string, 0, len(on))
	for _, mod := range on {
		names = append(names, mod.Name)
	}
	for _, mod := range idle {
		mod.setPlugin(u.New)
	}
	return names, nil
}

// restart stops mod's plugin, if it runs, and starts mod on p; a module
// that fails to start is left not running, saying why.
func (m *Manager) restart(ctx context.Context, mod *Module, p *catalog.Module) error {
	if inst, _ := mod.Instance(); inst != nil {
		if err := inst.Stop(ctx); err != nil {
			m.opts.Log.Warn("module plugin did not stop cleanly", "module", mod.Name, "error", err)
		}
		mod.setNotRunning(fmt.Sprintf("restarting on plugin %s's binary sha256 %s", p.Desc.Name, p.SHA256))
	}
	mod.setPlugin(p)
	if err := m.start(ctx, mod); err != nil {
		mod.setNotRunning(err.Error())
		return err
	}
	return nil
}

// Stop stops every module's plugin, in reverse order. The node stops the
// modules before the chains they read.
func (m *Manager) Stop(ctx context.Context) error {
	var errs []error
	for i := len(m.modules) - 1; i >= 0; i-- {
		mod := m.modules[i]
		inst, _ := mod.Instance()
		if inst == nil {
			continue
		}
		if err := inst.Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop module %s: %w", mod.Name, err))
		}
		mod.setNotRunning("stopped")
	}
	return errors.Join(errs...)
}
