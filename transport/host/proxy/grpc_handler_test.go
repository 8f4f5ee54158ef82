package proxy

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// seen is what the echo handler reports about the request it served.
type seen struct {
	Method        string
	Path          string
	EscapedPath   string
	RawQuery      string
	RequestURI    string
	Host          string
	RemoteAddr    string
	Header        http.Header
	ContentLength int64
	Body          string
}

// echoHandler answers with what it saw, the status of ?status= (default
// 200), an X-Resp header and a hop-by-hop header that must not pass.
func echoHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s := seen{
			Method: r.Method, Path: r.URL.Path, EscapedPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery,
			RequestURI: r.RequestURI, Host: r.Host, RemoteAddr: r.RemoteAddr, Header: r.Header,
			ContentLength: r.ContentLength, Body: string(body),
		}
		code := http.StatusOK
		if q := r.URL.Query().Get("status"); q != "" {
			code, _ = strconv.Atoi(q)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Resp", "yes")
		w.Header().Set("Connection", "X-Secret")
		w.Header().Set("X-Secret", "hop-by-hop")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(s)
	})
}

func TestHTTPRoundTrip(t *testing.T) {
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"echo": echoHandler()}})
	host := strings.TrimPrefix(e.front.URL, "http://")
	tests := []struct {
		name        string
		method      string
		path        string
		header      http.Header
		body        string
		wantStatus  int
		wantPath    string
		wantEscaped string
		wantQuery   string
		noBody      bool // the status or method allows no body
	}{
		{name: "get with query and header", method: http.MethodGet, path: "/ext/echo/a/b?x=1&y=two",
			header: http.Header{"X-Test": {"v1", "v2"}}, wantStatus: 200, wantPath: "/a/b", wantEscaped: "/a/b", wantQuery: "x=1&y=two"},
		{name: "post with body", method: http.MethodPost, path: "/ext/echo/rpc?status=201",
			header: http.Header{"Content-Type": {"application/json"}}, body: `{"jsonrpc":"2.0"}`,
			wantStatus: 201, wantPath: "/rpc", wantEscaped: "/rpc", wantQuery: "status=201"},
		{name: "empty path becomes /", method: http.MethodPost, path: "/ext/echo", body: "x",
			wantStatus: 200, wantPath: "/", wantEscaped: "/"},
		{name: "escaped path", method: http.MethodGet, path: "/ext/echo/a%2Fb/c%20d",
			wantStatus: 200, wantPath: "/a/b/c d", wantEscaped: "/a%2Fb/c%20d"},
		{name: "error status passes", method: http.MethodDelete, path: "/ext/echo/x?status=404",
			wantStatus: 404, wantPath: "/x", wantEscaped: "/x", wantQuery: "status=404"},
		{name: "hop-by-hop request headers dropped", method: http.MethodPut, path: "/ext/echo/h",
			header:     http.Header{"Connection": {"X-Hop"}, "X-Hop": {"1"}, "Keep-Alive": {"timeout=5"}, "X-Kept": {"1"}},
			wantStatus: 200, wantPath: "/h", wantEscaped: "/h"},
		{name: "no content", method: http.MethodGet, path: "/ext/echo/?status=204", wantStatus: 204, noBody: true},
		{name: "head", method: http.MethodHead, path: "/ext/echo/", wantStatus: 200, noBody: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, err := http.NewRequest(tc.method, e.url(tc.path), body)
			if err != nil {
				t.Fatal(err)
			}
			for k, vs := range tc.header {
				req.Header[k] = vs
			}
			resp, err := e.front.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d (body %q)", resp.StatusCode, tc.wantStatus, raw)
			}
			if got := resp.Header.Get("X-Resp"); got != "yes" {
				t.Errorf("X-Resp %q, want yes", got)
			}
			if got := resp.Header.Get("X-Secret"); got != "" {
				t.Errorf("hop-by-hop response header X-Secret passed: %q", got)
			}
			if tc.noBody {
				if len(raw) != 0 {
					t.Errorf("body %q, want none", raw)
				}
				return
			}
			var s seen
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("decode %q: %v", raw, err)
			}
			checks := []struct{ what, got, want string }{
				{"method", s.Method, tc.method},
				{"path", s.Path, tc.wantPath},
				{"escaped path", s.EscapedPath, tc.wantEscaped},
				{"query", s.RawQuery, tc.wantQuery},
				{"request URI", s.RequestURI, tc.path},
				{"host", s.Host, host},
				{"body", s.Body, tc.body},
				{"content length", strconv.FormatInt(s.ContentLength, 10), strconv.Itoa(len(tc.body))},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s %q, want %q", c.what, c.got, c.want)
				}
			}
			if !strings.HasPrefix(s.RemoteAddr, "127.0.0.1:") {
				t.Errorf("remote addr %q, want the client's 127.0.0.1:port", s.RemoteAddr)
			}
			for k, vs := range tc.header {
				if k == "Connection" || k == "Keep-Alive" || k == "X-Hop" {
					if got := s.Header.Values(k); len(got) != 0 {
						t.Errorf("hop-by-hop header %s reached the plugin: %q", k, got)
					}
					continue
				}
				if got := s.Header.Values(k); strings.Join(got, ",") != strings.Join(vs, ",") {
					t.Errorf("header %s %q, want %q", k, got, vs)
				}
			}
		})
	}
}

func TestHTTPLargeBody(t *testing.T) {
	const size = 5 << 20
	e := newEnv(t, envOptions{
		handlers: map[string]http.Handler{"copy": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = io.Copy(w, r.Body)
		})},
		host: Options{MaxBodyBytes: 8 << 20},
	})
	payload := make([]byte, size)
	if _, err := rand.Read(payload); err != nil {
		t.Fatal(err)
	}
	resp, err := e.front.Client().Post(e.url("/ext/copy/"), "application/octet-stream", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("echoed %d bytes, not the %d sent", len(got), len(payload))
	}
}

func TestHTTPBodyTooLarge(t *testing.T) {
	var calls atomic.Int32
	e := newEnv(t, envOptions{
		handlers: map[string]http.Handler{"h": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
		})},
		host: Options{MaxBodyBytes: 1024},
	})
	tests := []struct {
		name       string
		body       io.Reader // a bare io.Reader is sent chunked, without a length
		wantStatus int
	}{
		{name: "at the cap", body: bytes.NewReader(make([]byte, 1024)), wantStatus: http.StatusOK},
		{name: "content length over the cap", body: bytes.NewReader(make([]byte, 1025)), wantStatus: http.StatusRequestEntityTooLarge},
		{name: "chunked over the cap", body: io.LimitReader(zeroReader{}, 4096), wantStatus: http.StatusRequestEntityTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			resp, err := e.front.Client().Post(e.url("/ext/h/"), "application/octet-stream", tc.body)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			called := calls.Load() > before
			if tc.wantStatus == http.StatusOK {
				if !called {
					t.Fatal("handler not called")
				}
				return
			}
			if called {
				t.Error("handler called for a body over the cap")
			}
			rec, ok := e.lastError()
			if !ok || rec.status != http.StatusRequestEntityTooLarge || !errors.Is(rec.err, httpwire.ErrBodyTooLarge) {
				t.Errorf("OnError got %d %v, want 413 wrapping httpwire.ErrBodyTooLarge", rec.status, rec.err)
			}
		})
	}
}

// zeroReader reads zeros forever.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestHTTPStreaming(t *testing.T) {
	release := make(chan struct{})
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"stream": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		_, _ = io.WriteString(w, "second\n")
	})}})
	// The request runs apart: without streaming, even the headers would
	// wait for the handler to finish.
	type firstLine struct {
		resp *http.Response
		br   *bufio.Reader
		line string
		err  error
	}
	got := make(chan firstLine, 1)
	go func() {
		resp, err := e.front.Client().Get(e.url("/ext/stream/"))
		if err != nil {
			got <- firstLine{err: err}
			return
		}
		br := bufio.NewReader(resp.Body)
		line, err := br.ReadString('\n')
		got <- firstLine{resp: resp, br: br, line: line, err: err}
	}()
	var first firstLine
	select {
	case first = <-got:
	case <-time.After(2 * time.Second):
		close(release)
		t.Fatal("first chunk not received while the handler was still running")
	}
	if first.err != nil {
		close(release)
		t.Fatal(first.err)
	}
	defer first.resp.Body.Close()
	if got := first.resp.Header.Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("content type %q", got)
	}
	if first.line != "first\n" {
		t.Errorf("first line %q", first.line)
	}
	br := first.br
	close(release)
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if string(rest) != "second\n" {
		t.Fatalf("rest %q", rest)
	}
}

func TestServerChunks(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    []string // bodies of the messages, in order
	}{
		{name: "buffered up to the chunk size", handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "0123456789")
		}, want: []string{"0123", "4567", "89"}},
		{name: "flush sends the status before any body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "ab")
			w.(http.Flusher).Flush()
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "c")
		}, want: []string{"", "ab", "c"}},
		{name: "no body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
		}, want: []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{handlers: map[string]http.Handler{"h": tc.handler}, chunkSize: 4})
			stream, err := pluginv1.NewPluginClient(e.conn).ServeHTTP(t.Context(), &pluginv1.HTTPRequest{Handler: "h", Method: "GET"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := 0; ; i++ {
				msg, err := stream.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 && msg.GetStatus() == 0 {
					t.Error("first message has no status")
				}
				if i > 0 && (msg.GetStatus() != 0 || len(msg.GetHeaders()) != 0) {
					t.Errorf("message %d carries status %d or headers", i, msg.GetStatus())
				}
				got = append(got, string(msg.GetBody()))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("messages %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHTTPUnknownHandler(t *testing.T) {
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{}, routes: []string{"missing"}})
	resp, err := e.front.Client().Get(e.url("/ext/missing/x"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `no handler "missing"`) {
		t.Fatalf("got %d %q, want 404 naming the handler", resp.StatusCode, body)
	}
}

func TestHTTPPanic(t *testing.T) {
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{
		"before": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Partial", "1")
			_, _ = io.WriteString(w, "buffered, never sent")
			panic("boom before")
		}),
		"after": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "sent")
			w.(http.Flusher).Flush()
			panic("boom after")
		}),
		"ok": echoHandler(),
	}})
	tests := []struct {
		path       string
		wantStatus int
		wantErr    bool // reading the body fails: the response was aborted
		wantLog    string
	}{
		{path: "/ext/before/", wantStatus: http.StatusInternalServerError, wantLog: "boom before"},
		{path: "/ext/after/", wantStatus: http.StatusOK, wantErr: true, wantLog: "boom after"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			resp, err := e.front.Client().Get(e.url(tc.path))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("body %q read error %v, want error %v", body, err, tc.wantErr)
			}
			if resp.Header.Get("X-Partial") != "" {
				t.Error("headers of the panicking handler were sent")
			}
			if !strings.Contains(e.logs.String(), tc.wantLog) {
				t.Errorf("panic %q not logged; log:\n%s", tc.wantLog, e.logs)
			}
		})
	}
	resp, err := e.front.Client().Get(e.url("/ext/ok/"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("plugin unusable after panics: status %d", resp.StatusCode)
	}
}

func TestHTTPPluginDown(t *testing.T) {
	t.Run("client reports the plugin down", func(t *testing.T) {
		e := newEnv(t, envOptions{
			handlers: map[string]http.Handler{"h": echoHandler()},
			host: Options{Process: func() (Process, error) {
				return Process{}, errors.New("restarting")
			}},
		})
		resp, err := e.front.Client().Get(e.url("/ext/h/"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		rec, _ := e.lastError()
		if resp.StatusCode != http.StatusServiceUnavailable || !errors.Is(rec.err, httpwire.ErrPluginUnavailable) {
			t.Fatalf("got %d, OnError %v; want 503 wrapping ErrPluginUnavailable", resp.StatusCode, rec.err)
		}
	})
	t.Run("grpc server stopped", func(t *testing.T) {
		e := newEnv(t, envOptions{handlers: map[string]http.Handler{"h": echoHandler()}})
		resp, err := e.front.Client().Get(e.url("/ext/h/"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		e.grpc.Stop()
		start := time.Now()
		resp, err = e.front.Client().Get(e.url("/ext/h/"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if took := time.Since(start); took > time.Second {
			t.Errorf("answered after %v, want within 1s", took)
		}
		rec, _ := e.lastError()
		if resp.StatusCode != http.StatusServiceUnavailable || !errors.Is(rec.err, httpwire.ErrPluginUnavailable) {
			t.Fatalf("got %d, OnError %v; want 503 wrapping ErrPluginUnavailable", resp.StatusCode, rec.err)
		}
	})
	t.Run("default OnError is plain text", func(t *testing.T) {
		h := NewHandler(Options{Handler: "h", Process: func() (Process, error) {
			return Process{}, errors.New("down")
		}})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code != http.StatusServiceUnavailable || rec.Body.String() != "Service Unavailable\n" ||
			!strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
			t.Fatalf("got %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
		}
	})
}

// TestHandlerInProcessAbort checks that a caller outside net/http's server
// is told of a response that failed midway, rather than the handler
// panicking in its goroutine.
func TestHandlerInProcessAbort(t *testing.T) {
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"after": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "sent")
		w.(http.Flusher).Flush()
		panic("boom")
	})}})
	var got error
	h := NewHandler(Options{
		Handler: "after",
		Process: func() (Process, error) { return Process{Client: pluginv1.NewPluginClient(e.conn)}, nil },
		OnError: func(w http.ResponseWriter, r *http.Request, status int, err error) { got = err },
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if !errors.Is(got, httpwire.ErrResponseAborted) {
		t.Fatalf("OnError got %v, want ErrResponseAborted", got)
	}
	if rec.Body.String() != "sent" {
		t.Errorf("body %q, want the part sent before the failure", rec.Body.String())
	}
}

// TestHTTPContentLength: a response the plugin sends whole reaches the
// client with a Content-Length, not chunked; a flushed one is streamed.
func TestHTTPContentLength(t *testing.T) {
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{
		"whole": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello") }),
		"flushed": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "hel")
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "lo")
		}),
	}})
	for name, wantLen := range map[string]int64{"whole": 5, "flushed": -1} {
		resp, err := http.Get(e.url("/ext/" + name))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "hello" || resp.ContentLength != wantLen {
			t.Errorf("%s: body %q, Content-Length %d, want %d", name, body, resp.ContentLength, wantLen)
		}
	}
}
