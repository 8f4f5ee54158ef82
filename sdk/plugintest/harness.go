package plugintest

import (
	"context"
	"io"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/internal/memhost"
	"github.com/chainhost/chainhost/transport/grpcplugin"
)

// shutdownTimeout bounds the plugin's Shutdown at the end of a test.
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
	// Genesis and Config are passed to Initialize as they are.
	Genesis, Config []byte
	// DataDir is the instance's directory; t.TempDir() when empty.
	DataDir string
	// LogLevel is the chainhost level name; "INFO" when empty.
	LogLevel string
	// Logger receives the plugin's logs; a Warn-level stderr logger when nil.
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

// Harness is one plugin instance running behind gRPC, with its memory host.
type Harness struct {
	name    string
	chainID ids.ID
	client  pluginv1.PluginClient
	mem     *memhost.Host

	handlers   []string
	internal   []string
	indexKinds []string
	unsafeAPIs []string
	call       func(ctx context.Context, chain host.ChainInfo, handlerPath string, body []byte) (int, []byte, error)

	data *dataSocket

	mu      sync.Mutex
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
	h := &Harness{name: opts.Name, chainID: opts.ChainID, call: opts.Call, servers: make(map[string]*httptest.Server)}
	var self host.ChainInfo // none for a module
	if opts.Kind == sdk.KindVM {
		self = host.ChainInfo{ID: opts.ChainID, VMName: opts.Name, Aliases: append([]string{opts.Name}, opts.Aliases...)}
	}
	h.mem = memhost.New(memhost.Options{Self: self, Others: opts.Chains, Call: h.callChain})

	gp := &grpcplugin.Plugin{NewServer: func(b *plugin.GRPCBroker) pluginv1.PluginServer {
		return sdk.NewPluginServer(p, sdk.PluginServerOptions{
			Logger:  logger,
			Connect: func(id uint32) (host.Services, io.Closer, error) { return grpcplugin.DialHost(b, id) },
		})
	}}
	client, server := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{pluginv1.PluginName: gp})
	raw, err := client.Dispense(pluginv1.PluginName)
	if err != nil {
		t.Fatalf("plugintest: dispense plugin: %v", err)
	}
	conn := raw.(*grpcplugin.Client)
	h.client = conn
	hostSrv := grpcplugin.ServeHost(conn.Broker, h.mem.Services())
	data, err := bindDataSocket()
	if err != nil {
		t.Fatalf("plugintest: %v", err)
	}
	h.data = data

	// Cleanups run last-registered first: the plugin shuts down before the
	// connection closes, and the HTTP servers close before either.
	t.Cleanup(func() {
		h.data.close()
		_ = client.Close() // also stops the server, through go-plugin's controller
		<-server.DoneCh
		<-hostSrv.Done()
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if _, err := h.client.Shutdown(ctx, &pluginv1.ShutdownRequest{}); err != nil {
			t.Errorf("plugintest: shut down %s: %v", h.name, err)
		}
	})
	t.Cleanup(h.closeServers)

	resp, err := h.client.Initialize(context.Background(), &pluginv1.InitializeRequest{
		HostBrokerId: hostSrv.ID,
		Kind:         opts.Kind,
		ChainId:      chainIDText(opts),
		Name:         opts.Name,
		Aliases:      self.Aliases,
		Prefixes:     opts.Prefixes,
		NetworkId:    opts.NetworkID,
		Genesis:      opts.Genesis,
		Config:       opts.Config,
		DataDir:      opts.DataDir,
		LogLevel:     opts.LogLevel,
		NodeVersion:  "plugintest",
		DataSocketFd: data.fd,
	})
	if err != nil {
		t.Fatalf("plugintest: initialize %s: %v", opts.Name, err)
	}
	h.handlers, h.internal, h.indexKinds = resp.GetHandlers(), resp.GetInternalHandlers(), resp.GetIndexKinds()
	h.unsafeAPIs = resp.GetUnsafeApis()
	if opts.Kind == sdk.KindVM {
		self.Handlers, self.InternalHandlers, self.IndexKinds, self.Running = h.handlers, h.internal, h.indexKinds, true
		h.mem.SetSelf(self)
	}
	return h
}

// StartModule initializes a REST module as Start does a VM: Kind is
// sdk.KindModule, and ModuleURL serves the module's handler.
func StartModule(t testing.TB, m sdk.Module, opts Options) *Harness {
	t.Helper()
	opts.Kind = sdk.KindModule
	return Start(t, sdk.AsPlugin(m), opts)
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
	if opts.LogLevel == "" {
		opts.LogLevel = "INFO"
	}
	return opts
}
