// Package grpcplugin is the go-plugin wiring of the plugin protocol, the one
// definition that both the host (core/pluginhost) and the SDK (sdk.Serve,
// sdk/plugintest) use: the handshake, the gRPC message limits and
// flow-control windows, the go-plugin plugin that carries a
// pluginv1.PluginServer, and the broker server of the host services. It
// knows the protocol types, not the author's interfaces; plugin authors do
// not need it.
package grpcplugin

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
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

// HostServer is the host services' gRPC server on one broker ID.
type HostServer struct {
	// ID is the broker ID to pass in InitializeRequest.
	ID   uint32
	done chan struct{}

	mu      sync.Mutex
	srv     *grpc.Server // nil until the broker made it
	stopped bool
}

// ServeHost serves svc on a new broker ID in the background, until the
// broker closes or Stop.
func ServeHost(broker *plugin.GRPCBroker, svc host.Services) *HostServer {
	h := &HostServer{ID: broker.NextId(), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		broker.AcceptAndServe(h.ID, func(opts []grpc.ServerOption) *grpc.Server {
			s := NewGRPCServer(opts)
			host.RegisterServers(s, svc)
			h.mu.Lock()
			defer h.mu.Unlock()
			h.srv = s
			if h.stopped {
				s.Stop()
			}
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
	h.mu.Lock()
	h.stopped = true
	s := h.srv
	h.mu.Unlock()
	if s != nil {
		s.Stop()
	}
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
