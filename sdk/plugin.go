package sdk

import (
	"context"
	"net/http"
	"time"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/hashicorp/go-hclog"
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

// HealthChecker is implemented by plugins that can report being unhealthy;
// a plugin without it is healthy while it answers.
type HealthChecker interface {
	// Health returns nil when healthy, or why not.
	Health(ctx context.Context) error
}

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
	// Kind is pluginv1.KindVM or pluginv1.KindModule.
	Kind string
	// ChainID is the blockchain ID of a VM instance; zero for a module.
	ChainID ids.ID
	// Name is the chain's primary alias, or the module name.
	Name string
	// Aliases lists all the chain's aliases.
	Aliases []string
	// NetworkID is the node's network ID.
	NetworkID uint32
	// Genesis is the chain's genesis, in JSON or the VM's own format.
	Genesis []byte
	// Config is the chain's or module's configuration, JSON.
	Config []byte
	// DataDir is a directory owned by this instance, for files the host's
	// database does not hold.
	DataDir string
	// NodeVersion is the host's version.
	NodeVersion string
	// BootstrapTime is when the node finished bootstrapping this chain; zero
	// when unknown.
	BootstrapTime time.Time
	// Logger writes to the host's log under Name; the host sets its level.
	Logger hclog.Logger
	// Host holds the services the host offers this instance.
	Host host.Services
}
