package sdk

import (
	"context"
	"net/http"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
)

// Plugin is what a VM or REST module implements.
type Plugin interface {
	// Initialize starts the instance described by env. ctx bounds only the
	// initialization; goroutines that outlive it need their own context,
	// stopped in Shutdown.
	Initialize(ctx context.Context, env *Env) error
	// Handlers returns the HTTP handlers by name ("rpc", "ws", ...), served
	// at /ext/bc/<chain>/<name> for a VM. It is called once, after
	// Initialize succeeded.
	Handlers() map[string]http.Handler
	// Shutdown stops the instance; it is called at most once.
	Shutdown(ctx context.Context) error
}

// Module is what a REST module implements: a plugin that is not a chain
// and serves URL path prefixes of its own (docs/modules.md). Serve it with
// ServeOpts.Module.
type Module interface {
	// Initialize starts the module described by env; as Plugin.Initialize.
	Initialize(ctx context.Context, env *Env) error
	// Handler serves every request under the module's path prefixes. It
	// sees each request's whole path, escaped path and query as the
	// client sent them (r.URL.Path is "/v1/chains/..."), so an
	// http.ServeMux with the API's patterns fits. Called once, after
	// Initialize succeeded.
	Handler() http.Handler
	// Shutdown stops the module; it is called at most once.
	Shutdown(ctx context.Context) error
}

// HealthChecker is implemented by plugins that can report being unhealthy;
// a plugin without it is healthy while it answers.
type HealthChecker interface {
	// Health returns nil when healthy, or why not.
	Health(ctx context.Context) error
}

// HealthDetailer is implemented by plugins that add details to their entry
// of the node's health report (/ext/health), such as an indexer's height
// and its lag behind the chain. The map is shown as a JSON object.
type HealthDetailer interface {
	// HealthDetails returns the details; nil shows none.
	HealthDetails(ctx context.Context) map[string]any
}

// InternalHandlerSource is implemented by VMs with handlers that the node
// never serves over HTTP: only other plugins reach them, through the
// host's chain calls (host.ChainCaller). The EVM serves the data indexer
// there. A name may not be both public and internal.
type InternalHandlerSource interface {
	// InternalHandlers returns the internal handlers by name. It is called
	// once, after Initialize succeeded.
	InternalHandlers() map[string]http.Handler
}

// UnsafeAPISource is implemented by VMs that serve API families unsafe in
// public: methods that change the chain at a caller's will (a dev API that
// moves its clock or mines on demand) or that keep secrets on the server (a
// personal API's keystore). The node refuses to serve such a chain on an
// address beyond loopback unless the operator allows each family by name,
// <chain alias>.<family> in http-allow-unsafe-apis (docs/modules.md,
// "Unsafe APIs"). A VM without it declares none.
type UnsafeAPISource interface {
	// UnsafeAPIs names the families this instance serves, as its config
	// turns them on: UnsafeAPIDev, UnsafeAPIPersonal or short names of the
	// VM's own. It is called once, after Initialize succeeded.
	UnsafeAPIs() []string
}

// Names of the unsafe API families most VMs have (UnsafeAPISource).
const (
	// UnsafeAPIDev is a dev API: methods that move the chain's clock, mine
	// or build blocks on demand.
	UnsafeAPIDev = "dev"
	// UnsafeAPIPersonal is a personal API: accounts whose keys the node
	// keeps and signs with.
	UnsafeAPIPersonal = "personal"
)

// ContainerSource is implemented by VMs that report accepted containers to
// the host's index. The host compares AcceptedCount with its index at start
// and fetches the missing ones with GetAccepted.
type ContainerSource interface {
	// IndexKinds lists the kinds of containers the VM indexes ("block",
	// "tx", "vtx").
	IndexKinds() []string
	// AcceptedCount returns how many containers of kind the VM accepted.
	AcceptedCount(ctx context.Context, kind string) (uint64, error)
	// GetAccepted returns the accepted container of kind at position, or an
	// error matching host.ErrNotFound. Index and Timestamp may be left zero.
	GetAccepted(ctx context.Context, kind string, position uint64) (host.Container, error)
}

// Env is what the host tells an instance at Initialize.
type Env struct {
	// Kind is KindVM or KindModule.
	Kind string
	// ChainID is the blockchain ID of a VM instance; zero for a module.
	ChainID ids.ID
	// Name is the chain's primary alias, or the module name.
	Name string
	// Aliases lists all the chain's aliases.
	Aliases []string
	// NetworkID is the node's network ID.
	NetworkID uint32
	// Genesis is a VM's genesis as JSON: the chain's inline genesis, or
	// the content of its genesis-file (which must be JSON); `{}` when its
	// config gives neither, so a VM needing one refuses `{}` with an error
	// that names the keys it wants. Nil for a module.
	Genesis []byte
	// Config is the chain's or module's config as JSON, `{}` when omitted.
	Config []byte
	// DataDir is a directory owned by this instance, for files the host's
	// database does not hold.
	DataDir string
	// Prefixes are the URL path prefixes the host routes to a module; nil
	// for a VM.
	Prefixes []string
	// NodeVersion is the host's version.
	NodeVersion string
	// BootstrapTime is when the node finished bootstrapping this chain; zero
	// when unknown.
	BootstrapTime time.Time
	// Logger writes to the host's log under Name; the host sets its level.
	Logger hclog.Logger
	// Metrics registers the instance's own Prometheus collectors; the host
	// serves them in /ext/metrics with the label plugin="<Name>".
	Metrics prometheus.Registerer
	// Host holds the services the host offers this instance.
	Host host.Services
}

// AsPlugin returns the Plugin that serves a module: its one handler,
// pluginv1.ModuleHandler, is the module's Handler. Serve and sdk/plugintest
// use it; module authors need not.
func AsPlugin(m Module) Plugin { return modulePlugin{m} }

// modulePlugin is a Module seen as a Plugin.
type modulePlugin struct{ m Module }

func (p modulePlugin) Initialize(ctx context.Context, env *Env) error {
	return p.m.Initialize(ctx, env)
}

func (p modulePlugin) Handlers() map[string]http.Handler {
	return map[string]http.Handler{pluginv1.ModuleHandler: p.m.Handler()}
}

func (p modulePlugin) Shutdown(ctx context.Context) error { return p.m.Shutdown(ctx) }

// Health forwards to the module's HealthChecker, if it has one.
func (p modulePlugin) Health(ctx context.Context) error {
	if hc, ok := p.m.(HealthChecker); ok {
		return hc.Health(ctx)
	}
	return nil
}

// HealthDetails forwards to the module's HealthDetailer, if it has one.
func (p modulePlugin) HealthDetails(ctx context.Context) map[string]any {
	if hd, ok := p.m.(HealthDetailer); ok {
		return hd.HealthDetails(ctx)
	}
	return nil
}
