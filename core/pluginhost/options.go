package pluginhost

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/core/version"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/grpcplugin"
	"github.com/chainhost/chainhost/transport/httpserve"
)

// Defaults of Options.
const (
	DefaultRestartBackoff    = 100 * time.Millisecond
	DefaultMaxRestartBackoff = 5 * time.Second
	// StableAfter is how long a process must run before the restart backoff
	// starts again from RestartBackoff.
	StableAfter = 30 * time.Second
	// StartTimeout bounds the go-plugin handshake of a new process.
	StartTimeout = 30 * time.Second
	// HealthTimeout bounds the Health RPC.
	HealthTimeout = 2 * time.Second
	// MetricsTimeout bounds the Metrics RPC, so a stuck plugin cannot stall
	// a scrape of /ext/metrics.
	MetricsTimeout = 2 * time.Second
	// ShutdownTimeout bounds the Shutdown RPC in Stop.
	ShutdownTimeout = 5 * time.Second
)

// Init is what the host tells a plugin instance in Initialize.
type Init struct {
	// Kind is pluginv1.KindVM or pluginv1.KindModule.
	Kind string
	// ChainID is the blockchain ID of a VM instance; zero for a module.
	ChainID ids.ID
	// Name is the chain's primary alias or the module name.
	Name      string
	Aliases   []string
	NetworkID uint32
	Genesis   []byte
	Config    []byte
	// DataDir is a directory owned by the instance.
	DataDir string
	// LogLevel is the initial most verbose level, e.g. "INFO".
	LogLevel    string
	NodeVersion string
	// BootstrapTime is when the node finished bootstrapping the chain.
	BootstrapTime time.Time
	// Prefixes are the URL path prefixes routed to a module.
	Prefixes []string
	// Listener, when set, is a listening socket the host keeps open for
	// the instance's whole life and hands to every process it starts,
	// which serves its handlers there itself (docs/listeners.md).
	Listener *Listener
}

// Listener is a listening socket passed to the plugin process.
type Listener struct {
	// File is the socket; the instance never closes it.
	File *os.File
	// Addr is the bound address.
	Addr string
	// Limits are the HTTP limits the plugin serves it with.
	Limits httpserve.Limits
}

// request builds the InitializeRequest for a process whose host services
// listen on brokerID, with the log level currently in force.
// dataFD, when not 0, is the descriptor of the data socket in the process.
func (in Init) request(brokerID uint32, logLevel string, dataFD uint32) *pluginv1.InitializeRequest {
	req := &pluginv1.InitializeRequest{
		HostBrokerId: brokerID,
		Kind:         in.Kind,
		Name:         in.Name,
		Aliases:      in.Aliases,
		NetworkId:    in.NetworkID,
		Genesis:      in.Genesis,
		Config:       in.Config,
		DataDir:      in.DataDir,
		LogLevel:     logLevel,
		NodeVersion:  in.NodeVersion,
		Prefixes:     in.Prefixes,
		DataSocketFd: dataFD,
	}
	if in.Listener != nil {
		// launch passes the socket as the process's first inherited file.
		req.Listener = httpserve.Listener{FD: httpserve.FirstInheritedFD, Addr: in.Listener.Addr, Limits: in.Listener.Limits}.ToProto()
		// Served once Options.Admit has let the process serve (startProcess).
		req.HoldListener = true
	}
	if !in.ChainID.IsZero() {
		req.ChainId = in.ChainID.String()
	}
	if !in.BootstrapTime.IsZero() {
		req.BootstrapTimeUnixNano = in.BootstrapTime.UnixNano()
	}
	return req
}

// Options configures a plugin instance.
type Options struct {
	// Path is the plugin binary as installed: the process runs under its
	// name (argv[0]).
	Path string
	// Exec is the file run: Path's copy in the plugin cache, which keeps
	// the bytes registered whatever happens to Path (docs/plugins.md,
	// "Upgrades in place"); empty runs Path.
	Exec string
	// SHA256, when set, is the checksum the binary must have to be run.
	SHA256 []byte
	// Init is sent in Initialize to every process of the instance.
	Init Init
	// Logger receives the plugin's log lines, its stray stdout and stderr
	// writes, and the supervisor's own lines; use the log registry's
	// PluginLogger. Nil logs at INFO to stderr.
	Logger hclog.Logger
	// Services are the host services bound to this instance.
	Services host.Services
	// RestartBackoff is the first delay before a restart; it doubles up to
	// MaxRestartBackoff and starts over after StableAfter of running.
	RestartBackoff, MaxRestartBackoff time.Duration
	// MaxBodyBytes caps HTTP request bodies forwarded by Handler; it must be
	// below grpcplugin.MaxMessageSize. 0 means httpwire.DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// RequestTimeout bounds each request Handler forwards (WebSocket
	// sessions excepted): a plugin that has not answered by then is
	// answered for with 504 (httpwire.ErrPluginTimeout). 0 means none.
	RequestTimeout time.Duration
	// SocketDir, when set, is a directory only the host's user can open,
	// where the instance binds its data socket: the host's requests then
	// reach the plugin over it instead of gRPC (transport/httpunix). Empty, or a
	// socket that cannot be bound there, keeps them on gRPC.
	SocketDir string
	// Admit runs after every Initialize, with the API families the plugin
	// declared unsafe in public, before the process serves its own
	// listener or any request; an error fails the start.
	Admit func(unsafeAPIs []string) error
	// OnStart runs after every start and Initialize, before the instance is
	// marked running; an error fails the start.
	OnStart func(ctx context.Context, inst *Instance) error
	// OnStateChange is told every state change, with its reason.
	OnStateChange func(s State, reason string)
}

// NodeOptions returns the Options of one of the node's plugin instances,
// the chain or module init.Name running exec, the plugin cache's copy of
// the binary installed at path: what the node's config and log registry
// give every instance (path's pin, the network, the initial log level,
// the restart backoff and request limits, socketDir), over init's own
// fields, with init.DataDir created. The caller adds Services and the
// callbacks.
func NodeOptions(cfg *config.Config, logs *logging.Registry, socketDir, path, exec string, init Init) (Options, error) {
	if err := os.MkdirAll(init.DataDir, 0o700); err != nil {
		return Options{}, fmt.Errorf("%s data dir: %w", init.Name, err)
	}
	pin, err := cfg.PluginPin(path)
	if err != nil {
		return Options{}, err
	}
	logger := logs.PluginLogger(init.Name) // the logger exists before its levels are read
	levels, err := logs.Levels(init.Name)
	if err != nil {
		return Options{}, err
	}
	init.NetworkID = cfg.NetworkID
	init.LogLevel = levels.Min().String()
	init.NodeVersion = version.Version
	return Options{
		Path:              path,
		Exec:              exec,
		SHA256:            pin,
		Init:              init,
		Logger:            logger,
		RestartBackoff:    cfg.PluginRestartBackoff,
		MaxRestartBackoff: cfg.PluginRestartMaxBackoff,
		MaxBodyBytes:      int64(cfg.HTTPMaxBodySize),
		RequestTimeout:    cfg.PluginRequestTimeout,
		SocketDir:         socketDir,
	}, nil
}

// withDefaults checks opts and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Path == "" {
		return o, fmt.Errorf("plugin %s: no binary path", o.Init.Name)
	}
	if o.Exec == "" {
		o.Exec = o.Path
	}
	if o.Init.Kind != pluginv1.KindVM && o.Init.Kind != pluginv1.KindModule {
		return o, fmt.Errorf("plugin %s: kind %q, want %q or %q", o.Init.Name, o.Init.Kind, pluginv1.KindVM, pluginv1.KindModule)
	}
	if o.SHA256 != nil && len(o.SHA256) != 32 {
		return o, fmt.Errorf("plugin %s: sha256 pin has %d bytes, want 32", o.Init.Name, len(o.SHA256))
	}
	if o.RestartBackoff <= 0 {
		o.RestartBackoff = DefaultRestartBackoff
	}
	if o.MaxRestartBackoff <= 0 {
		o.MaxRestartBackoff = DefaultMaxRestartBackoff
	}
	o.MaxRestartBackoff = max(o.MaxRestartBackoff, o.RestartBackoff)
	// A request travels in one message, with its headers.
	if o.MaxBodyBytes >= grpcplugin.MaxMessageSize {
		return o, fmt.Errorf("plugin %s: max body size %d must be below the max message size %d", o.Init.Name, o.MaxBodyBytes, grpcplugin.MaxMessageSize)
	}
	return o, nil
}
