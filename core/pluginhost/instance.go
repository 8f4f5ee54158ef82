package pluginhost

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/httpserve"
)

// Instance is one supervised plugin: a VM's chain or a REST module. Its
// process is restarted with backoff whenever it exits, until Stop.
type Instance struct {
	opts Options
	// described is what the binary answered to describe at Start.
	described pluginv1.Description
	logger    hclog.Logger

	// hint asks the supervisor to look at the process now.
	hint chan struct{}
	// runCtx ends supervision; cancelRun is called by Stop.
	runCtx    context.Context
	cancelRun context.CancelFunc
	// done is closed when the supervisor has returned and every process
	// is gone.
	done chan struct{}

	mu       sync.Mutex
	state    State
	reason   string
	proc     *process // set once initialized, until it exits or is stopped
	stopping bool
	logLevel string
	restarts int
	// gen counts the processes marked running; lastExit is why the
	// latest of them ended.
	gen      uint64
	lastExit string
	// running, handlers, internal and indexKinds are from the latest
	// InitializeResponse.
	running    pluginv1.Description
	handlers   []string
	internal   []string
	indexKinds []string
	// changed is closed and replaced at every state change.
	changed chan struct{}
	// data is the data socket; nil when requests go over gRPC only.
	data *dataSocket
}

// Start checks the binary (sha256 pin, describe), starts its process,
// initializes it and runs OnStart. It returns an error, leaving nothing
// running, if any step fails; afterwards the instance restarts its process
// in the background whenever it exits, until Stop.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("start plugin: %w", err)
	}
	name := opts.Init.Name
	// Check the pin before running the binary at all, even for describe.
	if opts.SHA256 != nil {
		if err := CheckPin(opts.Exec, opts.Path, opts.SHA256); err != nil {
			return nil, fmt.Errorf("start plugin %s: %w", name, err)
		}
	}
	desc, err := Describe(ctx, opts.Exec)
	if err != nil {
		return nil, fmt.Errorf("start plugin %s: %w", name, err)
	}
	if desc.Kind != opts.Init.Kind {
		return nil, fmt.Errorf("start plugin %s: %s is a %s plugin, configured as a %s", name, opts.Path, desc.Kind, opts.Init.Kind)
	}
	logger := opts.Logger
	if logger == nil {
		logger = hclog.New(&hclog.LoggerOptions{Name: name, Output: os.Stderr, Level: hclog.Info})
	}
	runCtx, cancel := context.WithCancel(context.Background())
	i := &Instance{
		opts:      opts,
		described: desc,
		logger:    logger,
		hint:      make(chan struct{}, 1),
		runCtx:    runCtx,
		cancelRun: cancel,
		done:      make(chan struct{}),
		state:     Starting,
		logLevel:  opts.Init.LogLevel,
		changed:   make(chan struct{}),
	}
	if opts.SocketDir != "" {
		if i.data, err = bindDataSocket(opts.SocketDir, opts.Init.Kind, name); err != nil {
			logger.Warn("requests go over gRPC only", "error", err)
		}
	}
	i.notify(Starting, "")
	p, err := i.startProcess(ctx)
	if err != nil {
		if i.data != nil {
			i.data.close()
		}
		cancel()
		i.setState(Stopped, "start failed: "+err.Error())
		return nil, fmt.Errorf("start plugin %s: %w", name, err)
	}
	i.setRunning(p, false)
	go i.supervise(p)
	return i, nil
}

// startProcess launches a process, initializes it with the remembered log
// level and runs OnStart. The process is the instance's current one (so
// OnStart can call it) from Initialize on; on error it is torn down.
func (i *Instance) startProcess(ctx context.Context) (*process, error) {
	var listener, data *os.File
	fd := uint32(httpserve.FirstInheritedFD)
	if i.opts.Init.Listener != nil {
		listener = i.opts.Init.Listener.File
		fd++
	}
	var dataFD uint32
	if i.data != nil {
		data, dataFD = i.data.file, fd
	}
	p, err := launch(launchConfig{
		listener:      listener,
		data:          data,
		path:          i.opts.Path,
		exec:          i.opts.Exec,
		pin:           i.opts.SHA256,
		logger:        i.logger,
		services:      i.opts.Services,
		onUnavailable: i.nudge,
	})
	if err != nil {
		return nil, err
	}
	i.mu.Lock()
	level := i.logLevel
	i.mu.Unlock()
	resp, err := p.rpc.Initialize(ctx, i.opts.Init.request(p.services.ID, level, dataFD))
	if err != nil {
		p.teardown()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if i.opts.Init.Listener != nil && !resp.GetServesListener() {
		p.teardown()
		return nil, fmt.Errorf("the plugin does not serve a listener of its own (it was built with an SDK from before chain listeners): remove listen from its config, or rebuild it")
	}
	running, err := runningDescription(p.client.NegotiatedVersion(), i.described, resp.GetDescription())
	if err != nil {
		p.teardown()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := i.admit(ctx, p, resp.GetUnsafeApis()); err != nil {
		return nil, err
	}
	p.handlers, p.internal, p.indexKinds, p.logLevel = resp.GetHandlers(), resp.GetInternalHandlers(), resp.GetIndexKinds(), level
	if i.data != nil && resp.GetServesDataSocket() {
		p.data = i.data.pool()
	}

	i.mu.Lock()
	i.proc = p
	i.running = running
	i.handlers, i.internal, i.indexKinds = p.handlers, p.internal, p.indexKinds
	latest := i.logLevel
	i.mu.Unlock()
	// SetLogLevel may have run between Initialize and now.
	if latest != level {
		if _, err := p.rpc.SetLogLevel(ctx, &pluginv1.SetLogLevelRequest{Level: latest}); err != nil {
			i.logger.Warn("set plugin log level", "level", latest, "error", err)
		}
	}
	if i.opts.OnStart != nil {
		if err := i.opts.OnStart(ctx, i); err != nil {
			i.mu.Lock()
			if i.proc == p {
				i.proc = nil
			}
			i.mu.Unlock()
			p.teardown()
			return nil, fmt.Errorf("on start: %w", err)
		}
	}
	return p, nil
}

// admit runs Admit on what a freshly initialized process declared, then
// lets it serve its own listener. A process refused is shut down.
func (i *Instance) admit(ctx context.Context, p *process, unsafeAPIs []string) error {
	if i.opts.Admit != nil {
		if err := i.opts.Admit(unsafeAPIs); err != nil {
			sctx, cancel := context.WithTimeout(ctx, ShutdownTimeout)
			if _, serr := p.rpc.Shutdown(sctx, &pluginv1.ShutdownRequest{}); serr != nil {
				i.logger.Warn("plugin shutdown failed, killing it", "error", serr)
			}
			cancel()
			p.teardown()
			return err
		}
	}
	if i.opts.Init.Listener == nil {
		return nil
	}
	// A plugin built before ServeListener serves from Initialize on.
	if _, err := p.rpc.ServeListener(ctx, &pluginv1.ServeListenerRequest{}); err != nil && status.Code(err) != codes.Unimplemented {
		p.teardown()
		return fmt.Errorf("serve the chain's own listener: %w", err)
	}
	return nil
}

// Description returns what the latest process said it is: the
// description of its InitializeResponse, or, from a plugin of protocol
// version 1, what the binary answered to describe at Start.
func (i *Instance) Description() pluginv1.Description {
	i.mu.Lock()
	d := i.running
	i.mu.Unlock()
	d.Aliases = slices.Clone(d.Aliases)
	d.Protocols = slices.Clone(d.Protocols)
	d.Prefixes = slices.Clone(d.Prefixes)
	d.MessageArrayPrefixes = slices.Clone(d.MessageArrayPrefixes)
	return d
}

// runningDescription is what a process initialized on protocol version
// says it is: the description raw of its InitializeResponse, which must
// name the kind, name and VM ID the binary's describe did; a process of
// protocol version 1 sends none, and is what its binary described.
func runningDescription(version int, described pluginv1.Description, raw []byte) (pluginv1.Description, error) {
	if version == pluginv1.PreviousProtocolVersion {
		return described, nil
	}
	if len(raw) == 0 {
		return pluginv1.Description{}, fmt.Errorf("the plugin speaks protocol version %d but sent no description", version)
	}
	d, err := parseDescription(raw)
	if err != nil {
		return pluginv1.Description{}, fmt.Errorf("the description it sent: %w", err)
	}
	if d.Kind != described.Kind || d.Name != described.Name || d.VMID != described.VMID {
		return pluginv1.Description{}, fmt.Errorf("the plugin runs as %s %q (vmID %q), but its binary describes %s %q (vmID %q)",
			d.Kind, d.Name, d.VMID, described.Kind, described.Name, described.VMID)
	}
	return d, nil
}

// Handlers returns the HTTP handler names from the latest Initialize.
func (i *Instance) Handlers() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Clone(i.handlers)
}

// Serves reports whether the process serves the handler name: a public
// one, or with internal an internal one too. Unlike Handlers it copies
// nothing, for the router's per-request check.
func (i *Instance) Serves(name string, internal bool) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Contains(i.handlers, name) || internal && slices.Contains(i.internal, name)
}

// InternalHandlers returns the internal handler names from the latest
// Initialize: handlers the router never serves, which chain calls reach.
func (i *Instance) InternalHandlers() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Clone(i.internal)
}

// IndexKinds returns the index kinds from the latest Initialize.
func (i *Instance) IndexKinds() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Clone(i.indexKinds)
}

// State returns the instance's state and why it is in it (empty when
// running).
func (i *Instance) State() (State, string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.state, i.reason
}

// PID returns the process ID of the plugin, 0 when it has none.
func (i *Instance) PID() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.proc == nil {
		return 0
	}
	return i.proc.pid
}

// Restarts returns how many times a process was restarted successfully
// after the first one.
func (i *Instance) Restarts() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.restarts
}

// Stop asks the plugin to shut down (bounded by ctx and ShutdownTimeout),
// kills its process and ends supervision; the instance never runs again.
// It is idempotent; it returns ctx's error if ctx ends before the process is
// gone, which then still happens in the background.
func (i *Instance) Stop(ctx context.Context) error {
	i.mu.Lock()
	first := !i.stopping
	i.stopping = true
	p, st := i.proc, i.state
	i.mu.Unlock()
	if first {
		if p != nil && st == Running {
			sctx, cancel := context.WithTimeout(ctx, ShutdownTimeout)
			if _, err := p.rpc.Shutdown(sctx, &pluginv1.ShutdownRequest{}); err != nil {
				i.logger.Warn("plugin shutdown failed, killing it", "error", err)
			}
			cancel()
		}
		i.cancelRun()
	}
	select {
	case <-i.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop plugin %s: %w", i.opts.Init.Name, ctx.Err())
	}
}

// setState records a state change and tells OnStateChange. Only one
// goroutine changes state at a time (Start, then the supervisor), so
// notifications keep their order.
func (i *Instance) setState(s State, reason string) {
	i.mu.Lock()
	i.state, i.reason = s, reason
	i.changedLocked()
	i.mu.Unlock()
	i.notify(s, reason)
}

// setRunning makes p the running process.
func (i *Instance) setRunning(p *process, restarted bool) {
	i.mu.Lock()
	p.since = time.Now()
	i.proc = p
	i.state, i.reason = Running, ""
	i.gen++
	if restarted {
		i.restarts++
	}
	i.changedLocked()
	i.mu.Unlock()
	i.notify(Running, "")
}

// changedLocked wakes everyone waiting for a state change.
func (i *Instance) changedLocked() {
	close(i.changed)
	i.changed = make(chan struct{})
}

// notify calls OnStateChange, if set.
func (i *Instance) notify(s State, reason string) {
	if i.opts.OnStateChange != nil {
		i.opts.OnStateChange(s, reason)
	}
}

// nudge asks the supervisor to check the process now.
func (i *Instance) nudge() {
	select {
	case i.hint <- struct{}{}:
	default:
	}
}

// unavailableLocked returns the error for a call made while the instance
// cannot serve it.
func (i *Instance) unavailableLocked() *UnavailableError {
	e := &UnavailableError{Kind: i.opts.Init.Kind, Name: i.opts.Init.Name, State: i.state, Reason: i.reason}
	switch {
	case i.state == Stopped:
		e.Reason = ""
	case i.stopping:
		e.State, e.Reason = Running, ""
	}
	return e
}
