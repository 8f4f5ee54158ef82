package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/transport/httpserve"
)

// listen starts a server on a free loopback port; the test stops it.
func listen(t *testing.T, opts Options) *Server {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	if opts.Log == nil {
		opts.Log = hclog.NewNullLogger()
	}
	s, err := Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })

// TestTLS: with a certificate and key the listener serves HTTPS only; a
// key that does not load stops Listen with an error naming the files.
func TestTLS(t *testing.T) {
	cert, key, pool := nodetest.SelfSignedCert(t)
	s := listen(t, Options{Handler: ok, Limits: httpserve.Limits{TLSCertFile: cert, TLSKeyFile: key}})
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get("https://" + s.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" || resp.TLS == nil {
		t.Fatalf("HTTPS = %d %q", resp.StatusCode, body)
	}
	// Plain HTTP on the TLS port gets no answer of the handler.
	if resp, err := http.Get("http://" + s.Addr().String() + "/"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) == "ok" {
			t.Fatal("plain HTTP was served on the TLS listener")
		}
	}
	_, err = Listen(Options{Addr: "127.0.0.1:0", Handler: ok, Limits: httpserve.Limits{TLSCertFile: cert, TLSKeyFile: cert}, Log: hclog.NewNullLogger()})
	if err == nil || !strings.Contains(err.Error(), "load the TLS certificate "+cert+" and key "+cert) {
		t.Fatalf("Listen with a bad key: %v", err)
	}
}

// TestCORS: allowed origins get CORS headers and preflights; others and
// a server without origins get none.
func TestCORS(t *testing.T) {
	for _, tc := range []struct {
		name, origin string
		allowed      []string
		want         string
	}{
		{"allowed", "https://app.example", []string{"https://app.example"}, "https://app.example"},
		{"any", "https://other.example", []string{"*"}, "*"},
		{"not allowed", "https://evil.example", []string{"https://app.example"}, ""},
		{"off", "https://app.example", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := listen(t, Options{Handler: ok, Limits: httpserve.Limits{CORSAllowedOrigins: tc.allowed}})
			req, _ := http.NewRequest(http.MethodPost, "http://"+s.Addr().String()+"/", strings.NewReader("{}"))
			req.Header.Set("Origin", tc.origin)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tc.want {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tc.want)
			}
			pre, _ := http.NewRequest(http.MethodOptions, "http://"+s.Addr().String()+"/ext/bc/C/rpc", nil)
			pre.Header.Set("Origin", tc.origin)
			pre.Header.Set("Access-Control-Request-Method", http.MethodPost)
			pre.Header.Set("Access-Control-Request-Headers", "content-type")
			resp, err = http.DefaultClient.Do(pre)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Methods"); (got != "") != (tc.want != "") || tc.want != "" && !strings.Contains(got, "POST") {
				t.Errorf("preflight Access-Control-Allow-Methods = %q", got)
			}
		})
	}
}

// TestWebSocketCap: at most MaxWebSockets connections are open at once;
// one more is refused with 503 and a JSON-RPC error; a closed one frees
// its place. An admitted connection outlives the write timeout.
func TestWebSocketCap(t *testing.T) {
	up := websocket.Upgrader{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		for {
			typ, msg, err := conn.ReadMessage()
			if err != nil {
				return
			}
			time.Sleep(300 * time.Millisecond) // past the write timeout
			if err := conn.WriteMessage(typ, msg); err != nil {
				return
			}
		}
	})
	s := listen(t, Options{Handler: h, Limits: httpserve.Limits{MaxWebSockets: 2, WriteTimeout: 100 * time.Millisecond, ReadTimeout: 100 * time.Millisecond}})
	url := "ws://" + s.Addr().String() + "/ws"
	dial := func() (*websocket.Conn, *http.Response, error) { return websocket.DefaultDialer.Dial(url, nil) }
	a, _, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err := dial()
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third connection: %v %v", resp, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"too many WebSocket connections: this listener serves at most 2 at once"},"id":null}`; strings.TrimSpace(string(body)) != want {
		t.Errorf("refusal body %s, want %s", body, want)
	}
	// Past the read and write timeouts, the admitted connections work.
	time.Sleep(200 * time.Millisecond)
	if err := b.WriteMessage(websocket.TextMessage, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := b.ReadMessage(); err != nil || string(msg) != "hello" {
		t.Fatalf("echo after the timeouts: %q %v", msg, err)
	}
	a.Close()
	plugintest.Eventually(t, 5*time.Second, func() error {
		c, _, err := dial()
		if err != nil {
			return fmt.Errorf("a closed connection's place was not freed: %w", err)
		}
		return c.Close()
	})
	b.Close()
}

// TestReadTimeout: a client that sends its body slower than ReadTimeout
// is cut off; a plain request still works.
func TestReadTimeout(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	s := listen(t, Options{Handler: h, Limits: httpserve.Limits{ReadTimeout: 200 * time.Millisecond, ReadHeaderTimeout: 200 * time.Millisecond}})
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.ReadAll(conn) // ends when the server closes
	if strings.Contains(string(got), "ok") {
		t.Fatalf("a request slower than the read timeout was served: %q", got)
	}
	resp, err := http.Post("http://"+s.Addr().String()+"/", "text/plain", strings.NewReader("quick"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("plain request: %d %q", resp.StatusCode, body)
	}
}
