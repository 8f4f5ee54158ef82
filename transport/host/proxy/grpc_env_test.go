package proxy

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/chainhost/chainhost/internal/syncbuf"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/host/unixpool"
	"github.com/chainhost/chainhost/transport/httpgrpc"
	"github.com/chainhost/chainhost/transport/httpunix"
)

// maxMessage is the gRPC message limit of the test plugin connection.
const maxMessage = 64 << 20

// testPlugin is a Plugin service whose HTTP RPCs are served by a Server.
type testPlugin struct {
	pluginv1.UnimplementedPluginServer
	srv       *httpgrpc.Server
	noChannel bool         // answer ServeHTTPChannel Unimplemented, as an old plugin
	channels  atomic.Int32 // ServeHTTPChannel calls
	calls     atomic.Int32 // ServeHTTP calls
}

func (p *testPlugin) ServeHTTP(req *pluginv1.HTTPRequest, stream pluginv1.Plugin_ServeHTTPServer) error {
	p.calls.Add(1)
	return p.srv.ServeHTTP(req, stream)
}

func (p *testPlugin) ServeHTTPChannel(stream pluginv1.Plugin_ServeHTTPChannelServer) error {
	p.channels.Add(1)
	if p.noChannel {
		return p.UnimplementedPluginServer.ServeHTTPChannel(stream)
	}
	return p.srv.ServeHTTPChannel(stream)
}

func (p *testPlugin) ServeWebSocket(stream pluginv1.Plugin_ServeWebSocketServer) error {
	return p.srv.ServeWebSocket(stream)
}

// envOptions shapes a test environment.
type envOptions struct {
	handlers  map[string]http.Handler // the plugin's handlers
	routes    []string                // handler names the host routes; default: the keys of handlers
	host      Options                 // Handler, Client and OnError are filled in unless set
	chunkSize int
	unix      bool // a unix socket instead of bufconn (benchmarks)
	noChannel bool // the plugin lacks ServeHTTPChannel
	data      bool // the plugin serves a data socket too (benchmarks)
	// service replaces the Plugin service (a misbehaving plugin).
	service pluginv1.PluginServer
}

// env is a plugin served over real in-process gRPC, and a real HTTP server
// in front of NewHandler, routing /ext/<name>/... to handler <name>.
type env struct {
	plugin *testPlugin
	grpc   *grpc.Server
	conn   *grpc.ClientConn
	front  *httptest.Server
	logs   *syncbuf.Buffer
	mu     sync.Mutex
	errors []recordedError
}

// recordedError is one OnError call.
type recordedError struct {
	status int
	err    error
}

func newEnv(tb testing.TB, o envOptions) *env {
	tb.Helper()
	e := &env{logs: &syncbuf.Buffer{}}
	logger := hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: e.logs, Level: hclog.Debug})
	srv := httpgrpc.NewServer(httpgrpc.ServerOptions{
		Lookup: func(name string) (http.Handler, bool) {
			h, ok := o.handlers[name]
			return h, ok
		},
		Logger:    logger,
		ChunkSize: o.chunkSize,
	})
	e.grpc = grpc.NewServer(grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage))
	e.plugin = &testPlugin{srv: srv, noChannel: o.noChannel}
	var service pluginv1.PluginServer = e.plugin
	if o.service != nil {
		service = o.service
	}
	pluginv1.RegisterPluginServer(e.grpc, service)

	var lis net.Listener
	dialOpts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)),
	}
	target := "passthrough:///bufnet"
	if o.unix {
		sock := filepath.Join(tb.TempDir(), "plugin.sock")
		l, err := net.Listen("unix", sock)
		if err != nil {
			tb.Fatalf("listen %s: %v", sock, err)
		}
		lis, target = l, "unix://"+sock
	} else {
		bl := bufconn.Listen(1 << 20)
		lis = bl
		dialOpts = append(dialOpts, grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return bl.DialContext(ctx)
		}))
	}
	go func() { _ = e.grpc.Serve(lis) }()
	conn, err := grpc.NewClient(target, dialOpts...)
	if err != nil {
		tb.Fatalf("grpc client: %v", err)
	}
	e.conn = conn
	client := pluginv1.NewPluginClient(conn)
	var pool *unixpool.Pool
	if o.data {
		sock := filepath.Join(tb.TempDir(), "data.sock")
		l, err := net.Listen("unix", sock)
		if err != nil {
			tb.Fatalf("listen %s: %v", sock, err)
		}
		dataSrv := httpunix.Serve(l, func(name string) (http.Handler, bool) {
			h, ok := o.handlers[name]
			return h, ok
		}, nil)
		pool = unixpool.NewPool(sock)
		tb.Cleanup(func() {
			pool.Close()
			_ = dataSrv.Shutdown(context.Background())
		})
	}

	routes := o.routes
	if routes == nil {
		for name := range o.handlers {
			routes = append(routes, name)
		}
	}
	mux := http.NewServeMux()
	for _, name := range routes {
		opts := o.host
		opts.Handler = name
		if opts.Process == nil {
			opts.Process = func() (Process, error) { return Process{Client: client, Pool: pool}, nil }
		}
		if opts.OnError == nil {
			opts.OnError = e.onError
		}
		prefix := "/ext/" + name
		h := http.StripPrefix(prefix, NewHandler(opts))
		mux.Handle(prefix, h)
		mux.Handle(prefix+"/", h)
	}
	e.front = httptest.NewServer(mux)
	tb.Cleanup(func() {
		e.front.Close()
		_ = e.conn.Close()
		e.grpc.Stop()
	})
	return e
}

// onError records the error and writes "<status>: <error>".
func (e *env) onError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	e.mu.Lock()
	e.errors = append(e.errors, recordedError{status: status, err: err})
	e.mu.Unlock()
	http.Error(w, err.Error(), status)
}

// lastError returns the latest OnError call, if any.
func (e *env) lastError() (recordedError, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.errors) == 0 {
		return recordedError{}, false
	}
	return e.errors[len(e.errors)-1], true
}

// url returns the front server's URL of a path.
func (e *env) url(path string) string { return e.front.URL + path }

// settleGoroutines waits until no more than want goroutines run, failing
// with every stack after 5 seconds.
func settleGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= want {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines still running, want at most %d:\n%s", n, want, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
