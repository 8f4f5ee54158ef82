// Package node assembles the host: logs, storage, index, aliases, VM
// registry, chains and the HTTP server, and takes them down in order.
package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/admin"
	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/health"
	"github.com/chainhost/chainhost/core/index"
	"github.com/chainhost/chainhost/core/info"
	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/server"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/core/version"
	"github.com/chainhost/chainhost/core/vms"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Node is a running chainhost.
type Node struct {
	cfg     *config.Config
	logs    *logging.Registry
	log     hclog.Logger
	db      *storage.DB
	indexes *index.Indexes
	chains  *chains.Manager
	vms     *vms.Registry
	metrics *metrics.Metrics
	router  *server.Router
	srv     *server.Server
	aliases *aliases.Chains
	admin   *admin.Service // nil unless api-admin-enabled

	// indexFlags holds the persisted index start-up flags.
	indexFlags *storage.Namespace
	// incomplete says the index may miss containers accepted while
	// indexing was off; cleared once every chain has been backfilled.
	incomplete atomic.Bool
	indexMu    sync.Mutex
	indexAPIs  map[string]http.Handler
}

// New opens the node's state. display receives the human-readable log.
func New(cfg *config.Config, display io.Writer) (_ *Node, err error) {
	// n is not the named result: the error returns set that to nil, and the
	// cleanup needs n.
	n := &Node{cfg: cfg, metrics: metrics.New(), indexAPIs: map[string]http.Handler{}}
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
	n.log = n.logs.Get("main")
	if n.db, err = storage.Open(filepath.Join(cfg.DataDir, "db")); err != nil {
		return nil, err
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
	n.vms = vms.New(cfg.PluginDir)
	n.chains, err = chains.New(chains.Options{
		Config: cfg, DB: n.db, Indexes: n.indexes, Aliases: al, VMs: n.vms,
		Logs: n.logs, Metrics: n.metrics, Log: n.log, OnIndexComplete: onIndexComplete,
	})
	if err != nil {
		return nil, err
	}
	var indexRoute server.IndexRoute
	if n.indexes != nil {
		indexRoute = n.indexAPI
	}
	n.router = server.NewRouter(n.chains, n.metrics, indexRoute)
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
			Router: n.router, Chains: n.chains, Aliases: n.aliases, VMs: n.vms, Logs: n.logs,
			ProfileDir: n.cfg.ProfileDir, Log: n.log, RPC: n.rpcOptions("admin"),
		})
		n.router.Handle("admin", n.admin.Handler())
	}
	if n.cfg.APIHealthEnabled {
		n.router.Handle("health", health.New(n.chains).Handler(n.rpcOptions("health")))
	}
	if n.cfg.APIMetricsEnabled {
		n.router.Handle("metrics", n.metrics.Handler())
	}
	if n.cfg.APIInfoEnabled {
		n.router.Handle("info", info.NewService(info.Options{
			NetworkID: n.cfg.NetworkID, Chains: n.chains, VMs: n.vms, RPC: n.rpcOptions("info"),
		}))
	}
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

// Start scans the plugin dir, starts the chains and listens.
func (n *Node) Start(ctx context.Context) error {
	n.log.Info("starting chainhost", "version", version.Version, "data-dir", n.cfg.DataDir, "plugin-dir", n.cfg.PluginDir)
	added, failed, err := n.vms.Scan(ctx)
	if err != nil {
		return err
	}
	for _, vm := range added {
		n.log.Info("VM registered", "name", vm.Desc.Name, "id", vm.ID, "version", vm.Desc.Version)
	}
	for file, ferr := range failed {
		n.log.Warn("plugin not loaded", "file", file, "error", ferr)
	}
	n.chains.StartPending(ctx)
	n.srv, err = server.Listen(server.Options{
		Addr:              net.JoinHostPort(n.cfg.HTTPHost, fmt.Sprint(n.cfg.HTTPPort)),
		ReadHeaderTimeout: n.cfg.HTTPReadHeaderTimeout,
		MaxBodyBytes:      int64(n.cfg.HTTPMaxBodySize),
		Handler:           n.router,
		Log:               n.log,
	})
	if err != nil {
		return err
	}
	n.log.Info("HTTP API listening", "addr", n.srv.Addr().String())
	return nil
}

// Addr is the HTTP listen address; nil before Start.
func (n *Node) Addr() net.Addr {
	if n.srv == nil {
		return nil
	}
	return n.srv.Addr()
}

// Chains is the chain manager.
func (n *Node) Chains() *chains.Manager { return n.chains }

// Log is the main logger.
func (n *Node) Log() hclog.Logger { return n.log }

// Stop shuts the server down, stops the plugins and closes the database.
func (n *Node) Stop(ctx context.Context) error {
	var errs []error
	if n.srv != nil {
		if err := n.srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
	}
	if n.admin != nil {
		if err := n.admin.Close(); err != nil {
			errs = append(errs, fmt.Errorf("admin: %w", err))
		}
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
	if n.db != nil {
		errs = append(errs, n.db.Close())
	}
	if n.logs != nil {
		errs = append(errs, n.logs.Close())
	}
	return errors.Join(errs...)
}
