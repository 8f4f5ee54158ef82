// Package node assembles the host: logs, storage, index, aliases, plugin
// catalog, chains, REST modules and the HTTP listeners, and takes them down
// in order.
package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/admin"
	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/health"
	"github.com/chainhost/chainhost/core/index"
	"github.com/chainhost/chainhost/core/info"
	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/modules"
	"github.com/chainhost/chainhost/core/rpcchainvm"
	"github.com/chainhost/chainhost/core/server"
	"github.com/chainhost/chainhost/core/sharedmemory"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/core/version"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/memtrim"
)

// Node is a running chainhost.
type Node struct {
	cfg     *config.Config
	logs    *logging.Registry
	log     hclog.Logger
	db      *storage.DB
	indexes *index.Indexes
	chains  *chains.Manager
	modules *modules.Manager
	plugins *catalog.Catalog
	metrics *metrics.Metrics
	router  *server.Router
	srv     *server.Server
	aliases *aliases.Chains
	admin   *admin.Service // nil unless api-admin-enabled

	// routes holds the module prefixes of each listener, by listen
	// address; "" is the main listener's, which the router checks first.
	routes map[string]*server.Prefixes
	// moduleSrvs are the listeners of modules that have their own.
	moduleSrvs map[string]*server.Server

	// indexFlags holds the persisted index start-up flags.
	indexFlags *storage.Namespace
	// incomplete says the index may miss containers accepted while
	// indexing was off; cleared once every chain has been backfilled.
	incomplete atomic.Bool
	indexMu    sync.Mutex
	indexAPIs  map[string]http.Handler

	// stopTrim ends the memory trimmer Start runs.
	stopTrim context.CancelFunc
	// sockets is the directory of the plugins' data sockets; "" until
	// made.
	sockets string

	stopOnce sync.Once
	stopErr  error
}

// New opens the node's state. display receives the human-readable log.
func New(cfg *config.Config, display io.Writer) (_ *Node, err error) {
	// n is not the named result: the error returns set that to nil, and the
	// cleanup needs n.
	n := &Node{
		cfg: cfg, metrics: metrics.New(), indexAPIs: map[string]http.Handler{},
		routes: map[string]*server.Prefixes{"": {}}, moduleSrvs: map[string]*server.Server{},
	}
	defer func() {
		if err != nil {
			_ = n.close()
		}
	}()
	n.logs, err = logging.NewRegistry(logging.Options{
		Dir: filepath.Join(cfg.DataDir, "logs"), Display: display,
		LogLevel: cfg.LogLevel, DisplayLevel: cfg.LogDisplayLevel,
	})
	if err != nil {
		return nil, fmt.Errorf("logs: %w", err)
	}
	n.log = n.logs.Get(logging.MainLogger)
	if n.db, err = storage.Open(filepath.Join(cfg.DataDir, "db")); err != nil {
		return nil, err
	}
	// After the database: its lock keeps a second host off this data
	// directory, so the sockets removed here are a dead run's.
	if n.sockets, err = socketDir(cfg.DataDir); err != nil {
		return nil, err
	}
	if n.sockets == "" {
		n.log.Warn("the data directory's path is too long for unix sockets: requests to plugins go over gRPC, the slower path",
			"data-dir", cfg.DataDir, "max", maxSocketDir-len("/sockets"))
	}
	hostNS := n.db.Namespace("host")
	n.indexFlags = hostNS.Namespace("index-flags")
	incomplete, err := index.CheckStartup(n.indexFlags, cfg.IndexEnabled, cfg.IndexAllowIncomplete)
	if err != nil {
		return nil, err
	}
	n.incomplete.Store(incomplete)
	var onIndexComplete func()
	if cfg.IndexEnabled && incomplete {
		n.log.Warn("the index is marked incomplete (a run had indexing off); it stays so until every chain's index is backfilled from its VM")
		onIndexComplete = n.indexComplete
	}
	if cfg.IndexEnabled {
		if n.indexes, err = index.New(index.Options{NS: hostNS.Namespace("index"), DB: n.db}); err != nil {
			return nil, fmt.Errorf("open index: %w", err)
		}
	}
	al, err := aliases.NewChains(hostNS.Namespace("chain-aliases"))
	if err != nil {
		return nil, err
	}
	n.aliases = al
	probeLog := n.log.Named("rpcchainvm")
	n.plugins = catalog.New(cfg.PluginDir, filepath.Join(cfg.DataDir, pluginCacheDir)).WithPins(cfg.PluginPin).
		WithRPCChainVM(cfg.VMAliases, func(ctx context.Context, path string) error {
			return rpcchainvm.Probe(ctx, path, probeLog)
		})
	n.chains, err = chains.New(chains.Options{
		Config: cfg, DB: n.db, Indexes: n.indexes, Aliases: al, Plugins: n.plugins,
		Logs: n.logs, Metrics: n.metrics, Log: n.log, OnIndexComplete: onIndexComplete, SocketDir: n.sockets,
		SharedMemory: sharedmemory.New(hostNS.Namespace("shared-memory")),
	})
	if err != nil {
		return nil, err
	}
	n.modules = modules.New(modules.Options{
		Config: cfg, DB: n.db, Chains: n.chains, Plugins: n.plugins, Logs: n.logs, Metrics: n.metrics, Log: n.log,
		SocketDir: n.sockets,
	})
	for _, mod := range n.modules.Modules() {
		if n.routes[mod.Listen()] == nil {
			n.routes[mod.Listen()] = &server.Prefixes{}
		}
	}
	n.metrics.SetPlugins(n.pluginMetrics)
	n.logs.OnChange(n.forwardLogLevel)
	var indexRoute server.IndexRoute
	if n.indexes != nil {
		indexRoute = n.indexRoute
	}
	n.router = server.NewRouter(server.RouterOptions{
		Chains: server.LookupOf(n.chains.Resolve), Metrics: n.metrics, Index: indexRoute, Modules: n.routes[""],
	})
	if err := n.router.LoadEndpointAliases(hostNS.Namespace("endpoint-aliases")); err != nil {
		return nil, err
	}
	n.mountHostAPIs()
	return n, nil
}

// rpcOptions are the JSON-RPC limits and metrics hook of a host API.
func (n *Node) rpcOptions(route string) jsonrpc.Options {
	return jsonrpc.Options{
		MaxBatchSize: n.cfg.APIMaxBatchSize,
		MaxBodyBytes: int64(n.cfg.HTTPMaxBodySize),
		OnCall: func(method string, d time.Duration, err *jsonrpc.Error) {
			code := 0
			if err != nil {
				code = err.Code
			}
			n.metrics.ObserveCall(route, method, d, code)
		},
	}
}

func (n *Node) mountHostAPIs() {
	if n.cfg.APIAdminEnabled {
		n.admin = admin.New(admin.Options{
			Router: n.router, Chains: n.chains, Aliases: n.aliases, Plugins: n.plugins, Logs: n.logs,
			StartModules: n.startModules, Modules: n.modules, ProfileDir: n.cfg.ProfileDir, Log: n.log, RPC: n.rpcOptions("admin"),
		})
		n.router.Handle("admin", n.admin.Handler())
	}
	if n.cfg.APIHealthEnabled {
		n.router.Handle("health", health.New(n.healthTargets).Handler(n.rpcOptions("health")))
	}
	if n.cfg.APIMetricsEnabled {
		n.router.Handle("metrics", n.metrics.Handler(n.log.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Warn})))
	}
	if n.cfg.APIInfoEnabled {
		n.router.Handle("info", info.NewService(info.Options{
			NetworkID: n.cfg.NetworkID, Chains: n.chains, Plugins: n.plugins, RPC: n.rpcOptions("info"),
		}))
	}
}

// healthTargets lists the plugins /ext/health checks: every chain, then
// every module.
func (n *Node) healthTargets() []health.Target {
	var out []health.Target
	for _, c := range n.chains.Chains() {
		inst, reason := c.Instance()
		out = append(out, health.Target{Key: "chain/" + c.Alias, Instance: inst, Reason: reason})
	}
	for _, mod := range n.modules.Modules() {
		t := health.Target{Key: "module/" + mod.Name}
		inst, reason := mod.Instance()
		if inst != nil { // a nil *Instance would make a non-nil interface
			t.Instance = inst
		}
		t.Reason = reason
		out = append(out, t)
	}
	return out
}

// logLevelTimeout bounds telling a plugin process its new log level.
const logLevelTimeout = 2 * time.Second

// pluginCacheDir is the folder of the data dir holding the copies of the
// plugin binaries the node runs, each named by its sha256
// (docs/plugins.md, "Upgrades in place").
const pluginCacheDir = "plugin-cache"

// forwardLogLevel tells the plugin process of the chain or module whose
// logger changed the most verbose level it should emit, so that it does
// not send lines nobody keeps.
func (n *Node) forwardLogLevel(name string, p logging.LevelPair) {
	var inst interface {
		SetLogLevel(ctx context.Context, level string) error
	}
	if c, ok := n.chains.Resolve(name); ok && c.Alias == name {
		if r, _ := c.Instance(); r != nil {
			inst = r
		}
	}
	for _, mod := range n.modules.Modules() {
		if i, _ := mod.Instance(); mod.Name == name && i != nil {
			inst = i
		}
	}
	if inst == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), logLevelTimeout)
	defer cancel()
	if err := inst.SetLogLevel(ctx, p.Min().String()); err != nil {
		n.log.Warn("set plugin log level", "logger", name, "error", err)
	}
}

// pluginMetrics lists the running plugins whose own metrics /ext/metrics
// serves, each labelled with its chain's alias or module's name.
func (n *Node) pluginMetrics() []metrics.PluginSource {
	var out []metrics.PluginSource
	for _, c := range n.chains.Chains() {
		if inst, _ := c.Instance(); inst != nil {
			out = append(out, metrics.PluginSource{Name: c.Alias, Gather: inst.Metrics})
		}
	}
	for _, mod := range n.modules.Modules() {
		if inst, _ := mod.Instance(); inst != nil {
			out = append(out, metrics.PluginSource{Name: mod.Name, Gather: inst.Metrics})
		}
	}
	return out
}

// routeModules mounts the routes of the modules whose prefixes are known
// and not routed yet, each on its listener's prefix table, with one metrics
// route per module. It returns the modules it could not route, with why.
func (n *Node) routeModules() map[*modules.Module]error {
	n.modules.FindPlugins()
	failed := map[*modules.Module]error{}
	for _, mod := range n.modules.ToRoute() {
		onError := server.RESTErrorWriter(mod.MessageArrayPrefixes)
		h := n.metrics.Instrument("module/"+mod.Name, mod.Handler(onError))
		routes := n.routes[mod.Listen()]
		if err := routes.Mount(mod.Name, mod.Prefixes(), h, onError); err != nil {
			failed[mod] = err
			continue
		}
		home := mod.Prefixes()[0]
		routes.AddHome(func() (string, bool) {
			p := mod.Plugin()
			return home, p != nil && p.Desc.Home
		})
	}
	return failed
}

// startModules routes and starts the modules whose plugin admin.loadVMs
// just installed, and returns the names of those it started. A module it
// cannot route is refused, with why in the log and in its 503 answers.
func (n *Node) startModules(ctx context.Context) []string {
	for mod, err := range n.routeModules() {
		n.modules.Refuse(mod, err)
	}
	var names []string
	for _, mod := range n.modules.StartPending(ctx) {
		names = append(names, mod.Name)
	}
	return names
}

// indexComplete clears the incomplete mark once every chain's index has
// been backfilled from its VM: the index then holds every container the
// chains accepted, also those accepted while indexing was off.
func (n *Node) indexComplete() {
	if err := index.MarkComplete(n.indexFlags); err != nil {
		n.log.Error("index backfilled, but clearing its incomplete mark failed", "error", err)
		return
	}
	n.incomplete.Store(false)
	n.log.Info("every chain's index is backfilled: the index is complete again")
}

// indexRoute returns the index service of a chain's kind, and the chain's
// name.
func (n *Node) indexRoute(chain, kind string) (http.Handler, string, error) {
	c, ok := n.chains.Resolve(chain)
	if !ok {
		return nil, "", fmt.Errorf("unknown chain %q", chain)
	}
	h, err := n.indexAPI(c, kind)
	return h, c.Alias, err
}

// indexAPI returns the index service of a chain's kind: one its VM
// declares, while the chain runs, or one of its legacy kinds, always.
func (n *Node) indexAPI(c *chains.Chain, kind string) (http.Handler, error) {
	if !c.IsLegacyIndexKind(kind) {
		inst, reason := c.Instance()
		if inst == nil {
			return nil, fmt.Errorf("chain %s is not running: %s", c.Alias, reason)
		}
		if !slices.Contains(inst.IndexKinds(), kind) {
			kinds := c.IndexKinds()
			if len(kinds) == 0 {
				return nil, fmt.Errorf("chain %s has no index", c.Alias)
			}
			return nil, fmt.Errorf("chain %s has no %q index; it indexes %s", c.Alias, kind, strings.Join(kinds, ", "))
		}
	}
	key := c.ID.String() + "/" + kind
	n.indexMu.Lock()
	defer n.indexMu.Unlock()
	h, ok := n.indexAPIs[key]
	if !ok {
		svc := index.NewHandler(n.indexes.Index(c.ID, kind), index.ServiceOptions{MaxBatchSize: n.cfg.APIMaxBatchSize})
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.incomplete.Load() {
				w.Header().Set(index.HeaderIncomplete, "true")
			}
			svc.ServeHTTP(w, r)
		})
		n.indexAPIs[key] = h
	}
	return h, nil
}

// Start scans the plugin dir, routes the modules (two modules claiming one
// path prefix stop the start), binds the chains' own listeners, starts the
// chains (one refused for serving unsafe APIs beyond loopback stops the
// start, core/exposure), then the modules, and listens.
func (n *Node) Start(ctx context.Context) error {
	n.log.Info("starting chainhost", "version", version.Version, "data-dir", n.cfg.DataDir, "plugin-dir", n.cfg.PluginDir)
	// Memory a burst of requests used goes back to the system once the
	// node is quiet again (sdk/memtrim).
	trimCtx, stopTrim := context.WithCancel(context.Background())
	n.stopTrim = stopTrim
	go memtrim.Run(trimCtx, memtrim.Options{})
	scan, err := n.plugins.Scan(ctx)
	if err != nil {
		return err
	}
	for _, vm := range scan.VMs {
		n.log.Info("VM registered", "name", vm.Desc.Name, "id", vm.ID, "version", vm.Desc.Version)
	}
	for _, mod := range scan.Modules {
		n.log.Info("module plugin registered", "name", mod.Desc.Name, "version", mod.Desc.Version, "prefixes", mod.Desc.Prefixes)
	}
	for file, ferr := range scan.Failed {
		n.log.Warn("plugin not loaded", "file", file, "error", ferr)
	}
	// A run starts from the binaries installed: the copies of an earlier
	// run go.
	if err := n.plugins.Prune(); err != nil {
		n.log.Warn("plugin cache", "error", err)
	}
	if failed := n.routeModules(); len(failed) > 0 {
		var errs []error
		for _, err := range failed {
			errs = append(errs, err)
		}
		return fmt.Errorf("route modules: %w", errors.Join(errs...))
	}
	if err := n.chains.Listen(); err != nil {
		return err
	}
	for _, c := range n.chains.Chains() {
		if addr := c.ListenAddr(); addr != "" {
			n.log.Info("chain listener listening", "chain", c.Alias, "addr", addr)
		}
	}
	// Before the main listener opens, so that nothing is served first.
	if _, err := n.chains.StartPending(ctx); err != nil {
		return err
	}
	n.modules.StartPending(ctx)
	if n.srv, err = n.listen(net.JoinHostPort(n.cfg.HTTPHost, fmt.Sprint(n.cfg.HTTPPort)), n.router); err != nil {
		return err
	}
	n.log.Info("HTTP API listening", "addr", n.srv.Addr().String())
	for addr, routes := range n.routes {
		if addr == "" {
			continue
		}
		srv, err := n.listen(addr, routes)
		if err != nil {
			return fmt.Errorf("module listener: %w", err)
		}
		n.moduleSrvs[addr] = srv
		n.log.Info("module listener listening", "addr", srv.Addr().String(), "prefixes", routes.List())
	}
	return nil
}

// listen serves h on addr with the node's HTTP limits.
func (n *Node) listen(addr string, h http.Handler) (*server.Server, error) {
	return server.Listen(server.Options{Addr: addr, Limits: n.cfg.HTTPLimits(), Handler: h, Log: n.log})
}

// Addr is the HTTP listen address; nil before Start.
func (n *Node) Addr() net.Addr {
	if n.srv == nil {
		return nil
	}
	return n.srv.Addr()
}

// ModuleAddr is the address a module is served on: its own listener's, or
// the main one's; nil before Start.
func (n *Node) ModuleAddr(mod *modules.Module) net.Addr {
	if srv := n.moduleSrvs[mod.Listen()]; srv != nil {
		return srv.Addr()
	}
	return n.Addr()
}

// Chains is the chain manager.
func (n *Node) Chains() *chains.Manager { return n.chains }

// Modules is the module manager.
func (n *Node) Modules() *modules.Manager { return n.modules }

// Log is the main logger.
func (n *Node) Log() hclog.Logger { return n.log }

// Stop shuts the listeners down, stops the modules, then the chains they
// read, and closes the database. Later calls return the first's result.
func (n *Node) Stop(ctx context.Context) error {
	n.stopOnce.Do(func() { n.stopErr = n.stop(ctx) })
	return n.stopErr
}

// stop is Stop, once.
func (n *Node) stop(ctx context.Context) error {
	if n.stopTrim != nil {
		n.stopTrim()
	}
	var errs []error
	if n.srv != nil {
		if err := n.srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
	}
	for addr, srv := range n.moduleSrvs {
		if err := srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("module listener %s shutdown: %w", addr, err))
		}
	}
	if n.admin != nil {
		if err := n.admin.Close(); err != nil {
			errs = append(errs, fmt.Errorf("admin: %w", err))
		}
	}
	if err := n.modules.Stop(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := n.chains.Stop(ctx); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, n.close())
	return errors.Join(errs...)
}

func (n *Node) close() error {
	var errs []error
	if n.indexes != nil {
		n.indexes.Close() // stop the ID filter builders before their database
	}
	if n.sockets != "" {
		errs = append(errs, os.RemoveAll(n.sockets))
	}
	if n.db != nil {
		errs = append(errs, n.db.Close())
	}
	if n.logs != nil {
		errs = append(errs, n.logs.Close())
	}
	return errors.Join(errs...)
}
