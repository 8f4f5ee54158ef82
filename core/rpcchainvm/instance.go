package rpcchainvm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/api/metrics"
	"github.com/ava-labs/avalanchego/chains/atomic"
	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm/grpcutils"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm/runtime"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm/runtime/subprocess"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/transport/httpserve"
)

// Options configures an Instance: the plugin, the chain it runs and the
// host services its VM is given (docs/rpcchainvm.md).
type Options struct {
	// Path is the plugin binary as installed: the process runs under its
	// name (argv[0]).
	Path string
	// Exec is the file run: Path's copy in the plugin cache
	// (docs/plugins.md, "Upgrades in place"); empty runs Path.
	Exec string
	// SHA256, when set, is the binary's pin (plugin-sha256): a binary
	// that differs is never run.
	SHA256 []byte
	// Alias is the chain's primary alias, for logs and metrics.
	Alias string

	NetworkID   uint32
	SubnetID    ids.ID
	ChainID     ids.ID
	NodeID      ids.NodeID
	PublicKey   *bls.PublicKey
	XChainID    ids.ID
	CChainID    ids.ID
	AVAXAssetID ids.ID
	// DataDir is the chain's own directory for the VM's files.
	DataDir string

	// Genesis, Upgrade and Config are handed to the VM unchanged, as
	// avalanchego hands them.
	Genesis, Upgrade, Config []byte

	// NewDB opens a view of the chain's database, served to the VM over
	// rpcdb: one per process, closed when it ends, which releases what a
	// crashed VM left open.
	NewDB          func() database.Database
	SharedMemory   atomic.SharedMemory
	Aliases        ids.AliaserReader
	ValidatorState validators.State
	WarpSigner     warp.Signer
	// AppSender makes the VM's app sender (once per chain); vm reaches
	// the VM of the process running at each call, for answers and
	// failures the sender delivers.
	AppSender func(vm common.AppHandler) common.AppSender

	// Accepted is called with every block the host accepts, in order,
	// after the VM committed it: the host appends it to the chain's index.
	Accepted func(ctx context.Context, id ids.ID, bytes []byte) error
	// Indexed, if set, returns the blocks the host has indexed from
	// index position from on (height from+1), in order, as Accepted gave
	// them: a VM that lost accepted blocks in a crash gets them again
	// (Replay).
	Indexed func(ctx context.Context, from uint64, fn func(bytes []byte) error) error
	// OnStart, if set, runs after each start of the plugin (the first and
	// every restart), before the host builds blocks: the index backfill.
	OnStart func(ctx context.Context, inst *Instance) error
	// OnStateChange, if set, is told every state change.
	OnStateChange func(s pluginhost.State, reason string)

	// Listener, when set, is the chain's own listener, which the host
	// serves the VM's handlers on; Names are what its /ext/bc/<chain>/
	// paths may name the chain by.
	Listener *pluginhost.Listener
	Names    []string

	// Log is the chain's logger; the plugin's output goes there too.
	Log hclog.Logger
	// HandshakeTimeout bounds the runtime handshake; default avalanchego's.
	HandshakeTimeout time.Duration
	// RestartBackoff is the first pause before restarting a plugin that
	// exited, doubled after each failed restart up to MaxRestartBackoff.
	RestartBackoff, MaxRestartBackoff time.Duration
}

// Instance runs one chain's rpcchainvm plugin: a process at a time,
// restarted from its database when it exits, with the host driving its
// consensus as a network of one validator.
type Instance struct {
	opts Options

	mu        sync.Mutex
	proc      *process
	state     pluginhost.State
	reason    string
	restarts  int
	stopping  bool
	appSender common.AppSender
	// listener serves the chain's own listener, when it has one, with its
	// request metrics on listenMetrics.
	listener      *httpserve.Server
	listenMetrics prometheus.Gatherer
	// changed is closed and replaced at every state change.
	changed chan struct{}
	done    chan struct{} // closed when the supervisor ends
}

// Start launches and initializes the plugin, runs OnStart, and begins
// building blocks. An error leaves no process behind.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	if opts.HandshakeTimeout == 0 {
		opts.HandshakeTimeout = runtime.DefaultHandshakeTimeout
	}
	opts.RestartBackoff = max(opts.RestartBackoff, time.Millisecond)
	opts.MaxRestartBackoff = max(opts.MaxRestartBackoff, opts.RestartBackoff)
	i := &Instance{opts: opts, changed: make(chan struct{}), done: make(chan struct{})}
	i.appSender = opts.AppSender(runningVM{i})
	p, err := i.startProcess(ctx)
	if err != nil {
		i.closeAppSender()
		return nil, err
	}
	if opts.Listener != nil {
		if i.listener, err = i.serveListener(opts.Listener, opts.Names); err != nil {
			i.closeAppSender()
			p.shutdown(ctx)
			return nil, err
		}
	}
	go i.supervise(p)
	return i, nil
}

// startProcess launches the plugin, runs OnStart and the engine, and makes
// it the running process.
func (i *Instance) startProcess(ctx context.Context) (*process, error) {
	i.setState(pluginhost.Starting, "")
	p, err := launch(ctx, i.opts, i.appSender)
	if err != nil {
		return nil, err
	}
	i.mu.Lock()
	i.proc = p
	i.mu.Unlock()
	if i.opts.OnStart != nil {
		if err := i.opts.OnStart(ctx, i); err != nil {
			i.mu.Lock()
			i.proc = nil
			i.mu.Unlock()
			p.shutdown(ctx)
			return nil, err
		}
	}
	p.startEngine(i.opts)
	i.setState(pluginhost.Running, "")
	return p, nil
}

// closeAppSender ends what the app sender holds (requests pending to the
// node itself): nothing of it is delivered to a VM shutting down.
func (i *Instance) closeAppSender() {
	if c, ok := i.appSender.(interface{ Close() }); ok {
		c.Close()
	}
}

// runningVM is the app handler of the VM of the process running at each
// call: what the app sender delivers reaches it across restarts.
type runningVM struct{ i *Instance }

func (r runningVM) AppRequest(ctx context.Context, nodeID ids.NodeID, requestID uint32, deadline time.Time, request []byte) error {
	p, err := r.i.current()
	if err != nil {
		return err
	}
	return p.vm.AppRequest(ctx, nodeID, requestID, deadline, request)
}

func (r runningVM) AppResponse(ctx context.Context, nodeID ids.NodeID, requestID uint32, response []byte) error {
	p, err := r.i.current()
	if err != nil {
		return err
	}
	return p.vm.AppResponse(ctx, nodeID, requestID, response)
}

func (r runningVM) AppRequestFailed(ctx context.Context, nodeID ids.NodeID, requestID uint32, appErr *common.AppError) error {
	p, err := r.i.current()
	if err != nil {
		return err
	}
	return p.vm.AppRequestFailed(ctx, nodeID, requestID, appErr)
}

func (r runningVM) AppGossip(ctx context.Context, nodeID ids.NodeID, msg []byte) error {
	p, err := r.i.current()
	if err != nil {
		return err
	}
	return p.vm.AppGossip(ctx, nodeID, msg)
}

// Probe runs the plugin's runtime handshake and stops it: an error says
// why the binary is not an rpcchainvm plugin of this host's protocol
// (avalanchego's message names both versions on a mismatch).
func Probe(ctx context.Context, path string, log hclog.Logger) error {
	cmd := command(path)
	_, stopper, err := bootstrap(ctx, cmd, log, runtime.DefaultHandshakeTimeout)
	if err != nil {
		return err
	}
	// A VM ignores SIGTERM until told to shut down, which a plugin never
	// initialized cannot be: kill it, then let the stopper reap it.
	_ = cmd.Process.Kill()
	stopper.Stop(ctx)
	return nil
}

// current returns the running process, or why there is none.
func (i *Instance) current() (*process, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.proc == nil || i.stopping {
		return nil, i.unavailableLocked()
	}
	return i.proc, nil
}

func (i *Instance) unavailableLocked() error {
	if i.stopping {
		return &pluginhost.UnavailableError{State: pluginhost.Stopped}
	}
	return &pluginhost.UnavailableError{State: i.state, Reason: i.reason}
}

func (i *Instance) setState(s pluginhost.State, reason string) {
	i.mu.Lock()
	i.state, i.reason = s, reason
	close(i.changed)
	i.changed = make(chan struct{})
	i.mu.Unlock()
	if i.opts.OnStateChange != nil {
		i.opts.OnStateChange(s, reason)
	}
}

// State returns the instance's state and, when down, why.
func (i *Instance) State() (pluginhost.State, string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.state, i.reason
}

// PID is the running process's ID; 0 when none runs.
func (i *Instance) PID() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.proc == nil {
		return 0
	}
	return i.proc.pid
}

// Restarts counts the restarts after the plugin exited.
func (i *Instance) Restarts() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.restarts
}

// Stop shuts the VM down and waits for its process to exit; the instance
// never runs again.
func (i *Instance) Stop(ctx context.Context) error {
	i.mu.Lock()
	if i.stopping {
		i.mu.Unlock()
		<-i.done
		return nil
	}
	i.stopping = true
	p := i.proc
	i.proc = nil
	close(i.changed)
	i.changed = make(chan struct{})
	i.mu.Unlock()
	err := i.stopListener(ctx)
	i.closeAppSender()
	if p != nil {
		err = errors.Join(err, p.shutdown(ctx))
	}
	<-i.done
	i.setState(pluginhost.Stopped, "")
	return err
}

// supervise waits for the process to exit and starts another, from the
// chain's database, until Stop.
func (i *Instance) supervise(p *process) {
	defer close(i.done)
	pause := i.opts.RestartBackoff
	for {
		<-p.exited
		i.mu.Lock()
		stopping := i.stopping
		i.proc = nil
		i.mu.Unlock()
		if stopping {
			return
		}
		reason := fmt.Sprintf("the plugin process (pid %d) exited", p.pid)
		i.opts.Log.Warn("rpcchainvm plugin exited, restarting", "reason", reason)
		p.shutdown(context.Background())
		i.setState(pluginhost.Down, reason)
		for {
			if !i.sleep(pause) {
				return
			}
			next, err := i.startProcess(context.Background())
			if err == nil {
				i.mu.Lock()
				i.restarts++
				stopping := i.stopping
				i.mu.Unlock()
				if stopping {
					next.shutdown(context.Background())
					return
				}
				p, pause = next, i.opts.RestartBackoff
				break
			}
			i.opts.Log.Error("rpcchainvm plugin restart failed", "error", err)
			i.setState(pluginhost.Down, "restart failed: "+err.Error())
			pause = min(2*pause, i.opts.MaxRestartBackoff)
		}
	}
}

// sleep pauses for d; false when Stop was called meanwhile.
func (i *Instance) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		i.mu.Lock()
		stopping, changed := i.stopping, i.changed
		i.mu.Unlock()
		if stopping {
			return false
		}
		select {
		case <-t.C:
			return true
		case <-changed:
		}
	}
}

// process is one run of the plugin binary with its VM client.
type process struct {
	vm       *rpcchainvm.VMClient
	db       database.Database
	pid      int
	exited   chan struct{}
	handlers map[string]http.Handler
	// header is the VM's NewHTTPHandler, routed by header; nil when it
	// has none.
	header  http.Handler
	metrics prometheus.Gatherers
	// engine is the consensus loop's cancel and its end.
	engineStop context.CancelFunc
	engineDone chan struct{}
}

// bootstrap starts cmd, the plugin, and completes avalanchego's runtime
// handshake within timeout; the plugin's output and the runtime's own
// lines go to log.
func bootstrap(ctx context.Context, cmd *exec.Cmd, log hclog.Logger, timeout time.Duration) (*subprocess.Status, runtime.Stopper, error) {
	listener, err := grpcutils.NewListener()
	if err != nil {
		return nil, nil, fmt.Errorf("listen for the runtime handshake: %w", err)
	}
	out := log.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true})
	return subprocess.Bootstrap(ctx, listener, cmd, &subprocess.Config{
		Stdout: out, Stderr: out, HandshakeTimeout: timeout, Log: avalancheLogger(log),
	})
}

// launch starts the plugin, completes the runtime handshake and
// initializes its VM from the chain's database.
func launch(ctx context.Context, opts Options, appSender common.AppSender) (p *process, err error) {
	run := opts.Exec
	if run == "" {
		run = opts.Path
	}
	if opts.SHA256 != nil {
		if err := pluginhost.CheckPin(run, opts.Path, opts.SHA256); err != nil {
			return nil, err
		}
	}
	// The plugin inherits the write end of a pipe it never uses: the read
	// end's EOF tells the host it exited, while avalanchego's stopper alone
	// waits for (reaps) the process.
	alive, witness, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start plugin %s: %w", opts.Path, err)
	}
	cmd := command(run)
	cmd.Args[0] = opts.Path
	cmd.ExtraFiles = []*os.File{witness}
	status, stopper, err := bootstrap(ctx, cmd, opts.Log, opts.HandshakeTimeout)
	_ = witness.Close()
	if err != nil {
		_ = alive.Close()
		return nil, fmt.Errorf("start plugin %s: %w", opts.Path, err)
	}
	proc := &process{pid: status.Pid, exited: make(chan struct{}), db: opts.NewDB()}
	go proc.watch(alive)
	p = proc
	defer func() {
		if err != nil {
			// Not shut down through the VM, it would ignore the
			// stopper's SIGTERM.
			_ = cmd.Process.Kill()
			<-proc.exited
			stopper.Stop(ctx)
			_ = proc.db.Close()
		}
	}()
	conn, err := grpcutils.Dial(status.Addr)
	if err != nil {
		return nil, fmt.Errorf("dial plugin %s: %w", opts.Path, err)
	}
	log := avalancheLogger(opts.Log)
	serverMetrics, vmMetrics := metrics.NewPrefixGatherer(), metrics.NewPrefixGatherer()
	p.metrics = prometheus.Gatherers{vmMetrics, serverMetrics}
	p.vm = rpcchainvm.NewClient(conn, stopper, status.Pid, noTracker{}, serverMetrics, log)
	chainCtx := &snow.Context{
		NetworkID:       opts.NetworkID,
		SubnetID:        opts.SubnetID,
		ChainID:         opts.ChainID,
		NodeID:          opts.NodeID,
		PublicKey:       opts.PublicKey,
		NetworkUpgrades: upgrade.GetConfig(opts.NetworkID),
		XChainID:        opts.XChainID,
		CChainID:        opts.CChainID,
		AVAXAssetID:     opts.AVAXAssetID,
		Log:             log,
		SharedMemory:    opts.SharedMemory,
		BCLookup:        opts.Aliases,
		Metrics:         vmMetrics,
		WarpSigner:      opts.WarpSigner,
		ValidatorState:  opts.ValidatorState,
		ChainDataDir:    opts.DataDir,
	}
	if err := p.vm.Initialize(ctx, chainCtx, p.db, opts.Genesis, opts.Upgrade, opts.Config, nil, appSender); err != nil {
		return nil, fmt.Errorf("initialize VM: %w", err)
	}
	// A network of one validator is bootstrapped as soon as it starts,
	// from the host's index if the VM lost blocks it had accepted.
	if err := p.vm.SetState(ctx, snow.Bootstrapping); err != nil {
		return nil, fmt.Errorf("set VM state bootstrapping: %w", err)
	}
	if err := replay(ctx, p.vm, opts); err != nil {
		return nil, err
	}
	if err := p.vm.SetState(ctx, snow.NormalOp); err != nil {
		return nil, fmt.Errorf("set VM state normal operation: %w", err)
	}
	last, err := p.vm.LastAccepted(ctx)
	if err != nil {
		return nil, fmt.Errorf("last accepted block: %w", err)
	}
	if err := p.vm.SetPreference(ctx, last); err != nil {
		return nil, fmt.Errorf("set preference to the last accepted block: %w", err)
	}
	if p.handlers, err = handlers(ctx, p.vm); err != nil {
		return nil, err
	}
	if p.header, err = p.vm.NewHTTPHandler(ctx); err != nil {
		return nil, fmt.Errorf("VM's HTTP handler: %w", err)
	}
	return p, nil
}

// handlers are the VM's CreateHandlers by name: the prefix without its
// leading slash, "" for the chain's root.
func handlers(ctx context.Context, vm *rpcchainvm.VMClient) (map[string]http.Handler, error) {
	hs, err := vm.CreateHandlers(ctx)
	if err != nil {
		return nil, fmt.Errorf("VM's handlers: %w", err)
	}
	out := make(map[string]http.Handler, len(hs))
	for prefix, h := range hs {
		out[strings.TrimPrefix(prefix, "/")] = h
	}
	return out, nil
}

// shutdownTimeout bounds a VM's Shutdown before its process is killed.
const shutdownTimeout = runtime.DefaultGracefulTimeout + time.Second

// shutdown stops the engine, asks the VM to shut down and stops its
// process (avalanchego's stopper: SIGTERM, then SIGKILL).
func (p *process) shutdown(ctx context.Context) error {
	if p.engineStop != nil {
		p.engineStop()
		<-p.engineDone
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	var err error
	select {
	case <-p.exited:
		// Nothing to ask a process that is gone: a done context makes the
		// Shutdown call and the stopper's wait end at once, while the VM
		// client's own servers and connections close all the same.
		cancel()
		_ = p.vm.Shutdown(ctx)
	default:
		err = p.vm.Shutdown(ctx)
	}
	<-p.exited
	if cerr := p.db.Close(); cerr != nil && !errors.Is(cerr, database.ErrClosed) {
		err = errors.Join(err, fmt.Errorf("close the chain's database: %w", cerr))
	}
	return err
}

// watch closes exited once the process has exited: when alive, the read
// end of the pipe whose write end only the process holds, reads EOF.
func (p *process) watch(alive *os.File) {
	_, _ = io.Copy(io.Discard, alive)
	_ = alive.Close()
	close(p.exited)
}

// noTracker is the VM client's process tracker: the host watches its
// plugins' processes itself.
type noTracker struct{}

func (noTracker) TrackProcess(int)   {}
func (noTracker) UntrackProcess(int) {}
