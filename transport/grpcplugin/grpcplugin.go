// Package grpcplugin is the go-plugin wiring of the plugin protocol, the one
// definition that both the host (core/pluginhost) and the SDK (sdk.Serve,
// sdk/plugintest) use: the handshake, the gRPC message limits and
// flow-control windows, the go-plugin plugin that carries a
// pluginv1.PluginServer, the configuration a plugin process serves it
// with, and the broker server of the host services. It
// knows the protocol types, not the author's interfaces; plugin authors do
// not need it.
package grpcplugin

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
)

// MaxMessageSize is the gRPC message limit, both ways, on every connection
// between host and plugin (the default 4 MiB is too small for blocks and
// request bodies).
const MaxMessageSize = 64 << 20

// Handshake returns the go-plugin handshake of the current protocol version.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  pluginv1.ProtocolVersion,
		MagicCookieKey:   pluginv1.MagicCookieKey,
		MagicCookieValue: pluginv1.MagicCookieValue,
	}
}

// WindowSize is the fixed HTTP/2 flow-control window of every connection
// between host and plugin. Setting it turns off gRPC's bandwidth-delay
// probing, whose pings add a round trip to small calls on a local socket.
const WindowSize = 4 << 20

// streamWorkers is the number of goroutines that serve calls. Reused
// goroutines keep the stacks that deep handlers (go-ethereum's RPC server)
// have grown; a fresh goroutine per call grows and copies its stack each
// time. Calls beyond the workers still get goroutines of their own.
var streamWorkers = uint32(max(4, 2*runtime.GOMAXPROCS(0)))

// NewGRPCServer returns a gRPC server with opts and the raised message
// limits; it fits plugin.ServeConfig.GRPCServer and broker.AcceptAndServe.
func NewGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.MaxRecvMsgSize(MaxMessageSize), grpc.MaxSendMsgSize(MaxMessageSize),
		grpc.InitialWindowSize(WindowSize), grpc.InitialConnWindowSize(WindowSize),
		grpc.NumStreamWorkers(streamWorkers))
	return grpc.NewServer(opts...)
}

// DialOptions returns the client options that raise the message limits.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(MaxMessageSize),
			grpc.MaxCallSendMsgSize(MaxMessageSize),
		),
		grpc.WithInitialWindowSize(WindowSize),
		grpc.WithInitialConnWindowSize(WindowSize),
	}
}

// Plugin is the go-plugin GRPCPlugin of a chainhost plugin.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	// NewServer returns the server to register; broker reaches the host.
	NewServer func(broker *plugin.GRPCBroker) pluginv1.PluginServer
}

var _ plugin.GRPCPlugin = (*Plugin)(nil)

// GRPCServer registers the plugin's server on s, in the plugin process.
func (p *Plugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	if p.NewServer == nil {
		return fmt.Errorf("register plugin server: no NewServer")
	}
	pluginv1.RegisterPluginServer(s, p.NewServer(broker))
	return nil
}

// GRPCClient returns a *Client for conn, in the host process.
func (p *Plugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return &Client{PluginClient: pluginv1.NewPluginClient(conn), Broker: broker}, nil
}

// Client is the host's side of one plugin connection.
type Client struct {
	pluginv1.PluginClient
	// Broker serves the host services to the plugin.
	Broker *plugin.GRPCBroker
}

// Stopper builds a gRPC server with the raised limits for go-plugin, which
// builds its servers itself, and stops it on request: now, or as soon as
// it is built.
type Stopper struct {
	mu      sync.Mutex
	srv     *grpc.Server // nil until built
	stopped bool
}

// NewServer is NewGRPCServer for go-plugin's factories (ServeConfig's
// GRPCServer, broker.AcceptAndServe); a server built after Stop is stopped
// at once.
func (s *Stopper) NewServer(opts []grpc.ServerOption) *grpc.Server {
	srv := NewGRPCServer(opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.srv = srv
	if s.stopped {
		srv.Stop()
	}
	return srv
}

// Stop ends the server at once, open streams included, now or when it is
// built.
func (s *Stopper) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.srv != nil {
		s.srv.Stop()
	}
}

// Broker is the go-plugin broker of a plugin process, known once go-plugin
// has registered the plugin's server; the host services are dialled
// through it.
type Broker struct {
	b atomic.Pointer[plugin.GRPCBroker]
}

// DialHost opens the host services the host serves on broker ID id.
func (b *Broker) DialHost(id uint32) (host.Services, io.Closer, error) {
	broker := b.b.Load()
	if broker == nil {
		return host.Services{}, nil, fmt.Errorf("connect host services: no go-plugin broker")
	}
	return DialHost(broker, id)
}

// ServeConfig is go-plugin's configuration of a plugin process that serves
// srv on a gRPC server made by grpcServer, and records the broker in b.
func ServeConfig(srv pluginv1.PluginServer, b *Broker, grpcServer func([]grpc.ServerOption) *grpc.Server, logger hclog.Logger) *plugin.ServeConfig {
	return &plugin.ServeConfig{
		HandshakeConfig: Handshake(),
		VersionedPlugins: map[int]plugin.PluginSet{
			pluginv1.ProtocolVersion: {
				pluginv1.PluginName: &Plugin{NewServer: func(broker *plugin.GRPCBroker) pluginv1.PluginServer {
					b.b.Store(broker)
					return srv
				}},
			},
		},
		GRPCServer: grpcServer,
		Logger:     logger,
	}
}

// HostServer is the host services' gRPC server on one broker ID.
type HostServer struct {
	// ID is the broker ID to pass in InitializeRequest.
	ID      uint32
	done    chan struct{}
	stopper Stopper
}

// ServeHost serves svc on a new broker ID in the background, until the
// broker closes or Stop.
func ServeHost(broker *plugin.GRPCBroker, svc host.Services) *HostServer {
	h := &HostServer{ID: broker.NextId(), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		broker.AcceptAndServe(h.ID, func(opts []grpc.ServerOption) *grpc.Server {
			s := h.stopper.NewServer(opts)
			host.RegisterServers(s, svc) // a stopped server only refuses to serve
			return s
		})
	}()
	return h
}

// Done is closed when the server has stopped serving.
func (h *HostServer) Done() <-chan struct{} { return h.done }

// Stop ends the server at once, open streams included, and waits until it
// has stopped serving. go-plugin stops a broker server gracefully, which a
// following Feed stream would hold open forever; a host whose plugin is
// gone stops it with Stop instead.
func (h *HostServer) Stop() {
	h.stopper.Stop()
	<-h.done
}

// DialHost opens the host services the host serves on broker ID id.
func DialHost(broker *plugin.GRPCBroker, id uint32) (host.Services, io.Closer, error) {
	conn, err := broker.DialWithOptions(id, DialOptions()...)
	if err != nil {
		return host.Services{}, nil, fmt.Errorf("dial host services on broker ID %d: %w", id, err)
	}
	return host.NewClients(conn), conn, nil
}
