package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/chainlisten"
	"github.com/chainhost/chainhost/transport/grpcerr"
	"github.com/chainhost/chainhost/transport/httpgrpc"
	"github.com/chainhost/chainhost/transport/httpserve"
	"github.com/chainhost/chainhost/transport/httpunix"
	"github.com/chainhost/chainhost/transport/wire"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// PluginServerOptions configures NewPluginServer.
type PluginServerOptions struct {
	// Logger is the root logger; Env.Logger is named after the instance
	// below it and shares its level. Nil discards logs.
	Logger hclog.Logger
	// Connect opens the host services served on a go-plugin broker ID, and
	// returns what closes them at Shutdown. Env.Host is empty when nil.
	Connect func(brokerID uint32) (host.Services, io.Closer, error)
	// Description is the binary's, as `describe` prints it: Initialize
	// answers with it, so the host records what runs (protocol version 2,
	// docs/plugins.md). A host refuses a plugin that sends none; only a
	// harness that is no host may leave it empty.
	Description Description
}

// NewPluginServer returns the protocol server that runs p: the piece Serve
// registers with go-plugin, exported for harnesses like sdk/plugintest.
// Every call but Initialize and Shutdown fails with FailedPrecondition
// before Initialize succeeded; Shutdown before then only ends the server.
func NewPluginServer(p Plugin, opts PluginServerOptions) pluginv1.PluginServer {
	return newPluginServer(p, opts)
}

// serverState is where a pluginServer is in its life.
type serverState int

const (
	stateIdle serverState = iota
	stateInitializing
	stateReady
	stateShutDown
)

// pluginServer implements pluginv1.PluginServer over a Plugin.
type pluginServer struct {
	pluginv1.UnimplementedPluginServer
	plugin Plugin
	opts   PluginServerOptions

	mu     sync.Mutex
	state  serverState
	run    *instance // set while ready
	closer io.Closer // the host connection, set from Initialize to Shutdown

	shutdownOnce sync.Once
	shutdownErr  error
}

// instance is what a ready server serves with; immutable once built,
// but for listener, which the pluginServer's mu guards.
type instance struct {
	name    string
	logger  hclog.Logger
	http    *httpgrpc.Server
	source  ContainerSource // nil when the plugin reports no containers
	metrics prometheus.Gatherer
	// serveListener starts serving the chain's own listener, which the
	// host asked to hold until ServeListener; nil when there is none to
	// hold, or once served.
	serveListener func() (*httpserve.Server, error)
	// listener serves the chain's own listener; nil when it has none, or
	// while it is held.
	listener *httpserve.Server
	// data serves the host's data socket; nil when it sent none.
	data *httpunix.Server
}

func newPluginServer(p Plugin, opts PluginServerOptions) *pluginServer {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	return &pluginServer{plugin: p, opts: opts}
}

// description is the JSON of the server's Description, as `describe`
// prints it; nil when it has none.
func (s *pluginServer) description() ([]byte, error) {
	if s.opts.Description.Name == "" {
		return nil, nil
	}
	d, err := s.opts.Description.wire()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode description: %w", err)
	}
	return b, nil
}

// ready returns the running instance, or the status error for a call made
// before Initialize or after Shutdown.
func (s *pluginServer) ready() (*instance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case stateReady:
		return s.run, nil
	case stateShutDown:
		return nil, status.Error(codes.Unavailable, "plugin is shut down")
	default:
		return nil, status.Error(codes.FailedPrecondition, "plugin is not initialized")
	}
}

// Initialize connects the host services, builds the Env and starts the plugin.
func (s *pluginServer) Initialize(ctx context.Context, req *pluginv1.InitializeRequest) (*pluginv1.InitializeResponse, error) {
	env, level, err := envFromRequest(req)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	s.mu.Lock()
	switch s.state {
	case stateIdle:
		s.state = stateInitializing
	case stateShutDown:
		s.mu.Unlock()
		return nil, status.Error(codes.Unavailable, "plugin is shut down")
	default:
		s.mu.Unlock()
		return nil, status.Error(codes.FailedPrecondition, "plugin is already initialized")
	}
	s.mu.Unlock()

	resp, run, closer, err := s.start(ctx, req, env, level)

	s.mu.Lock()
	if s.state == stateShutDown { // Shutdown came while the plugin started
		s.mu.Unlock()
		if err == nil {
			if run.data != nil {
				_ = run.data.Shutdown(ctx)
			}
			_ = s.plugin.Shutdown(ctx)
			closeQuietly(closer)
		}
		return nil, status.Error(codes.Unavailable, "plugin was shut down during Initialize")
	}
	if err != nil {
		s.state = stateIdle
		s.mu.Unlock()
		return nil, err
	}
	s.state, s.run, s.closer = stateReady, run, closer
	s.mu.Unlock()
	return resp, nil
}

// start runs Initialize of the plugin and gathers what the server needs.
func (s *pluginServer) start(ctx context.Context, req *pluginv1.InitializeRequest, env *Env, level hclog.Level) (*pluginv1.InitializeResponse, *instance, io.Closer, error) {
	env.Logger = s.opts.Logger.Named(env.Name)
	env.Logger.SetLevel(level)
	registry := prometheus.NewRegistry()
	env.Metrics = registry
	var closer io.Closer
	if s.opts.Connect != nil {
		svc, c, err := s.opts.Connect(req.GetHostBrokerId())
		if err != nil {
			return nil, nil, nil, status.Error(codes.Unavailable, fmt.Sprintf("initialize %s: %v", env.Name, err))
		}
		env.Host, closer = svc, c
	}
	if err := s.plugin.Initialize(ctx, env); err != nil {
		closeQuietly(closer)
		return nil, nil, nil, grpcerr.ToStatus(fmt.Errorf("initialize %s: %w", env.Name, err), notFound)
	}
	handlers := make(map[string]http.Handler)
	for name, h := range s.plugin.Handlers() {
		if h == nil {
			env.Logger.Warn("handler is nil; not serving it", "handler", name)
			continue
		}
		handlers[name] = h
	}
	var internal []string
	if src, ok := s.plugin.(InternalHandlerSource); ok {
		for name, h := range src.InternalHandlers() {
			if _, dup := handlers[name]; dup {
				_ = s.plugin.Shutdown(ctx)
				closeQuietly(closer)
				return nil, nil, nil, status.Error(codes.InvalidArgument,
					fmt.Sprintf("initialize %s: handler %q is both public and internal", env.Name, name))
			}
			if h == nil {
				env.Logger.Warn("internal handler is nil; not serving it", "handler", name)
				continue
			}
			handlers[name] = h
			internal = append(internal, name)
		}
	}
	slices.Sort(internal)
	public := make([]string, 0, len(handlers))
	for name := range handlers {
		if !slices.Contains(internal, name) {
			public = append(public, name)
		}
	}
	slices.Sort(public)
	lookup := func(name string) (http.Handler, bool) {
		h, ok := handlers[name]
		return h, ok
	}
	run := &instance{
		name:    env.Name,
		logger:  env.Logger,
		metrics: registry,
		http: httpgrpc.NewServer(httpgrpc.ServerOptions{
			Lookup: lookup,
			Logger: env.Logger,
		}),
	}
	resp := &pluginv1.InitializeResponse{Handlers: public, InternalHandlers: internal}
	desc, err := s.description()
	if err != nil {
		_ = s.plugin.Shutdown(ctx)
		closeQuietly(closer)
		return nil, nil, nil, status.Error(codes.FailedPrecondition, fmt.Sprintf("initialize %s: %v", env.Name, err))
	}
	resp.Description = desc
	if src, ok := s.plugin.(ContainerSource); ok {
		run.source = src
		resp.IndexKinds = slices.Clone(src.IndexKinds())
	}
	if src, ok := s.plugin.(UnsafeAPISource); ok {
		resp.UnsafeApis = slices.Compact(slices.Sorted(slices.Values(src.UnsafeAPIs())))
	}
	if l := req.GetListener(); l != nil {
		serve := func() (*httpserve.Server, error) {
			srv, err := serveListener(env, l, handlers, public, registry)
			if err != nil {
				return nil, fmt.Errorf("serve %s's own listener: %w", env.Name, err)
			}
			env.Logger.Info("serving the chain's own listener", "addr", l.GetAddr())
			return srv, nil
		}
		resp.ServesListener = true
		var err error
		if req.GetHoldListener() {
			run.serveListener = serve
		} else if run.listener, err = serve(); err != nil {
			_ = s.plugin.Shutdown(ctx)
			closeQuietly(closer)
			return nil, nil, nil, status.Error(codes.InvalidArgument, fmt.Sprintf("initialize %s: %v", env.Name, err))
		}
	}
	if fd := req.GetDataSocketFd(); fd != 0 {
		srv, err := httpunix.ServeFD(fd, lookup, env.Logger)
		if err != nil {
			if run.listener != nil {
				_ = run.listener.Shutdown(ctx)
			}
			_ = s.plugin.Shutdown(ctx)
			closeQuietly(closer)
			return nil, nil, nil, status.Error(codes.InvalidArgument, fmt.Sprintf("initialize %s: %v", env.Name, err))
		}
		run.data, resp.ServesDataSocket = srv, true
	}
	return resp, run, closer, nil
}

// ServeListener starts serving the chain's own listener that Initialize
// held; a listener already served, or none at all, is not an error.
func (s *pluginServer) ServeListener(context.Context, *pluginv1.ServeListenerRequest) (*pluginv1.ServeListenerResponse, error) {
	if _, err := s.ready(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	run := s.run
	if run == nil || run.serveListener == nil {
		return &pluginv1.ServeListenerResponse{}, nil
	}
	srv, err := run.serveListener()
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	run.listener, run.serveListener = srv, nil
	return &pluginv1.ServeListenerResponse{}, nil
}

// serveListener serves the public handlers of a chain on the listener the
// host handed its process.
func serveListener(env *Env, l *pluginv1.Listener, handlers map[string]http.Handler, public []string, reg prometheus.Registerer) (*httpserve.Server, error) {
	if env.Kind != pluginv1.KindVM {
		return nil, fmt.Errorf("a listener of its own is for a chain, not a %s", env.Kind)
	}
	served := make(map[string]http.Handler, len(public))
	for _, name := range public {
		served[name] = handlers[name]
	}
	names := append([]string{env.Name}, env.Aliases...)
	if !env.ChainID.IsZero() {
		names = append(names, env.ChainID.String())
	}
	return chainlisten.Serve(chainlisten.Options{
		Listener: httpserve.ListenerFromProto(l),
		Name:     env.Name,
		Names:    names,
		Handlers: served,
		Metrics:  reg,
		Logger:   env.Logger,
	})
}

// envFromRequest returns the Env (without Logger and Host) and the log
// level an InitializeRequest asks for.
func envFromRequest(req *pluginv1.InitializeRequest) (*Env, hclog.Level, error) {
	level, err := parseLogLevel(req.GetLogLevel())
	if err != nil {
		return nil, 0, fmt.Errorf("initialize %s: %w", req.GetName(), err)
	}
	var chainID ids.ID
	if req.GetChainId() != "" {
		if chainID, err = ids.FromString(req.GetChainId()); err != nil {
			return nil, 0, fmt.Errorf("initialize %s: chain ID: %w", req.GetName(), err)
		}
	}
	kind := req.GetKind()
	if kind == "" {
		kind = KindVM
	}
	name := req.GetName()
	if name == "" {
		name = "plugin"
	}
	return &Env{
		Kind:          kind,
		ChainID:       chainID,
		Name:          name,
		Aliases:       req.GetAliases(),
		NetworkID:     req.GetNetworkId(),
		Genesis:       req.GetGenesis(),
		Config:        req.GetConfig(),
		DataDir:       req.GetDataDir(),
		Prefixes:      req.GetPrefixes(),
		NodeVersion:   req.GetNodeVersion(),
		BootstrapTime: wire.TimeFromProto(req.GetBootstrapTimeUnixNano()),
	}, level, nil
}

// notFound maps host.ErrNotFound to its gRPC code; read only.
var notFound = grpcerr.Sentinels{codes.NotFound: host.ErrNotFound}

// ServeHTTP serves one request with the named handler.
func (s *pluginServer) ServeHTTP(req *pluginv1.HTTPRequest, stream pluginv1.Plugin_ServeHTTPServer) error {
	run, err := s.ready()
	if err != nil {
		return err
	}
	return run.http.ServeHTTP(req, stream)
}

// ServeHTTPChannel serves the requests of one long-lived channel stream.
func (s *pluginServer) ServeHTTPChannel(stream pluginv1.Plugin_ServeHTTPChannelServer) error {
	run, err := s.ready()
	if err != nil {
		return err
	}
	return run.http.ServeHTTPChannel(stream)
}

// ServeWebSocket serves one WebSocket connection with the named handler.
func (s *pluginServer) ServeWebSocket(stream pluginv1.Plugin_ServeWebSocketServer) error {
	run, err := s.ready()
	if err != nil {
		return err
	}
	return run.http.ServeWebSocket(stream)
}

// Health asks the plugin's HealthChecker and HealthDetailer, if it has
// them.
func (s *pluginServer) Health(ctx context.Context, _ *pluginv1.HealthRequest) (*pluginv1.HealthResponse, error) {
	run, err := s.ready()
	if err != nil {
		return nil, err
	}
	resp := &pluginv1.HealthResponse{Healthy: true}
	if hc, ok := s.plugin.(HealthChecker); ok {
		if err := hc.Health(ctx); err != nil {
			resp.Healthy, resp.Reason = false, err.Error()
		}
	}
	if hd, ok := s.plugin.(HealthDetailer); ok {
		if details := hd.HealthDetails(ctx); details != nil {
			b, err := json.Marshal(details)
			if err != nil {
				// The report goes on without them; the author learns why.
				run.logger.Warn("health details are not JSON", "error", err)
			} else {
				resp.Details = b
			}
		}
	}
	return resp, nil
}

// Metrics gathers the collectors registered on Env.Metrics.
func (s *pluginServer) Metrics(context.Context, *pluginv1.MetricsRequest) (*pluginv1.MetricsResponse, error) {
	run, err := s.ready()
	if err != nil {
		return nil, err
	}
	families, err := run.metrics.Gather()
	if err != nil {
		// Gather returns what it could along with the error.
		run.logger.Warn("gather metrics", "error", err)
	}
	b, err := pluginv1.EncodeMetrics(families)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &pluginv1.MetricsResponse{Families: b}, nil
}

// SetLogLevel sets the level of the instance's logger.
func (s *pluginServer) SetLogLevel(_ context.Context, req *pluginv1.SetLogLevelRequest) (*pluginv1.SetLogLevelResponse, error) {
	run, err := s.ready()
	if err != nil {
		return nil, err
	}
	level, err := parseLogLevel(req.GetLevel())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, fmt.Sprintf("set log level of %s: %v", run.name, err))
	}
	run.logger.SetLevel(level)
	return &pluginv1.SetLogLevelResponse{}, nil
}

// AcceptedCount asks the plugin's ContainerSource.
func (s *pluginServer) AcceptedCount(ctx context.Context, req *pluginv1.AcceptedCountRequest) (*pluginv1.AcceptedCountResponse, error) {
	src, err := s.source()
	if err != nil {
		return nil, err
	}
	n, err := src.AcceptedCount(ctx, req.GetKind())
	if err != nil {
		return nil, grpcerr.ToStatus(fmt.Errorf("accepted %s count: %w", req.GetKind(), err), notFound)
	}
	return &pluginv1.AcceptedCountResponse{Count: n}, nil
}

// GetAccepted asks the plugin's ContainerSource.
func (s *pluginServer) GetAccepted(ctx context.Context, req *pluginv1.GetAcceptedRequest) (*pluginv1.GetAcceptedResponse, error) {
	src, err := s.source()
	if err != nil {
		return nil, err
	}
	c, err := src.GetAccepted(ctx, req.GetKind(), req.GetPosition())
	if err != nil {
		return nil, grpcerr.ToStatus(fmt.Errorf("accepted %s %d: %w", req.GetKind(), req.GetPosition(), err), notFound)
	}
	return &pluginv1.GetAcceptedResponse{Container: wire.ContainerToProto(c.ID, c.Bytes, c.Index, c.Timestamp)}, nil
}

// source returns the ContainerSource of a ready plugin, or the status error.
func (s *pluginServer) source() (ContainerSource, error) {
	run, err := s.ready()
	if err != nil {
		return nil, err
	}
	if run.source == nil {
		return nil, status.Error(codes.Unimplemented, fmt.Sprintf("plugin %s reports no accepted containers", run.name))
	}
	return run.source, nil
}

// Shutdown stops the plugin once; later calls return nil.
func (s *pluginServer) Shutdown(ctx context.Context, _ *pluginv1.ShutdownRequest) (*pluginv1.ShutdownResponse, error) {
	if err := s.shutdown(ctx); err != nil {
		return nil, grpcerr.ToStatus(err, notFound)
	}
	return &pluginv1.ShutdownResponse{}, nil
}

// shutdown calls Plugin.Shutdown and closes the host connection, the first
// time only; concurrent callers wait for the first.
func (s *pluginServer) shutdown(ctx context.Context) error {
	first := false
	s.shutdownOnce.Do(func() {
		first = true
		s.mu.Lock()
		wasReady := s.state == stateReady
		closer := s.closer
		var listener *httpserve.Server
		var data *httpunix.Server
		if s.run != nil {
			listener, data = s.run.listener, s.run.data
		}
		s.state, s.run, s.closer = stateShutDown, nil, nil
		s.mu.Unlock()
		if !wasReady {
			return
		}
		// The listener first, so that no request reaches a plugin that
		// is shutting down; the host keeps the socket open.
		if listener != nil {
			if err := listener.Shutdown(ctx); err != nil {
				s.opts.Logger.Warn("chain listener shutdown", "error", err)
			}
		}
		if data != nil {
			if err := data.Shutdown(ctx); err != nil {
				s.opts.Logger.Warn("data socket shutdown", "error", err)
			}
		}
		if err := s.plugin.Shutdown(ctx); err != nil {
			s.shutdownErr = fmt.Errorf("shut down plugin: %w", err)
		}
		closeQuietly(closer)
	})
	if first {
		return s.shutdownErr
	}
	return nil
}

// closeQuietly closes c if there is one; the error of closing a connection
// that is going away anyway tells nobody anything.
func closeQuietly(c io.Closer) {
	if c != nil {
		_ = c.Close()
	}
}
