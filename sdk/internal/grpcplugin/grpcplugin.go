// Package grpcplugin is the go-plugin plumbing shared by sdk.Serve and
// sdk/plugintest: the handshake, the gRPC message limits, the GRPCPlugin that
// registers a pluginv1.PluginServer, and the broker calls that carry the
// host services. It knows the protocol types, not the author's interfaces.
package grpcplugin

import (
	"context"
	"fmt"
	"io"
	"runtime"

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

// windowSize is the fixed HTTP/2 flow-control window. Setting it turns off
// gRPC's bandwidth-delay probing, whose pings add a round trip to small
// calls on a local socket.
const windowSize = 4 << 20

// streamWorkers is the number of goroutines that serve calls. Reused
// goroutines keep the stacks that deep handlers (go-ethereum's RPC server)
// have grown; a fresh goroutine per call grows and copies its stack each
// time. Calls beyond the workers still get goroutines of their own.
var streamWorkers = uint32(max(4, 2*runtime.GOMAXPROCS(0)))

// NewGRPCServer returns a gRPC server with opts and the raised message
// limits; it fits plugin.ServeConfig.GRPCServer and broker.AcceptAndServe.
func NewGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.MaxRecvMsgSize(MaxMessageSize), grpc.MaxSendMsgSize(MaxMessageSize),
		grpc.InitialWindowSize(windowSize), grpc.InitialConnWindowSize(windowSize),
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
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
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

// ServeHost serves svc on a new broker ID in the background, until the
// broker closes, and returns the ID to pass in InitializeRequest and a
// channel closed when serving has ended.
func ServeHost(broker *plugin.GRPCBroker, svc host.Services) (id uint32, done <-chan struct{}) {
	id = broker.NextId()
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
			s := NewGRPCServer(opts)
			host.RegisterServers(s, svc)
			return s
		})
	}()
	return id, ch
}

// DialHost opens the host services the host serves on broker ID id.
func DialHost(broker *plugin.GRPCBroker, id uint32) (host.Services, io.Closer, error) {
	conn, err := broker.DialWithOptions(id, DialOptions()...)
	if err != nil {
		return host.Services{}, nil, fmt.Errorf("dial host services on broker ID %d: %w", id, err)
	}
	return host.NewClients(conn), conn, nil
}
