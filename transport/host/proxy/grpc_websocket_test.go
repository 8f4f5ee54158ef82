package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// hello is the message the WebSocket test handler pushes on connect.
type hello struct {
	Path, RawQuery, RemoteAddr, Test string
}

// wsPlugin is the plugin side of the WebSocket tests: an echo handler that
// pushes a hello first, closes with 4000 on "close-me", and reports the
// close its connection ended with.
type wsPlugin struct {
	closes chan *websocket.CloseError
}

func newWSPlugin() *wsPlugin { return &wsPlugin{closes: make(chan *websocket.CloseError, 16)} }

func (p *wsPlugin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{Subprotocols: []string{"chat.v1"}}
	conn, err := up.Upgrade(w, r, http.Header{"Set-Cookie": {"session=1"}})
	if err != nil {
		return // the upgrader answered
	}
	defer conn.Close()
	msg, _ := json.Marshal(hello{Path: r.URL.Path, RawQuery: r.URL.RawQuery, RemoteAddr: r.RemoteAddr, Test: r.Header.Get("X-Test")})
	if err := conn.WriteMessage(websocket.TextMessage, msg); err != nil {
		return
	}
	for {
		typ, data, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				p.closes <- ce
			} else {
				p.closes <- &websocket.CloseError{Code: -1, Text: err.Error()}
			}
			return
		}
		if typ == websocket.TextMessage && string(data) == "close-me" {
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "done"), time.Now().Add(time.Second))
			continue // read the echo of the close
		}
		if err := conn.WriteMessage(typ, data); err != nil {
			return
		}
	}
}

// refuseHandler refuses every upgrade with 403.
func refuseHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Reason", "nope")
		http.Error(w, "forbidden", http.StatusForbidden)
	})
}

func wsURL(e *env, path string) string { return "ws" + strings.TrimPrefix(e.url(path), "http") }

// dialWS connects a client through the host and reads the hello.
func dialWS(t *testing.T, e *env, path string) (*websocket.Conn, hello) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"chat.v1"}}
	conn, resp, err := d.Dial(wsURL(e, path), http.Header{"X-Test": {"t1"}})
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { conn.Close() })
	if conn.Subprotocol() != "chat.v1" {
		t.Errorf("subprotocol %q, want chat.v1", conn.Subprotocol())
	}
	if got := resp.Header.Get("Set-Cookie"); got != "session=1" {
		t.Errorf("Set-Cookie %q, want the handler's", got)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	typ, data, err := conn.ReadMessage()
	if err != nil || typ != websocket.TextMessage {
		t.Fatalf("read hello: %d %v", typ, err)
	}
	var h hello
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatalf("hello %q: %v", data, err)
	}
	return conn, h
}

// wantClose waits for the handler's connection to end with code.
func wantClose(t *testing.T, p *wsPlugin, code int, text string) {
	t.Helper()
	select {
	case ce := <-p.closes:
		if ce.Code != code || ce.Text != text {
			t.Fatalf("handler saw close %d %q, want %d %q", ce.Code, ce.Text, code, text)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("handler's connection did not end")
	}
}

func TestWebSocketEcho(t *testing.T) {
	p := newWSPlugin()
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"ws": p}})
	conn, h := dialWS(t, e, "/ext/ws/sub?x=1")
	if h.Path != "/sub" || h.RawQuery != "x=1" || h.Test != "t1" || !strings.HasPrefix(h.RemoteAddr, "127.0.0.1:") {
		t.Errorf("handler saw %+v", h)
	}
	big := bytes.Repeat([]byte{0, 1, 2, 255}, 256<<10)
	tests := []struct {
		name string
		typ  int
		data []byte
	}{
		{"text", websocket.TextMessage, []byte("hi")},
		{"binary", websocket.BinaryMessage, []byte{0, 1, 2, 255}},
		{"empty text", websocket.TextMessage, []byte{}},
		{"1 MiB binary", websocket.BinaryMessage, big},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := conn.WriteMessage(tc.typ, tc.data); err != nil {
				t.Fatal(err)
			}
			typ, data, err := conn.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if typ != tc.typ || !bytes.Equal(data, tc.data) {
				t.Fatalf("echo type %d, %d bytes; want type %d, %d bytes", typ, len(data), tc.typ, len(tc.data))
			}
		})
	}
}

func TestWebSocketClose(t *testing.T) {
	tests := []struct {
		name          string
		end           func(t *testing.T, conn *websocket.Conn)
		clientWant    int // close code the client reads; 0 when the client dropped
		clientText    string
		handlerWant   int
		handlerReason string
	}{
		{
			name: "client closes",
			end: func(t *testing.T, conn *websocket.Conn) {
				msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye")
				if err := conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second)); err != nil {
					t.Fatal(err)
				}
			},
			clientWant: websocket.CloseNormalClosure, handlerWant: websocket.CloseNormalClosure, handlerReason: "bye",
		},
		{
			name: "handler closes",
			end: func(t *testing.T, conn *websocket.Conn) {
				if err := conn.WriteMessage(websocket.TextMessage, []byte("close-me")); err != nil {
					t.Fatal(err)
				}
			},
			clientWant: 4000, clientText: "done", handlerWant: 4000,
		},
		{
			name: "client drops without a close frame",
			end: func(t *testing.T, conn *websocket.Conn) {
				_ = conn.NetConn().Close()
			},
			handlerWant: websocket.CloseGoingAway,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newWSPlugin()
			e := newEnv(t, envOptions{handlers: map[string]http.Handler{"ws": p}})
			conn, _ := dialWS(t, e, "/ext/ws/")
			tc.end(t, conn)
			if tc.clientWant != 0 {
				_, _, err := conn.ReadMessage()
				var ce *websocket.CloseError
				if !errors.As(err, &ce) || ce.Code != tc.clientWant || ce.Text != tc.clientText {
					t.Fatalf("client read %v, want close %d %q", err, tc.clientWant, tc.clientText)
				}
			}
			wantClose(t, p, tc.handlerWant, tc.handlerReason)
		})
	}
}

func TestWebSocketRefused(t *testing.T) {
	e := newEnv(t, envOptions{
		handlers: map[string]http.Handler{"ws": newWSPlugin(), "refuse": refuseHandler()},
		routes:   []string{"ws", "refuse", "missing"},
	})
	down := newEnv(t, envOptions{
		handlers: map[string]http.Handler{"ws": newWSPlugin()},
		host: Options{Process: func() (Process, error) {
			return Process{}, errors.New("restarting")
		}},
	})
	tests := []struct {
		name       string
		env        *env
		path       string
		header     http.Header
		wantStatus int
		wantHeader string // X-Reason
		wantBody   string
	}{
		{name: "handler answers 403", env: e, path: "/ext/refuse/", wantStatus: 403, wantHeader: "nope", wantBody: "forbidden\n"},
		{name: "handler's origin check", env: e, path: "/ext/ws/", header: http.Header{"Origin": {"http://evil.example"}},
			wantStatus: 403, wantBody: "Forbidden\n"},
		{name: "unknown handler", env: e, path: "/ext/missing/", wantStatus: 404, wantBody: "no handler \"missing\"\n"},
		{name: "plugin down", env: down, path: "/ext/ws/", wantStatus: 503},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, resp, err := websocket.DefaultDialer.Dial(wsURL(tc.env, tc.path), tc.header)
			if err == nil {
				conn.Close()
				t.Fatal("upgrade accepted")
			}
			if resp == nil {
				t.Fatalf("dial: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d (body %q)", resp.StatusCode, tc.wantStatus, body)
			}
			if got := resp.Header.Get("X-Reason"); got != tc.wantHeader {
				t.Errorf("X-Reason %q, want %q", got, tc.wantHeader)
			}
			if tc.wantBody != "" && string(body) != tc.wantBody {
				t.Errorf("body %q, want %q", body, tc.wantBody)
			}
		})
	}
	t.Run("bad upgrade request is refused before the plugin", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, e.url("/ext/ws/"), nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "8")
		resp, err := e.front.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d, want 400", resp.StatusCode)
		}
	})
}

func TestWebSocketPluginDies(t *testing.T) {
	p := newWSPlugin()
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"ws": p}})
	conn, _ := dialWS(t, e, "/ext/ws/")
	e.grpc.Stop()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := conn.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseInternalServerErr {
		t.Fatalf("client read %v, want close 1011", err)
	}
}

func TestWebSocketMessageTooBig(t *testing.T) {
	p := newWSPlugin()
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"ws": p}, host: Options{MaxBodyBytes: 1024}})
	conn, _ := dialWS(t, e, "/ext/ws/")
	if err := conn.WriteMessage(websocket.BinaryMessage, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	if _, data, err := conn.ReadMessage(); err != nil || len(data) != 1024 {
		t.Fatalf("message at the cap: %d bytes, %v", len(data), err)
	}
	if err := conn.WriteMessage(websocket.BinaryMessage, make([]byte, 1025)); err != nil {
		t.Fatal(err)
	}
	_, _, err := conn.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("client read %v, want close 1009", err)
	}
	wantClose(t, p, websocket.CloseMessageTooBig, "message too big")
}

func TestWebSocketPing(t *testing.T) {
	tests := []struct {
		name      string
		pong      bool
		wantPings int32
		wantDrop  bool
	}{
		{name: "client answering pings stays", pong: true, wantPings: 3},
		{name: "client not answering is dropped", pong: false, wantPings: 1, wantDrop: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newWSPlugin()
			e := newEnv(t, envOptions{handlers: map[string]http.Handler{"ws": p}, host: Options{PingInterval: 50 * time.Millisecond}})
			conn, _ := dialWS(t, e, "/ext/ws/")
			var pings atomic.Int32
			conn.SetPingHandler(func(data string) error {
				pings.Add(1)
				if !tc.pong {
					return nil
				}
				return conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
			})
			done := make(chan error, 1)
			go func() {
				_, _, err := conn.ReadMessage()
				done <- err
			}()
			time.Sleep(300 * time.Millisecond)
			if n := pings.Load(); n < tc.wantPings {
				t.Fatalf("%d pings in 300ms at a 50ms interval, want at least %d", n, tc.wantPings)
			}
			if !tc.wantDrop {
				select {
				case err := <-done:
					t.Fatalf("connection ended while answering pings: %v", err)
				default:
				}
				conn.Close()
				<-done
				return
			}
			select {
			case err := <-done:
				var ce *websocket.CloseError
				if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
					t.Fatalf("client read %v, want close 1001", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("silent client not dropped")
			}
			wantClose(t, p, websocket.CloseGoingAway, "")
		})
	}
}

func TestWebSocketNoGoroutineLeak(t *testing.T) {
	p := newWSPlugin()
	e := newEnv(t, envOptions{
		handlers: map[string]http.Handler{"ws": p, "refuse": refuseHandler(), "h": echoHandler()},
		host:     Options{PingInterval: 10 * time.Millisecond},
	})
	// Warm the gRPC connection up, without keeping an HTTP connection open.
	req, _ := http.NewRequest(http.MethodGet, e.url("/ext/h/"), nil)
	req.Close = true
	resp, err := e.front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	time.Sleep(50 * time.Millisecond)
	baseline := runtime.NumGoroutine()

	for range 5 {
		conn, _ := dialWS(t, e, "/ext/ws/")
		if err := conn.WriteMessage(websocket.TextMessage, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := conn.ReadMessage(); err != nil {
			t.Fatal(err)
		}
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, ""), time.Now().Add(time.Second))
		_, _, _ = conn.ReadMessage()
		conn.Close()
		wantClose(t, p, 1000, "")

		conn, _ = dialWS(t, e, "/ext/ws/")
		_ = conn.WriteMessage(websocket.TextMessage, []byte("close-me"))
		_, _, _ = conn.ReadMessage()
		conn.Close()
		wantClose(t, p, 4000, "")

		conn, _ = dialWS(t, e, "/ext/ws/")
		conn.Close()
		wantClose(t, p, websocket.CloseGoingAway, "")

		if c, resp, err := websocket.DefaultDialer.Dial(wsURL(e, "/ext/refuse/"), nil); err == nil {
			c.Close()
			t.Fatal("refusing handler accepted")
		} else if resp != nil {
			resp.Body.Close()
		}
	}
	settleGoroutines(t, baseline)
}
