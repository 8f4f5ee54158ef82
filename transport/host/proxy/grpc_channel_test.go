package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/httpgrpc"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// postEcho posts body to the echo handler and returns what it saw.
func postEcho(t *testing.T, e *env, body string) seen {
	t.Helper()
	resp, err := e.front.Client().Post(e.url("/ext/echo/x"), "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s seen
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	return s
}

func TestChannelCarriesRequests(t *testing.T) {
	for _, tc := range []struct {
		name         string
		noChannel    bool
		wantChannels int32 // ServeHTTPChannel calls
		wantCalls    int32 // ServeHTTP calls
	}{
		// Every request on one stream, opened once.
		{name: "channel", wantChannels: 1, wantCalls: 0},
		// A plugin built before the channel: tried once, then a call per request.
		{name: "old plugin", noChannel: true, wantChannels: 1, wantCalls: 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{handlers: map[string]http.Handler{"echo": echoHandler()}, noChannel: tc.noChannel})
			for i := range 20 {
				body := strings.Repeat("x", i*100)
				if s := postEcho(t, e, body); s.Body != body || s.Path != "/x" {
					t.Fatalf("request %d: plugin saw %q at %q", i, s.Body, s.Path)
				}
			}
			if got := e.plugin.channels.Load(); got != tc.wantChannels {
				t.Errorf("ServeHTTPChannel called %d times, want %d", got, tc.wantChannels)
			}
			if got := e.plugin.calls.Load(); got != tc.wantCalls {
				t.Errorf("ServeHTTP called %d times, want %d", got, tc.wantCalls)
			}
		})
	}
}

func TestChannelLargeBodyTakesOwnCall(t *testing.T) {
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"echo": echoHandler()}, host: Options{MaxBodyBytes: 4 << 20}})
	body := strings.Repeat("b", channelMaxBody+1)
	if s := postEcho(t, e, body); len(s.Body) != len(body) {
		t.Fatalf("plugin saw %d bytes, want %d", len(s.Body), len(body))
	}
	if got := e.plugin.calls.Load(); got != 1 {
		t.Fatalf("ServeHTTP called %d times, want 1 (a body over %d bytes)", got, channelMaxBody)
	}
}

// TestChannelSlowClient checks the per-request flow control: a client that
// stops reading a large response holds up neither the channel nor other
// requests, and still gets every byte once it reads on.
func TestChannelSlowClient(t *testing.T) {
	const size = 48 << 20 // more than the socket buffers between host and client
	pattern := bytes.Repeat([]byte("0123456789abcdef"), 2048)
	done := make(chan struct{})
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{
		"big": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer close(done)
			for sent := 0; sent < size; sent += len(pattern) {
				if _, err := w.Write(pattern); err != nil {
					return
				}
			}
		}),
		"echo": echoHandler(),
	}})
	resp, err := e.front.Client().Get(e.url("/ext/big/"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(resp.Body, head); err != nil || string(head) != "0123456789abcdef" {
		t.Fatalf("first bytes %q, %v", head, err)
	}
	// The big response is stalled on its window now, not finished.
	select {
	case <-done:
		t.Fatal("the handler wrote 48 MiB to a client that read 16 bytes: no flow control")
	case <-time.After(200 * time.Millisecond):
	}
	for i := range 10 {
		if s := postEcho(t, e, "small"); s.Body != "small" {
			t.Fatalf("small request %d beside a stalled one: %q", i, s.Body)
		}
	}
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got := append(head, rest...)
	if len(got) != size {
		t.Fatalf("read %d bytes, want %d", len(got), size)
	}
	for off := 0; off < size; off += len(pattern) {
		if !bytes.Equal(got[off:off+len(pattern)], pattern) {
			t.Fatalf("bytes at %d differ", off)
		}
	}
	if e.plugin.calls.Load() != 0 {
		t.Errorf("ServeHTTP called; every request should have used the channel")
	}
}

func TestChannelClientGoneCancelsHandler(t *testing.T) {
	canceled := make(chan struct{})
	started := make(chan struct{})
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"wait": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-r.Context().Done():
			close(canceled)
		case <-time.After(10 * time.Second):
		}
	})}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url("/ext/wait/"), nil)
	errc := make(chan error, 1)
	go func() {
		resp, err := e.front.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-started
	cancel()
	select {
	case <-canceled:
	case <-time.After(5 * time.Second):
		t.Fatal("the plugin's handler was not canceled when its client went away")
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client got %v, want context.Canceled", err)
	}
}

// floodPlugin answers every channel request with a response far larger
// than the window, ignoring credit, as a broken plugin could.
type floodPlugin struct {
	pluginv1.UnimplementedPluginServer
}

// floodSize is the size of floodPlugin's response.
const floodSize = 64 << 20

func (floodPlugin) ServeHTTPChannel(stream pluginv1.Plugin_ServeHTTPChannelServer) error {
	msg, err := stream.Recv()
	if err != nil {
		return err
	}
	send := func(r *pluginv1.HTTPResponse) error {
		return stream.Send(&pluginv1.HTTPChannelMessage{Id: msg.GetId(), Kind: &pluginv1.HTTPChannelMessage_Response{Response: r}})
	}
	if err := send(&pluginv1.HTTPResponse{Status: 200}); err != nil {
		return err
	}
	chunk := bytes.Repeat([]byte("x"), httpgrpc.DefaultChunkSize)
	for sent := 0; sent < floodSize; sent += len(chunk) {
		if err := send(&pluginv1.HTTPResponse{Body: chunk}); err != nil {
			return err
		}
	}
	<-stream.Context().Done()
	return nil
}

func TestChannelPluginOverrunsWindow(t *testing.T) {
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"h": echoHandler()}, service: floodPlugin{}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url("/ext/h/"), nil)
	resp, err := e.front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Not reading fills the socket buffers, so the host stops granting
	// credit while the plugin goes on sending.
	time.Sleep(300 * time.Millisecond)
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil || n >= floodSize {
		t.Fatalf("read %d bytes, error %v: want a response cut short", n, err)
	}
}

// garblePlugin answers every channel request with one message that breaks
// the protocol, as a broken plugin could.
type garblePlugin struct {
	pluginv1.UnimplementedPluginServer
	reply func(id uint64) *pluginv1.HTTPChannelMessage
}

func (p garblePlugin) ServeHTTPChannel(stream pluginv1.Plugin_ServeHTTPChannelServer) error {
	for {
		msg, err := stream.Recv()
		if err != nil {
			return err
		}
		if msg.GetRequest() == nil {
			continue // the host's cancel of a request it gave up on
		}
		if err := stream.Send(p.reply(msg.GetId())); err != nil {
			return err
		}
	}
}

// TestChannelMalformedMessage: a message that breaks the channel protocol
// before the response began is a 502 with httpwire.ErrBadResponse, and the channel
// keeps serving the requests after it.
func TestChannelMalformedMessage(t *testing.T) {
	tests := []struct {
		name  string
		reply func(id uint64) *pluginv1.HTTPChannelMessage
		want  string
	}{
		{"empty", func(id uint64) *pluginv1.HTTPChannelMessage { return &pluginv1.HTTPChannelMessage{Id: id} },
			"bad response from plugin: handler h: http channel: the plugin sent an empty message"},
		{"host's kind", func(id uint64) *pluginv1.HTTPChannelMessage {
			return &pluginv1.HTTPChannelMessage{Id: id, Kind: &pluginv1.HTTPChannelMessage_Credit{Credit: 1}}
		}, "bad response from plugin: handler h: http channel: the plugin sent a message of the host's kind (*pluginv1.HTTPChannelMessage_Credit)"},
		{"bad status", func(id uint64) *pluginv1.HTTPChannelMessage {
			return &pluginv1.HTTPChannelMessage{Id: id, Kind: &pluginv1.HTTPChannelMessage_Response{Response: &pluginv1.HTTPResponse{Status: 7, Last: true}}}
		}, "bad response from plugin: handler h: status 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{handlers: map[string]http.Handler{"h": echoHandler()}, service: garblePlugin{reply: tt.reply}})
			for range 2 {
				resp, err := e.front.Client().Get(e.url("/ext/h/"))
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if got := strings.TrimSpace(string(body)); resp.StatusCode != http.StatusBadGateway || got != tt.want {
					t.Fatalf("got %d %q, want 502 %q", resp.StatusCode, got, tt.want)
				}
				if last, _ := e.lastError(); !errors.Is(last.err, httpwire.ErrBadResponse) {
					t.Fatalf("OnError got %v, want httpwire.ErrBadResponse", last.err)
				}
			}
		})
	}
}
