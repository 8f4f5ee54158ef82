package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/host/unixpool"
	"github.com/chainhost/chainhost/transport/httpunix"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// unixListener counts the connections accepted.
type unixListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *unixListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// env is a plugin side serving handlers on a real unix socket and a host
// side in front of it, served by a real HTTP server.
type unixEnv struct {
	ln       *unixListener
	host     *httptest.Server
	errs     chan error   // what OnError was given
	upgrades atomic.Int64 // ServeWebSocket calls
}

// wsCounter is a Plugin client that only counts its ServeWebSocket calls,
// which fail: every other request must take the data socket.
type wsCounter struct {
	pluginv1.PluginClient
	upgrades *atomic.Int64
}

func (c wsCounter) ServeWebSocket(context.Context, ...grpc.CallOption) (grpc.BidiStreamingClient[pluginv1.WebSocketFrame, pluginv1.WebSocketFrame], error) {
	c.upgrades.Add(1)
	return nil, status.Error(codes.Unavailable, "counted")
}

func newUnixEnv(t *testing.T, handlers map[string]http.Handler, opts Options) *unixEnv {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.sock")
	raw, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	e := &unixEnv{ln: &unixListener{Listener: raw}, errs: make(chan error, 16)}
	srv := httpunix.Serve(e.ln, func(name string) (http.Handler, bool) {
		h, ok := handlers[name]
		return h, ok
	}, nil)
	pool := unixpool.NewPool(path)
	t.Cleanup(func() {
		pool.Close()
		_ = srv.Shutdown(context.Background())
	})
	opts.Process = func() (Process, error) {
		return Process{Client: wsCounter{upgrades: &e.upgrades}, Pool: pool}, nil
	}
	opts.OnError = func(w http.ResponseWriter, _ *http.Request, status int, err error) {
		e.errs <- err
		http.Error(w, err.Error(), status)
	}
	h := NewHandler(opts)
	e.host = httptest.NewServer(http.StripPrefix("/h", h))
	t.Cleanup(e.host.Close)
	return e
}

func TestUnixForwardsTheRequest(t *testing.T) {
	type seen struct{ method, path, rawPath, query, remote, uri, body, custom, spoof, host string }
	got := make(chan seen, 1)
	e := newUnixEnv(t, map[string]http.Handler{
		"": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got <- seen{r.Method, r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.RemoteAddr, r.RequestURI, string(b),
				r.Header.Get("X-Custom"), r.Header.Get(httpunix.HeaderRemoteAddr), r.Host}
			w.Header().Set("X-Answer", "yes")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, "made")
		}),
	}, Options{Handler: ""})
	req, _ := http.NewRequest(http.MethodPost, e.host.URL+"/h/a%2Fb/c?x=1&y=2", strings.NewReader(`{"k":1}`))
	req.Header.Set("X-Custom", "v")
	req.Header.Set(httpunix.HeaderRemoteAddr, "6.6.6.6:1") // a client may not pose as another
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || string(body) != "made" || resp.Header.Get("X-Answer") != "yes" {
		t.Fatalf("answer %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp.ContentLength != 4 {
		t.Errorf("content length %d, want 4", resp.ContentLength)
	}
	s := <-got
	if s.method != http.MethodPost || s.path != "/a/b/c" || s.rawPath != "/a%2Fb/c" || s.query != "x=1&y=2" ||
		s.body != `{"k":1}` || s.custom != "v" || s.spoof != "" {
		t.Errorf("plugin saw %+v", s)
	}
	if !strings.HasPrefix(s.remote, "127.0.0.1:") || s.uri != "/h/a%2Fb/c?x=1&y=2" || s.host != strings.TrimPrefix(e.host.URL, "http://") {
		t.Errorf("plugin saw remote %q, uri %q, host %q", s.remote, s.uri, s.host)
	}
}

func TestUnixReusesConnections(t *testing.T) {
	e := newUnixEnv(t, map[string]http.Handler{
		"rpc": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }),
	}, Options{Handler: "rpc"})
	for range 20 {
		resp, err := http.Post(e.host.URL+"/h", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Fatalf("answer %q", b)
		}
	}
	if n := e.ln.accepted.Load(); n != 1 {
		t.Errorf("20 sequential requests opened %d connections, want 1", n)
	}
}

func TestUnixErrors(t *testing.T) {
	release := make(chan struct{})
	cancelled := make(chan struct{})
	e := newUnixEnv(t, map[string]http.Handler{
		"slow": http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
				close(cancelled)
			case <-release:
			}
		}),
		"panic": http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }),
	}, Options{Handler: "slow", MaxBodyBytes: 8, Timeout: 50 * time.Millisecond})
	defer close(release)

	resp, err := http.Post(e.host.URL+"/h", "text/plain", strings.NewReader("123456789"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !errors.Is(<-e.errs, httpwire.ErrBodyTooLarge) {
		t.Errorf("body over the cap: %d", resp.StatusCode)
	}

	resp, err = http.Get(e.host.URL + "/h")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout || !errors.Is(<-e.errs, httpwire.ErrPluginTimeout) {
		t.Errorf("timeout: %d", resp.StatusCode)
	}
	<-cancelled // the plugin's handler saw its request end

	// The handler named in HandlerOptions is the one called.
	e2 := newUnixEnv(t, map[string]http.Handler{
		"panic": http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }),
	}, Options{Handler: "panic"})
	resp, err = http.Get(e2.host.URL + "/h")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("panic: %d, want 500", resp.StatusCode)
	}

	e3 := newUnixEnv(t, nil, Options{Handler: "missing"})
	resp, err = http.Get(e3.host.URL + "/h")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), `no handler "missing"`) {
		t.Errorf("unknown handler: %d %q", resp.StatusCode, b)
	}
}

func TestUnixConnectionLost(t *testing.T) {
	e := newUnixEnv(t, map[string]http.Handler{
		"cut": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			c, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = c.Close()
			}
		}),
	}, Options{Handler: "cut"})
	resp, err := http.Get(e.host.URL + "/h")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-e.errs; resp.StatusCode != http.StatusServiceUnavailable || !errors.Is(err, unixpool.ErrConnectionLost) || !errors.Is(err, httpwire.ErrPluginUnavailable) {
		t.Errorf("cut connection: %d %v", resp.StatusCode, err)
	}
}

func TestUnixStreamsAndFallsBack(t *testing.T) {
	next := make(chan struct{})
	e := newUnixEnv(t, map[string]http.Handler{
		"stream": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "first\n")
			w.(http.Flusher).Flush()
			<-next // only once the client has read the first line
			_, _ = io.WriteString(w, "second\n")
		}),
	}, Options{Handler: "stream"})
	resp, err := http.Get(e.host.URL + "/h")
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("first line %q %v", line, err)
	}
	close(next)
	rest, _ := io.ReadAll(br)
	resp.Body.Close()
	if string(rest) != "second\n" {
		t.Errorf("rest %q", rest)
	}

	req, _ := http.NewRequest(http.MethodGet, e.host.URL+"/h", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || e.upgrades.Load() != 1 {
		t.Errorf("upgrade: %d, ServeWebSocket called %d times", resp.StatusCode, e.upgrades.Load())
	}
}

func TestUnixPoolBounds(t *testing.T) {
	release := make(chan struct{})
	var inside atomic.Int64
	entered := make(chan struct{}, unixpool.MaxConns+8)
	e := newUnixEnv(t, map[string]http.Handler{
		"hold": http.HandlerFunc(func(_ http.ResponseWriter, _ *http.Request) {
			inside.Add(1)
			entered <- struct{}{}
			<-release
		}),
	}, Options{Handler: "hold"})
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: unixpool.MaxConns + 8, MaxIdleConnsPerHost: unixpool.MaxConns + 8}}
	done := make(chan error, unixpool.MaxConns+8)
	for range unixpool.MaxConns + 8 {
		go func() {
			resp, err := client.Get(e.host.URL + "/h")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			done <- err
		}()
	}
	for range unixpool.MaxConns {
		<-entered
	}
	// The 8 beyond wait for a connection: none may have reached the plugin.
	if n := e.ln.accepted.Load(); n > unixpool.MaxConns {
		t.Errorf("%d connections open, at most %d allowed", n, unixpool.MaxConns)
	}
	close(release)
	for range unixpool.MaxConns + 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if n := inside.Load(); n != unixpool.MaxConns+8 {
		t.Errorf("%d requests served, want %d", n, unixpool.MaxConns+8)
	}
}

func TestUnixAnswerFraming(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 3*httpunix.MaxBuffered/16) // chunked: over httpunix.MaxBuffered
	e := newUnixEnv(t, map[string]http.Handler{
		"": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/big":
				_, _ = io.WriteString(w, big[:len(big)/2])
				_, _ = io.WriteString(w, big[len(big)/2:])
			case "/empty":
				w.WriteHeader(http.StatusNoContent)
			case "/close":
				w.Header().Set("Connection", "close")
				_, _ = io.WriteString(w, "bye")
			default:
				w.Header().Set("X-Method", r.Method)
				_, _ = io.WriteString(w, "body")
			}
		}),
	}, Options{Handler: ""})
	get := func(method, path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, e.host.URL+"/h"+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return resp, string(b)
	}
	if resp, b := get(http.MethodGet, "/big"); resp.StatusCode != http.StatusOK || b != big {
		t.Errorf("big answer: %d, %d bytes, want %d", resp.StatusCode, len(b), len(big))
	}
	if resp, b := get(http.MethodHead, "/"); resp.StatusCode != http.StatusOK || b != "" || resp.Header.Get("X-Method") != http.MethodHead {
		t.Errorf("HEAD: %d %q %v", resp.StatusCode, b, resp.Header)
	}
	if resp, b := get(http.MethodGet, "/empty"); resp.StatusCode != http.StatusNoContent || b != "" {
		t.Errorf("204: %d %q", resp.StatusCode, b)
	}
	if resp, b := get(http.MethodGet, "/"); resp.StatusCode != http.StatusOK || b != "body" || resp.ContentLength != 4 {
		t.Errorf("GET: %d %q length %d", resp.StatusCode, b, resp.ContentLength)
	}
	if n := e.ln.accepted.Load(); n != 1 {
		t.Errorf("%d connections for sequential requests, want 1", n)
	}
	// A handler's Connection: close ends the connection after its answer;
	// the next request opens another.
	if resp, b := get(http.MethodGet, "/close"); resp.StatusCode != http.StatusOK || b != "bye" {
		t.Errorf("close: %d %q", resp.StatusCode, b)
	}
	if _, b := get(http.MethodGet, "/"); b != "body" {
		t.Errorf("after close: %q", b)
	}
	if n := e.ln.accepted.Load(); n != 2 {
		t.Errorf("%d connections after a Connection: close answer, want 2", n)
	}
}

func TestUnixUnreadBodyAndLatePanic(t *testing.T) {
	e := newUnixEnv(t, map[string]http.Handler{
		"": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/ignore": // leaves the body unread
				_, _ = io.WriteString(w, "ignored")
			case "/panic":
				_, _ = io.WriteString(w, "partial")
				w.(http.Flusher).Flush()
				panic("after the answer began")
			default:
				b, _ := io.ReadAll(r.Body)
				_, _ = fmt.Fprintf(w, "%d", len(b))
			}
		}),
	}, Options{Handler: ""})
	post := func(path, body string) (string, error) {
		resp, err := http.Post(e.host.URL+"/h"+path, "text/plain", strings.NewReader(body))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if b, err := post("/ignore", strings.Repeat("x", 100_000)); err != nil || b != "ignored" {
		t.Fatalf("unread body: %q %v", b, err)
	}
	if b, err := post("/", "12345"); err != nil || b != "5" {
		t.Fatalf("after an unread body: %q %v", b, err)
	}
	if n := e.ln.accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1: the unread body was skipped", n)
	}
	// A panic after the answer began cuts it: the host closes the
	// client's connection (the answer is not complete), and the next
	// request is served.
	if b, err := post("/panic", ""); err == nil {
		t.Errorf("late panic: the answer %q looked complete", b)
	}
	if b, err := post("/", "123"); err != nil || b != "3" {
		t.Fatalf("after a late panic: %q %v", b, err)
	}
}

func TestUnixCancelAfterBody(t *testing.T) {
	got := make(chan string, 1)
	e := newUnixEnv(t, map[string]http.Handler{
		"slow": http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			<-r.Context().Done()
			got <- string(b)
		}),
	}, Options{Handler: "slow", Timeout: 50 * time.Millisecond})
	resp, err := http.Post(e.host.URL+"/h", "text/plain", strings.NewReader("payload"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("status %d, want 504", resp.StatusCode)
	}
	select {
	case b := <-got:
		if b != "payload" {
			t.Errorf("handler read %q", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was not cancelled when the host gave up")
	}
}

func TestUnixShutdown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	srv := httpunix.Serve(ln, func(string) (http.Handler, bool) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hold" {
				close(entered)
				<-release
			}
			_, _ = io.WriteString(w, "done")
		}), true
	}, nil)
	pool := unixpool.NewPool(path)
	defer pool.Close()
	host := httptest.NewServer(NewHandler(Options{Process: func() (Process, error) { return Process{Pool: pool}, nil }}))
	defer host.Close()
	held := make(chan string, 1)
	go func() {
		resp, err := http.Get(host.URL + "/hold")
		if err != nil {
			held <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		held <- string(b)
	}()
	<-entered
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned with a request in progress: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if b := <-held; b != "done" {
		t.Errorf("the request in progress got %q", b)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if _, err := net.Dial("unix", path); err == nil {
		t.Error("the socket still accepts after Shutdown")
	}

	// A request that does not end by the context's end is cut.
	ln2, err := net.Listen("unix", filepath.Join(t.TempDir(), "data.sock"))
	if err != nil {
		t.Fatal(err)
	}
	entered2 := make(chan struct{})
	srv2 := httpunix.Serve(ln2, func(string) (http.Handler, bool) {
		return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			close(entered2)
			<-r.Context().Done()
		}), true
	}, nil)
	pool2 := unixpool.NewPool(ln2.Addr().String())
	defer pool2.Close()
	host2 := httptest.NewServer(NewHandler(Options{Process: func() (Process, error) { return Process{Pool: pool2}, nil }}))
	defer host2.Close()
	go func() {
		if resp, err := http.Get(host2.URL); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered2
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := srv2.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown past its context: %v", err)
	}
}
