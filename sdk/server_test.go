package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// stubPlugin records its lifecycle; it has no optional interfaces.
type stubPlugin struct {
	initErr   error
	env       *Env
	inits     atomic.Int32
	shutdowns atomic.Int32
}

func (p *stubPlugin) Initialize(_ context.Context, env *Env) error {
	p.inits.Add(1)
	if p.initErr != nil {
		return p.initErr
	}
	p.env = env
	return nil
}

func (p *stubPlugin) Handlers() map[string]http.Handler {
	return map[string]http.Handler{"rpc": http.NotFoundHandler(), "ws": http.NotFoundHandler()}
}

func (p *stubPlugin) Shutdown(context.Context) error {
	p.shutdowns.Add(1)
	return nil
}

// closerFunc counts the closes of the host connection.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func initRequest() *pluginv1.InitializeRequest {
	return &pluginv1.InitializeRequest{
		HostBrokerId:          7,
		ChainId:               ids.ID{9}.String(),
		Name:                  "C",
		Aliases:               []string{"C", "evm"},
		NetworkId:             5,
		Genesis:               []byte("gen"),
		Config:                []byte("{}"),
		DataDir:               "/data",
		LogLevel:              "debug",
		NodeVersion:           "v9",
		BootstrapTimeUnixNano: time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC).UnixNano(),
	}
}

func TestServerBeforeInitialize(t *testing.T) {
	s := newPluginServer(&stubPlugin{}, PluginServerOptions{})
	ctx := t.Context()
	calls := map[string]error{}
	_, calls["Health"] = s.Health(ctx, &pluginv1.HealthRequest{})
	_, calls["SetLogLevel"] = s.SetLogLevel(ctx, &pluginv1.SetLogLevelRequest{Level: "INFO"})
	_, calls["AcceptedCount"] = s.AcceptedCount(ctx, &pluginv1.AcceptedCountRequest{Kind: "block"})
	_, calls["GetAccepted"] = s.GetAccepted(ctx, &pluginv1.GetAcceptedRequest{Kind: "block"})
	calls["ServeHTTP"] = s.ServeHTTP(&pluginv1.HTTPRequest{Handler: "rpc"}, nil)
	calls["ServeWebSocket"] = s.ServeWebSocket(nil)
	for name, err := range calls {
		if status.Code(err) != codes.FailedPrecondition {
			t.Errorf("%s before Initialize = %v, want FailedPrecondition", name, err)
		}
	}
}

func TestServerInitialize(t *testing.T) {
	p := &stubPlugin{}
	var dialed uint32
	var closes atomic.Int32
	logger := hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Info})
	s := newPluginServer(p, PluginServerOptions{
		Logger: logger,
		Connect: func(id uint32) (host.Services, io.Closer, error) {
			dialed = id
			return host.Services{}, closerFunc(func() error { closes.Add(1); return nil }), nil
		},
	})
	ctx := t.Context()
	resp, err := s.Initialize(ctx, initRequest())
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	if got := strings.Join(resp.GetHandlers(), ","); got != "rpc,ws" || len(resp.GetIndexKinds()) != 0 {
		t.Errorf("Initialize answered handlers %q kinds %v, want rpc,ws and none", got, resp.GetIndexKinds())
	}
	env := p.env
	if dialed != 7 || env.Kind != pluginv1.KindVM || env.ChainID != (ids.ID{9}) || env.Name != "C" ||
		strings.Join(env.Aliases, ",") != "C,evm" || env.NetworkID != 5 || string(env.Genesis) != "gen" ||
		string(env.Config) != "{}" || env.DataDir != "/data" || env.NodeVersion != "v9" ||
		!env.BootstrapTime.Equal(time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)) {
		t.Errorf("Env = %+v (broker %d), want the request's values", env, dialed)
	}
	if env.Logger.Name() != "C" || env.Logger.GetLevel() != hclog.Debug {
		t.Errorf("Env.Logger = %q at %v, want C at debug", env.Logger.Name(), env.Logger.GetLevel())
	}

	if _, err := s.Initialize(ctx, initRequest()); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("second Initialize = %v, want FailedPrecondition", err)
	}
	if _, err := s.SetLogLevel(ctx, &pluginv1.SetLogLevelRequest{Level: "error"}); err != nil || env.Logger.GetLevel() != hclog.Error {
		t.Errorf("SetLogLevel(error) = %v, level now %v", err, env.Logger.GetLevel())
	}
	if _, err := s.SetLogLevel(ctx, &pluginv1.SetLogLevelRequest{Level: "loud"}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("SetLogLevel(loud) = %v, want InvalidArgument", err)
	}
	if h, err := s.Health(ctx, &pluginv1.HealthRequest{}); err != nil || !h.GetHealthy() {
		t.Errorf("Health without a HealthChecker = %v, %v; want healthy", h, err)
	}
	if _, err := s.AcceptedCount(ctx, &pluginv1.AcceptedCountRequest{Kind: "block"}); status.Code(err) != codes.Unimplemented {
		t.Errorf("AcceptedCount without a ContainerSource = %v, want Unimplemented", err)
	}

	for range 3 {
		if _, err := s.Shutdown(ctx, &pluginv1.ShutdownRequest{}); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	}
	if p.shutdowns.Load() != 1 || closes.Load() != 1 {
		t.Errorf("3 Shutdowns called Plugin.Shutdown %d times and closed the host %d times, want 1 and 1", p.shutdowns.Load(), closes.Load())
	}
	if _, err := s.Health(ctx, &pluginv1.HealthRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("Health after Shutdown = %v, want Unavailable", err)
	}
}

func TestServerInitializeFailures(t *testing.T) {
	tests := []struct {
		name     string
		mutate   func(*pluginv1.InitializeRequest)
		initErr  error
		connErr  error
		wantCode codes.Code
		wantMsg  string
		wantInit int32
	}{
		{name: "bad level", mutate: func(r *pluginv1.InitializeRequest) { r.LogLevel = "LOUD" }, wantCode: codes.InvalidArgument, wantMsg: "LOUD"},
		{name: "bad chain ID", mutate: func(r *pluginv1.InitializeRequest) { r.ChainId = "xyz" }, wantCode: codes.InvalidArgument, wantMsg: "chain ID"},
		{name: "host unreachable", connErr: errors.New("no broker"), wantCode: codes.Unavailable, wantMsg: "no broker"},
		{name: "plugin fails", initErr: errors.New("bad genesis"), wantCode: codes.Unknown, wantMsg: "initialize C: bad genesis", wantInit: 1},
		{name: "plugin not found", initErr: host.ErrNotFound, wantCode: codes.NotFound, wantMsg: "not found", wantInit: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &stubPlugin{initErr: tt.initErr}
			var closes atomic.Int32
			connErr := tt.connErr
			s := newPluginServer(p, PluginServerOptions{Connect: func(uint32) (host.Services, io.Closer, error) {
				if err := connErr; err != nil {
					connErr = nil // the host is back for the retry
					return host.Services{}, nil, err
				}
				return host.Services{}, closerFunc(func() error { closes.Add(1); return nil }), nil
			}})
			req := initRequest()
			if tt.mutate != nil {
				tt.mutate(req)
			}
			_, err := s.Initialize(t.Context(), req)
			if status.Code(err) != tt.wantCode || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Initialize = %v, want %v containing %q", err, tt.wantCode, tt.wantMsg)
			}
			if p.inits.Load() != tt.wantInit {
				t.Errorf("Plugin.Initialize called %d times, want %d", p.inits.Load(), tt.wantInit)
			}
			if tt.wantInit > 0 && closes.Load() != 1 {
				t.Errorf("host connection closed %d times after a failed Initialize, want 1", closes.Load())
			}
			// A failed Initialize leaves the server uninitialized: it can retry.
			p.initErr = nil
			if _, err := s.Initialize(t.Context(), initRequest()); err != nil {
				t.Errorf("Initialize after a failure: %v", err)
			}
		})
	}
}

func TestServerShutdownBeforeInitialize(t *testing.T) {
	p := &stubPlugin{}
	s := newPluginServer(p, PluginServerOptions{})
	if _, err := s.Shutdown(t.Context(), &pluginv1.ShutdownRequest{}); err != nil {
		t.Fatalf("Shutdown before Initialize: %v", err)
	}
	if p.shutdowns.Load() != 0 {
		t.Error("Shutdown before Initialize called Plugin.Shutdown")
	}
	if _, err := s.Initialize(t.Context(), initRequest()); status.Code(err) != codes.Unavailable {
		t.Errorf("Initialize after Shutdown = %v, want Unavailable", err)
	}
	if p.inits.Load() != 0 {
		t.Error("Initialize after Shutdown reached the plugin")
	}
}

// TestServerHoldsListener: a chain's own listener that the host asks to
// hold is not served after Initialize, only once ServeListener is called,
// so that the host can refuse a chain before any request reaches it.
func TestServerHoldsListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.(*net.TCPListener).File()
	ln.Close() // f holds the socket
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd())) // the server's own copy, which it closes
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	req := initRequest()
	req.Listener = &pluginv1.Listener{Fd: uint32(fd), Addr: addr}
	req.HoldListener = true
	s := newPluginServer(&stubPlugin{}, PluginServerOptions{})
	resp, err := s.Initialize(t.Context(), req)
	if err != nil || !resp.GetServesListener() {
		t.Fatalf("Initialize = %v, %v; want it to serve the listener", resp, err)
	}
	t.Cleanup(func() { _, _ = s.Shutdown(context.Background(), &pluginv1.ShutdownRequest{}) })

	get := func(timeout time.Duration) (*http.Response, error) {
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		defer cancel()
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/rpc", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(r)
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}
	// Nothing answers a held listener: the request waits in its backlog.
	if resp, err := get(300 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("GET on the held listener = %v, %v; want no answer", resp, err)
	}
	for range 2 { // a second call finds it served and changes nothing
		if _, err := s.ServeListener(t.Context(), &pluginv1.ServeListenerRequest{}); err != nil {
			t.Fatalf("ServeListener: %v", err)
		}
	}
	if resp, err := get(30 * time.Second); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET on the served listener = %v, %v; want the stub handler's 404", resp, err)
	}
}

// TestServerInitializeDescription: Initialize answers with the binary's
// description, as `describe` prints it (protocol version 2); a server
// given none, a harness's, answers with none.
func TestServerInitializeDescription(t *testing.T) {
	d := Description{Name: "kv", Version: "0.2.0", Aliases: []string{"k"}}
	resp, err := newPluginServer(&stubPlugin{}, PluginServerOptions{Description: d}).Initialize(t.Context(), initRequest())
	if err != nil {
		t.Fatal(err)
	}
	want, err := d.wire()
	if err != nil {
		t.Fatal(err)
	}
	var got pluginv1.Description
	if err := json.Unmarshal(resp.GetDescription(), &got); err != nil || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("description %s (%v), want %+v", resp.GetDescription(), err, want)
	}
	resp, err = newPluginServer(&stubPlugin{}, PluginServerOptions{}).Initialize(t.Context(), initRequest())
	if err != nil || resp.GetDescription() != nil {
		t.Errorf("Initialize without a description = %s, %v", resp.GetDescription(), err)
	}
}
