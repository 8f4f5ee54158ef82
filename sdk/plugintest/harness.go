package plugintest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/internal/memhost"
	"github.com/chainhost/chainhost/transport/grpcplugin"
)

// shutdownTimeout bounds the plugin's Shutdown at a restart and at the end
// of a test.
const shutdownTimeout = 30 * time.Second

// Options describes the instance the harness starts.
type Options struct {
	// Name is the chain's primary alias or the module name; "test" when empty.
	Name string
	// Kind is sdk.KindVM (the default) or sdk.KindModule.
	Kind string
	// ChainID is the blockchain ID; derived from Name when zero.
	ChainID ids.ID
	// Aliases are further aliases of the chain.
	Aliases []string
	// NetworkID is the node's network ID.
	NetworkID uint32
	// Genesis and Config are passed to Initialize as they are; when nil,
	// `{}`, as the node passes a genesis or config the chain's config
	// omits (a module gets no genesis).
	Genesis, Config []byte
	// DataDir is the instance's directory, kept across Restart;
	// t.TempDir() when empty.
	DataDir string
	// LogLevel is the chainhost level name; "INFO" when empty.
	LogLevel string
	// Logger receives the plugin's logs and go-plugin's own; a Warn-level
	// stderr logger when nil, so that a passing test prints nothing of
	// them.
	Logger hclog.Logger
	// Prefixes are the path prefixes a module is told it serves.
	Prefixes []string
	// Chains are further chains the chain registry lists (beside the VM's
	// own); change them while the test runs with SetChain.
	Chains []host.ChainInfo
	// Call answers the plugin's chain calls to the chains of Chains; calls
	// to a VM's own chain reach its own handlers, public or internal.
	Call func(ctx context.Context, chain host.ChainInfo, handlerPath string, body []byte) (int, []byte, error)
}

// chainIDText is the chain ID an InitializeRequest carries: none for a
// module without one.
func chainIDText(opts Options) string {
	if opts.ChainID.IsZero() {
		return ""
	}
	return opts.ChainID.String()
}

// Harness is one plugin instance running behind gRPC, with its memory
// host. The memory host (database, indexes, shared memory, chains) and the
// data directory outlive the plugin: Restart starts another plugin over
// them, as the node restarts a chain.
type Harness struct {
	opts    Options
	logger  hclog.Logger
	name    string
	chainID ids.ID
	self    host.ChainInfo // zero for a module
	mem     *memhost.Host
	call    func(ctx context.Context, chain host.ChainInfo, handlerPath string, body []byte) (int, []byte, error)
	cut     atomic.Bool // CutNextAccept is armed
	rt      *http.Transport

	mu      sync.Mutex
	run     *run // the plugin running, or the last one
	servers map[string]*httptest.Server
}

// Start initializes p behind a real gRPC connection with in-memory host
// services and returns its harness; the test's cleanup shuts p down.
func Start(t testing.TB, p sdk.Plugin, opts Options) *Harness {
	t.Helper()
	opts = withDefaults(t, opts)
	logger := opts.Logger
	if logger == nil {
		logger = hclog.New(&hclog.LoggerOptions{Name: "plugintest", Level: hclog.Warn})
	}
	h := &Harness{opts: opts, logger: logger, name: opts.Name, chainID: opts.ChainID, call: opts.Call,
		servers: make(map[string]*httptest.Server)}
	if opts.Kind == sdk.KindVM {
		h.self = host.ChainInfo{ID: opts.ChainID, VMName: opts.Name, Aliases: append([]string{opts.Name}, opts.Aliases...)}
	}
	h.mem = memhost.New(memhost.Options{Self: h.self, Others: opts.Chains, Call: h.callChain})
	h.rt = newDataTransport(func() string { return h.current().data.path })
	t.Cleanup(func() {
		h.closeServers()
		h.stop(t, true)
	})
	h.start(t, p)
	return h
}

// StartModule initializes a REST module as Start does a VM: Kind is
// sdk.KindModule, and ModuleURL serves the module's handler.
func StartModule(t testing.TB, m sdk.Module, opts Options) *Harness {
	t.Helper()
	opts.Kind = sdk.KindModule
	return Start(t, sdk.AsPlugin(m), opts)
}

// Restart stops the running plugin as the node stops a chain (Shutdown),
// unless Crash ended it already, and initializes p in its place with the
// same Options, over the same database, indexes, shared memory, chains and
// data directory: what a VM finds after the node restarts it. p is a new
// value, as a restarted process holds nothing of the old one. The URLs
// stay the same.
func (h *Harness) Restart(t testing.TB, p sdk.Plugin) {
	t.Helper()
	h.stop(t, true)
	h.start(t, p)
}

// Crash ends the running plugin as a kill -9 would: without Shutdown, its
// connections cut, so that its calls to the host and the test's calls to
// it fail. The host's state stays as the last committed write left it;
// Restart starts the next plugin over it. In-process, nothing can end the
// old plugin's own goroutines: they are left to reach nothing.
func (h *Harness) Crash(t testing.TB) {
	t.Helper()
	h.stop(t, false)
}

// CutNextAccept makes the plugin's next Accept or AcceptBatch commit, with
// its state, and then fail, as a call cut after the host committed it: the
// plugin gets an error although its containers are in the index. A VM
// must then read its height back from the host before it builds again
// (the cut-accept rule, docs/writing-a-vm.md); to test a VM that dies
// there, call Crash and Restart after the failed call.
func (h *Harness) CutNextAccept() { h.cut.Store(true) }

// errCut is what a cut accept answers the plugin.
var errCut = errors.New("plugintest: the accept was cut after the host committed it")

// cutIndex is the memory host's index with CutNextAccept's failure.
type cutIndex struct {
	host.BatchIndex
	cut *atomic.Bool
}

func (x cutIndex) Accept(ctx context.Context, kind string, id ids.ID, b []byte, state []host.Op) (host.Accepted, error) {
	acc, err := x.BatchIndex.Accept(ctx, kind, id, b, state)
	if err == nil && x.cut.CompareAndSwap(true, false) {
		return host.Accepted{}, errCut
	}
	return acc, err
}

func (x cutIndex) AcceptBatch(ctx context.Context, b host.AcceptBatch) ([]host.Accepted, error) {
	acc, err := x.BatchIndex.AcceptBatch(ctx, b)
	if err == nil && x.cut.CompareAndSwap(true, false) {
		return nil, errCut
	}
	return acc, err
}

// run is one plugin's life in the harness, from start to stop.
type run struct {
	client     pluginv1.PluginClient
	conn       plugin.ClientProtocol
	stopServe  context.CancelFunc
	served     chan struct{} // closed when the plugin's server has ended
	hostSrv    *grpcplugin.HostServer
	data       *dataSocket
	down       bool // stopped or crashed
	handlers   []string
	internal   []string
	indexKinds []string
	unsafeAPIs []string
}

// current returns the plugin running, or the last one.
func (h *Harness) current() *run {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.run
}

// start serves p as a plugin process does (go-plugin's Serve, in its test
// mode, with the configuration sdk.Serve uses), connects to it as the node
// does, and initializes it.
func (h *Harness) start(t testing.TB, p sdk.Plugin) {
	t.Helper()
	r := &run{served: make(chan struct{})}
	var broker grpcplugin.Broker
	srv := sdk.NewPluginServer(p, sdk.PluginServerOptions{Logger: h.logger, Connect: broker.DialHost})
	cfg := grpcplugin.ServeConfig(srv, &broker, grpcplugin.NewGRPCServer, h.logger)
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	cfg.Test = &plugin.ServeTestConfig{Context: ctx, ReattachConfigCh: reattach, CloseCh: r.served}
	r.stopServe = cancel
	go plugin.Serve(cfg)
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case <-r.served:
		cancel()
		t.Fatalf("plugintest: serve %s: go-plugin ended before it listened", h.name)
	}
	rc.ReattachFunc = func() (runner.AttachedRunner, error) { return servedRunner{r.served}, nil }
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  grpcplugin.Handshake(),
		Plugins:          plugin.PluginSet{pluginv1.PluginName: &grpcplugin.Plugin{}},
		Reattach:         rc,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           h.logger,
		GRPCDialOptions:  grpcplugin.DialOptions(),
	})
	conn, err := client.Client()
	if err != nil {
		cancel()
		t.Fatalf("plugintest: connect to %s: %v", h.name, err)
	}
	r.conn = conn
	raw, err := conn.Dispense(pluginv1.PluginName)
	if err != nil {
		r.teardown()
		t.Fatalf("plugintest: dispense plugin: %v", err)
	}
	gc := raw.(*grpcplugin.Client)
	r.client = gc
	svc := h.mem.Services()
	if bi, ok := svc.Index.(host.BatchIndex); ok {
		svc.Index = cutIndex{BatchIndex: bi, cut: &h.cut}
	}
	r.hostSrv = grpcplugin.ServeHost(gc.Broker, svc)
	if r.data, err = bindDataSocket(); err != nil {
		r.teardown()
		t.Fatalf("plugintest: %v", err)
	}
	h.mu.Lock()
	h.run = r
	h.mu.Unlock()

	opts := h.opts
	resp, err := r.client.Initialize(context.Background(), &pluginv1.InitializeRequest{
		HostBrokerId: r.hostSrv.ID,
		Kind:         opts.Kind,
		ChainId:      chainIDText(opts),
		Name:         opts.Name,
		Aliases:      h.self.Aliases,
		Prefixes:     opts.Prefixes,
		NetworkId:    opts.NetworkID,
		Genesis:      opts.Genesis,
		Config:       opts.Config,
		DataDir:      opts.DataDir,
		LogLevel:     opts.LogLevel,
		NodeVersion:  "plugintest",
		DataSocketFd: r.data.fd,
	})
	if err != nil {
		t.Fatalf("plugintest: initialize %s: %v", opts.Name, err)
	}
	h.mu.Lock()
	r.handlers, r.internal, r.indexKinds = resp.GetHandlers(), resp.GetInternalHandlers(), resp.GetIndexKinds()
	r.unsafeAPIs = resp.GetUnsafeApis()
	h.mu.Unlock()
	if opts.Kind == sdk.KindVM {
		self := h.self
		self.Handlers, self.InternalHandlers, self.IndexKinds, self.Running = r.handlers, r.internal, r.indexKinds, true
		h.mem.SetSelf(self)
	}
}

// stop ends the current plugin, with Shutdown when shutdown is set (a
// failed Shutdown fails t), and closes its connections; a plugin ended
// already is left as it is.
func (h *Harness) stop(t testing.TB, shutdown bool) {
	t.Helper()
	h.mu.Lock()
	r := h.run
	if r == nil || r.down {
		h.mu.Unlock()
		return
	}
	r.down = true
	h.mu.Unlock()
	if h.opts.Kind == sdk.KindVM {
		h.mem.SetSelf(h.self) // not running: no handlers, no index kinds
	}
	if shutdown {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if _, err := r.client.Shutdown(ctx, &pluginv1.ShutdownRequest{}); err != nil {
			t.Errorf("plugintest: shut down %s: %v", h.name, err)
		}
	}
	h.rt.CloseIdleConnections()
	r.teardown()
}

// teardown closes a run's connections and waits until its servers ended.
func (r *run) teardown() {
	if r.data != nil {
		r.data.close()
	}
	if r.hostSrv != nil {
		r.hostSrv.Stop()
	}
	// Close asks go-plugin's server to stop, gracefully; the context stops
	// it only when there is no connection to ask through: a second stop
	// races in go-plugin, and a stop by the context logs an error.
	if r.conn != nil {
		_ = r.conn.Close()
	} else {
		r.stopServe()
	}
	<-r.served
	r.stopServe()
}

// servedRunner is go-plugin's handle on the plugin it reattaches to: the
// server plugin.Serve runs in this process, which ends when served closes.
type servedRunner struct{ served <-chan struct{} }

func (s servedRunner) Wait(ctx context.Context) error {
	select {
	case <-s.served:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (servedRunner) Kill(context.Context) error { return nil }
func (servedRunner) ID() string                 { return "plugintest" }

func (servedRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (servedRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// withDefaults fills in the Options left empty.
func withDefaults(t testing.TB, opts Options) Options {
	if opts.Name == "" {
		opts.Name = "test"
	}
	if opts.Kind == "" {
		opts.Kind = sdk.KindVM
	}
	if opts.ChainID.IsZero() && opts.Kind == sdk.KindVM {
		opts.ChainID = ids.Derive([]byte("plugintest"), []byte(opts.Name))
	}
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	if opts.Genesis == nil && opts.Kind == sdk.KindVM {
		opts.Genesis = []byte("{}")
	}
	if opts.Config == nil {
		opts.Config = []byte("{}")
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "INFO"
	}
	return opts
}
