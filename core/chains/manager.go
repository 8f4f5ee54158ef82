// Package chains runs the node's chains: one VM plugin process per chain,
// with its host services, index backfill and restart supervision.
package chains

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/exposure"
	"github.com/chainhost/chainhost/core/index"
	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/core/sharedmemory"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/httpserve"
)

// Options configures a Manager.
type Options struct {
	Config  *config.Config
	DB      *storage.DB
	Indexes *index.Indexes // nil when indexing is disabled
	Aliases *aliases.Chains
	Plugins *catalog.Catalog
	Logs    *logging.Registry
	Metrics *metrics.Metrics
	Log     hclog.Logger
	// OnIndexComplete, if set, is called once, when every chain has
	// backfilled its index from its VM in this run (see backfill).
	OnIndexComplete func()

	// SharedMemory is the host's shared memory; nil: the chains get none
	// (their batches with shared-memory requests are refused).
	SharedMemory *sharedmemory.Memory
	// SocketDir is where the chains' plugins get their data sockets
	// (pluginhost.Options.SocketDir); empty keeps requests on gRPC.
	SocketDir string
}

// Manager owns the configured chains.
type Manager struct {
	opts   Options
	chains []*Chain
	byID   map[ids.ID]*Chain
	// startMu serialises starts, so a hot-load and a start-up never start
	// the same chain twice.
	startMu sync.Mutex
	// indexComplete runs OnIndexComplete once.
	indexComplete sync.Once
	// events reaches the chain registry's watchers.
	events host.ChainEvents
	// avalanche is what the avalanchego VM plugins share.
	avalanche avalanche
}

// New registers the configured, enabled chains and their aliases. Nothing
// starts until Start.
func New(opts Options) (*Manager, error) {
	m := &Manager{opts: opts, byID: map[ids.ID]*Chain{}}
	for i, cc := range opts.Config.Chains {
		if !cc.IsEnabled() {
			continue
		}
		c, err := newChain(cc)
		if err != nil {
			return nil, err
		}
		c.key = fmt.Sprintf("chains[%d]", i)
		if other, dup := m.byID[c.ID]; dup {
			if cc.ID != "" || other.Config.ID != "" {
				return nil, fmt.Errorf("chain %s: its ID %s is already chain %s's", c.Alias, c.ID, other.Alias)
			}
			return nil, fmt.Errorf("chain %s: same VM and genesis as another chain with the same alias", c.Alias)
		}
		for _, a := range append([]string{cc.Alias}, cc.Aliases...) {
			replaced, err := opts.Aliases.Register(c.ID, a, false)
			if err != nil {
				return nil, fmt.Errorf("chain %s: %w", cc.Alias, err)
			}
			if replaced != nil {
				opts.Log.Warn("a config alias replaces an alias stored for another chain",
					"alias", a, "chain", cc.Alias, "was", replaced.String())
			}
		}
		m.chains = append(m.chains, c)
		m.byID[c.ID] = c
	}
	if err := m.checkRecorded(); err != nil {
		return nil, err
	}
	return m, nil
}

// newChain gives a chain the ID its config names or, without one, the ID
// derived from its VM, genesis and alias.
func newChain(cc config.Chain) (*Chain, error) {
	genesis, err := cc.GenesisBytes()
	if err != nil {
		return nil, fmt.Errorf("chain %s: %w", cc.Alias, err)
	}
	vmID, err := ids.FromString(cc.VM)
	if err != nil {
		if vmID, err = ids.FromName(cc.VM); err != nil {
			return nil, fmt.Errorf("chain %s: vm %q: %w", cc.Alias, cc.VM, err)
		}
	}
	id := ids.Derive([]byte("chainhost/chain"), vmID[:], genesis, []byte(cc.Alias))
	if cc.ID != "" {
		if id, err = ids.FromString(cc.ID); err != nil {
			return nil, fmt.Errorf("chain %s: id %q: %w", cc.Alias, cc.ID, err)
		}
	}
	c := &Chain{ID: id, Alias: cc.Alias, configVMID: vmID, Config: cc}
	c.setNotRunning("not started yet")
	return c, nil
}

// Chains returns the chains in config order.
func (m *Manager) Chains() []*Chain { return m.chains }

// Resolve finds a chain by alias or ID.
func (m *Manager) Resolve(s string) (*Chain, bool) {
	id, ok := m.opts.Aliases.Resolve(s)
	if !ok {
		return nil, false
	}
	c, ok := m.byID[id]
	return c, ok
}

// StartPending starts every chain that is not running and whose VM is
// installed; a chain whose VM is missing waits for admin.loadVMs. It returns
// the chains it started and, joined, the *exposure.RefusedError of each
// chain that may not be served where it is listened for (those are not
// running either, and say why).
func (m *Manager) StartPending(ctx context.Context) ([]*Chain, error) {
	m.startMu.Lock()
	defer m.startMu.Unlock()
	var started []*Chain
	var refusals []error
	for _, c := range m.startOrder() {
		if inst, _ := c.Instance(); inst != nil {
			continue
		}
		vm, ok := m.opts.Plugins.LookupVM(c.Config.VM)
		if !ok {
			c.setNotRunning(fmt.Sprintf("VM %q is not installed in %s (install it, then call admin.loadVMs)", c.Config.VM, m.opts.Plugins.Dir()))
			m.opts.Log.Warn("chain waits for its VM", "chain", c.Alias, "vm", c.Config.VM)
			continue
		}
		start := m.start
		if vm.RPCChainVM {
			start = m.startRPCChainVM
		}
		if err := start(ctx, c, vm); err != nil {
			var refused *exposure.RefusedError
			if errors.As(err, &refused) {
				err = refused // its message is whole; the steps it came through add nothing
				refusals = append(refusals, refused)
			}
			c.setNotRunning(err.Error())
			m.opts.Log.Error("chain failed to start", "chain", c.Alias, "error", err)
			continue
		}
		started = append(started, c)
	}
	return started, errors.Join(refusals...)
}

// startOrder lists the chains in config order, those of avalanchego VM
// plugins last: their VMs ask the P-Chain for validators as they start.
func (m *Manager) startOrder() []*Chain {
	var own, avalanche []*Chain
	for _, c := range m.chains {
		if vm, ok := m.opts.Plugins.LookupVM(c.Config.VM); ok && vm.RPCChainVM {
			avalanche = append(avalanche, c)
		} else {
			own = append(own, c)
		}
	}
	return append(own, avalanche...)
}

// listeners are the addresses c is served on: the main listener's host
// and the chain's own listen, each with the key that sets it.
func (m *Manager) listeners(c *Chain) []exposure.Listener {
	out := []exposure.Listener{{Addr: m.opts.Config.HTTPHost, Key: "http-host"}}
	if c.Config.Listen != "" {
		out = append(out, exposure.Listener{Addr: c.Config.Listen, Key: c.key + ".listen"})
	}
	return out
}

// admit lets c be served where it is listened for, unless it declares
// unsafe APIs the operator has not allowed on a listener beyond loopback.
func (m *Manager) admit(c *Chain, unsafeAPIs []string) error {
	leave, err := exposure.Check(c.Alias, unsafeAPIs, m.listeners(c), m.opts.Config.HTTPAllowUnsafeAPIs)
	if err != nil {
		return err
	}
	if len(leave) > 0 {
		m.opts.Log.Warn("serving APIs unsafe in public beyond loopback, as "+exposure.Flag+" allows",
			"chain", c.Alias, "apis", leave)
	}
	return nil
}

func (m *Manager) start(ctx context.Context, c *Chain, vm *catalog.VM) error {
	genesis, err := c.Config.GenesisJSON()
	if err != nil {
		return err
	}
	chainCfg, err := c.Config.ConfigJSON()
	if err != nil {
		return err
	}
	bootstrap := time.Now()
	opts, err := pluginhost.NodeOptions(m.opts.Config, m.opts.Logs, m.opts.SocketDir, vm.Path, vm.Exec, pluginhost.Init{
		Kind:          pluginv1.KindVM,
		ChainID:       c.ID,
		Name:          c.Alias,
		Aliases:       m.opts.Aliases.Aliases(c.ID),
		Genesis:       genesis,
		Config:        chainCfg,
		DataDir:       filepath.Join(m.opts.Config.DataDir, "chains", c.ID.String()),
		BootstrapTime: bootstrap,
		Listener:      c.listener,
	})
	if err != nil {
		return err
	}
	state := m.opts.DB.Namespace(statesNS).Namespace(c.ID.String())
	opts.Services = host.Services{
		DB:     database{db: m.opts.DB, ns: state},
		Index:  chainIndex{m: m, chain: c, state: state},
		Chains: registry{m: m},
		Calls:  caller{m: m},
	}
	if m.opts.SharedMemory != nil {
		opts.Services.SharedMemory = chainSharedMemory{m: m, chain: c}
	}
	opts.Admit = func(unsafeAPIs []string) error { return m.admit(c, unsafeAPIs) }
	opts.OnStart = func(ctx context.Context, inst *pluginhost.Instance) error {
		return m.backfill(ctx, c, inst, bootstrap)
	}
	opts.OnStateChange = m.onStateChange(c)
	inst, err := pluginhost.Start(ctx, opts)
	if err != nil {
		return fmt.Errorf("start VM %s: %w", vm.Desc.Name, err)
	}
	c.setInstance(inst, vm)
	m.publish(c, pluginhost.Running)
	m.opts.Log.Info("chain started", "chain", c.Alias, "id", c.ID, "vm", vm.Desc.Name, "version", inst.Description().Version,
		"sha256", vm.SHA256, "handlers", inst.Handlers())
	return nil
}

// UpgradeVM restarts the chains that run u.Old on u.New, over their state
// (docs/plugins.md, "Upgrades in place"), and returns them. If one fails
// to start on u.New, each of them is restarted on u.Old again, and the
// error says why.
func (m *Manager) UpgradeVM(ctx context.Context, u catalog.Upgrade[*catalog.VM]) ([]*Chain, error) {
	m.startMu.Lock()
	defer m.startMu.Unlock()
	var on []*Chain
	for _, c := range m.chains {
		if c.runs(u.Old) {
			on = append(on, c)
		}
	}
	var err error
	for _, c := range on {
		if err = m.restart(ctx, c, u.New); err != nil {
			err = fmt.Errorf("chain %s: %w", c.Alias, err)
			break
		}
	}
	if err == nil {
		return on, nil
	}
	for _, c := range on {
		if c.runs(u.Old) { // not reached
			continue
		}
		if rerr := m.restart(ctx, c, u.Old); rerr != nil {
			m.opts.Log.Error("chain failed to start again on its VM's previous binary", "chain", c.Alias, "error", rerr)
		}
	}
	return nil, err
}

// restart stops c's plugin, if it runs, and starts c on vm; a chain that
// fails to start is left not running, saying why.
func (m *Manager) restart(ctx context.Context, c *Chain, vm *catalog.VM) error {
	if inst, _ := c.Instance(); inst != nil {
		if err := inst.Stop(ctx); err != nil {
			m.opts.Log.Warn("chain plugin did not stop cleanly", "chain", c.Alias, "error", err)
		}
		c.setNotRunning(fmt.Sprintf("restarting on VM %s's binary sha256 %s", vm.Desc.Name, vm.SHA256))
	}
	start := m.start
	if vm.RPCChainVM {
		start = m.startRPCChainVM
	}
	if err := start(ctx, c, vm); err != nil {
		c.setNotRunning(err.Error())
		return err
	}
	return nil
}

// onStateChange is what the host does when c's plugin changes state: the
// plugin metrics, a log line when it went down, and the registry's
// watchers told.
func (m *Manager) onStateChange(c *Chain) func(s pluginhost.State, reason string) {
	return func(s pluginhost.State, reason string) {
		m.opts.Metrics.PluginUp(c.Alias, s == pluginhost.Running)
		if s == pluginhost.Down {
			m.opts.Metrics.PluginRestarted(c.Alias)
			m.opts.Log.Warn("chain plugin down, restarting", "chain", c.Alias, "reason", reason)
		}
		// The first start is told by the start, once the chain has its
		// instance; this tells the restarts and the stops.
		if inst, _ := c.Instance(); inst != nil {
			m.publish(c, s)
		}
	}
}

// publish tells the registry's watchers that c's plugin is now in state s:
// started when running, stopped when down or stopped.
func (m *Manager) publish(c *Chain, s pluginhost.State) {
	kind := host.ChainStopped
	switch s {
	case pluginhost.Running:
		kind = host.ChainStarted
	case pluginhost.Starting:
		return
	}
	m.events.Publish(host.ChainEvent{Kind: kind, Chain: m.info(c)})
}

// backfillBatch is how many containers a backfill appends per write.
const backfillBatch = 256

// acceptedSource is what a backfill reads from a chain's VM (a
// *pluginhost.Instance): its index kinds and the containers it accepted.
type acceptedSource interface {
	IndexKinds() []string
	AcceptedCount(ctx context.Context, kind string) (uint64, error)
	GetAccepted(ctx context.Context, kind string, position uint64) (host.Container, error)
}

// backfill appends to the index the containers the VM accepted but the
// index lacks (a crash between the VM's commit and the index write, or a
// run with indexing off), for every kind the VM declares except the
// chain's legacy kinds. They carry the time the chain bootstrapped
// (docs/index.md, "When containers are stamped"). Once every chain has been backfilled in this run,
// OnIndexComplete is called.
func (m *Manager) backfill(ctx context.Context, c *Chain, vm acceptedSource, bootstrap time.Time) error {
	if m.opts.Indexes == nil {
		return nil
	}
	if err := m.backfillKinds(ctx, c, vm, bootstrap); err != nil {
		return err
	}
	c.backfilled.Store(true)
	for _, other := range m.chains {
		if !other.backfilled.Load() {
			return nil
		}
	}
	if m.opts.OnIndexComplete != nil {
		m.indexComplete.Do(m.opts.OnIndexComplete)
	}
	return nil
}

// backfillKinds backfills each kind of c's VM.
func (m *Manager) backfillKinds(ctx context.Context, c *Chain, vm acceptedSource, bootstrap time.Time) error {
	for _, kind := range vm.IndexKinds() {
		if c.IsLegacyIndexKind(kind) {
			m.opts.Log.Warn("the VM declares an index kind the chain config lists as legacy; it stays read-only",
				"chain", c.Alias, "kind", kind)
			continue
		}
		if err := m.backfillKind(ctx, c, vm, kind, bootstrap); err != nil {
			return fmt.Errorf("backfill %s/%s: %w", c.Alias, kind, err)
		}
	}
	return nil
}

// backfillKind appends the containers of kind from the index's length to
// the VM's accepted count, backfillBatch per atomic write. While it
// appends, the VM's own appends are refused (chainIndex.Accept), so none
// lands among the backfilled ones; when the index is not behind, which is
// the usual case, they are never refused.
func (m *Manager) backfillKind(ctx context.Context, c *Chain, vm acceptedSource, kind string, bootstrap time.Time) error {
	ix := m.opts.Indexes.Index(c.ID, kind)
	behind := func() (have, count uint64, err error) {
		if count, err = vm.AcceptedCount(ctx, kind); err != nil {
			return 0, 0, fmt.Errorf("accepted count: %w", err)
		}
		if have, err = ix.Len(); err != nil {
			return 0, 0, err
		}
		if have > count {
			m.opts.Log.Warn("index is ahead of the VM: the VM lost accepted state", "chain", c.Alias, "kind", kind, "index", have, "vm", count)
		}
		return have, count, nil
	}
	if have, count, err := behind(); err != nil || have >= count {
		return err
	}
	// Close the index to the VM's appends (waiting for those in flight),
	// then look again: an append may have landed meanwhile.
	c.setBackfilling(true)
	defer c.setBackfilling(false)
	have, count, err := behind()
	if err != nil || have >= count {
		return err
	}
	m.opts.Log.Info("backfilling index", "chain", c.Alias, "kind", kind, "from", have, "to", count)
	entries := make([]index.Entry, 0, min(backfillBatch, count-have))
	for pos := have; pos < count; {
		entries = entries[:0]
		for k := range min(backfillBatch, count-pos) {
			ct, err := vm.GetAccepted(ctx, kind, pos+k)
			if err != nil {
				return fmt.Errorf("container %d: %w", pos+k, err)
			}
			entries = append(entries, index.Entry{ID: ct.ID, Bytes: ct.Bytes, Timestamp: bootstrap})
		}
		if _, err := ix.AcceptMany(entries, nil); err != nil {
			return fmt.Errorf("append containers %d to %d: %w", pos, pos+uint64(len(entries))-1, err)
		}
		before := pos
		pos += uint64(len(entries))
		if pos/10000 != before/10000 && pos < count {
			m.opts.Log.Info("backfilling index", "chain", c.Alias, "kind", kind, "at", pos, "of", count)
		}
	}
	m.opts.Log.Info("index backfilled", "chain", c.Alias, "kind", kind, "containers", count-have)
	return nil
}

// Listen binds the chains' own listeners (listen in their config), before
// any chain starts: each chain's plugin gets its socket at every start.
// An address that cannot be bound stops start-up, naming the key; what was
// bound is closed again.
func (m *Manager) Listen() error {
	for _, c := range m.chains {
		if c.Config.Listen == "" {
			continue
		}
		l, err := bind(c.Config.Listen, m.opts.Config.HTTPLimits())
		if err != nil {
			m.closeListeners()
			return fmt.Errorf("config: %s.listen: chain %s: %w", c.key, c.Alias, err)
		}
		c.listener = l
	}
	return nil
}

// bind opens a listening socket on addr and returns it as a file to hand
// to a plugin process. The host never accepts on it: while no process
// serves it, connections wait in its backlog.
func bind(addr string, limits httpserve.Limits) (*pluginhost.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err // net's error names the address
	}
	defer ln.Close() // the file is a copy of the socket, which stays open
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return &pluginhost.Listener{File: f, Addr: ln.Addr().String(), Limits: limits}, nil
}

// closeListeners closes the chains' own listeners.
func (m *Manager) closeListeners() {
	for _, c := range m.chains {
		if c.listener != nil {
			_ = c.listener.File.Close()
			c.listener = nil
		}
	}
}

// Stop stops every chain's plugin, in reverse order, then closes the
// chains' own listeners.
func (m *Manager) Stop(ctx context.Context) error {
	defer m.closeListeners()
	var errs []error
	for i := len(m.chains) - 1; i >= 0; i-- {
		c := m.chains[i]
		inst, _ := c.Instance()
		if inst == nil {
			continue
		}
		if err := inst.Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop chain %s: %w", c.Alias, err))
		}
		c.setNotRunning("stopped")
	}
	return errors.Join(errs...)
}

// infos describes every chain for the chain registry host service.
func (m *Manager) infos() []host.ChainInfo {
	out := make([]host.ChainInfo, 0, len(m.chains))
	for _, c := range m.chains {
		out = append(out, m.info(c))
	}
	return out
}

// info describes a chain for the chain registry host service.
func (m *Manager) info(c *Chain) host.ChainInfo {
	inst, _ := c.Instance()
	ci := host.ChainInfo{ID: c.ID, VMID: c.VMID(), VMName: c.VMName(), Aliases: m.opts.Aliases.Aliases(c.ID)}
	if inst != nil {
		state, _ := inst.State()
		ci.Running = state == pluginhost.Running
		ci.IndexKinds = inst.IndexKinds()
		ci.Handlers = inst.Handlers()
		ci.InternalHandlers = inst.InternalHandlers()
	}
	return ci
}
