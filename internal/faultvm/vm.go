// Package faultvm is a VM that misbehaves on request, for the host's fault
// tests (docs/bad-input.md): it never ships in the plugin directory; tests
// build it (nodetest.PluginDirWith) beside the real plugins.
package faultvm

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Name is the VM's name.
const Name = "faultvm"

// Handler names, below /ext/bc/<chain>/.
const (
	// rpcHandler serves the fault.* methods.
	rpcHandler = "rpc"
	// wsHandler serves them over WebSocket.
	wsHandler = "ws"
	// StreamHandler starts an answer and hangs.
	StreamHandler = "stream"
	// CutHandler starts an answer, then panics.
	CutHandler = "cut"
	// GarbageHandler answers {"ok":true}; Garble breaks the protocol
	// message that carries it (see Garble).
	GarbageHandler = "garbage"
)

// StartedAnswer is what the stream and cut handlers send before they hang
// or fail.
const StartedAnswer = `{"jsonrpc":"2.0","id":1,"result":"`

// VM answers fault.* methods on its rpc handler.
type VM struct{ env *sdk.Env }

// Initialize keeps the environment.
func (vm *VM) Initialize(_ context.Context, env *sdk.Env) error {
	vm.env = env
	return nil
}

// floodArgs are fault.flood's params.
type floodArgs struct {
	// Seconds is how long the flood lasts.
	Seconds float64 `json:"seconds"`
	// Via is "stderr" (raw lines on the process's stderr, which go-plugin
	// forwards) or "logger" (the SDK's JSON log lines).
	Via string `json:"via"`
	// Length is the length of each line; 0 means 200.
	Length int `json:"length"`
}

// Handlers serves the fault methods at rpc, and the misbehaving handlers
// named above.
func (vm *VM) Handlers() map[string]http.Handler {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	s.Register("fault.echo", jsonrpc.Method(func(_ context.Context, a struct {
		Text string `json:"text"`
	}) (string, error) {
		return a.Text, nil
	}))
	// fault.hang answers only when the host gives up on it.
	s.Register("fault.hang", jsonrpc.Method(func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}))
	// fault.crash ends the process.
	s.Register("fault.crash", jsonrpc.Method(func(context.Context, struct{}) (string, error) {
		os.Exit(3)
		return "", nil
	}))
	// fault.stderr writes lines to stderr, as a plugin with a runaway log.
	s.Register("fault.stderr", jsonrpc.Method(func(_ context.Context, a struct {
		Lines int `json:"lines"`
	}) (int, error) {
		line := strings.Repeat("x", 200) + "\n"
		for range a.Lines {
			_, _ = os.Stderr.WriteString(line)
		}
		return a.Lines, nil
	}))
	// fault.big answers a string of the given length: a big answer for a
	// client that reads it slowly.
	s.Register("fault.big", jsonrpc.Method(func(_ context.Context, a struct {
		Bytes int `json:"bytes"`
	}) (string, error) {
		if a.Bytes < 0 || a.Bytes > 64<<20 {
			return "", jsonrpc.InvalidParams("bytes: want 0 to %d, got %d", 64<<20, a.Bytes)
		}
		return strings.Repeat("b", a.Bytes), nil
	}))
	// fault.flood writes lines as fast as it can, in the background, for
	// the given time: a plugin whose log runs away while it serves.
	s.Register("fault.flood", jsonrpc.Method(func(_ context.Context, a floodArgs) (string, error) {
		if a.Length <= 0 {
			a.Length = 200
		}
		var write func()
		switch a.Via {
		case "stderr":
			line := strings.Repeat("x", a.Length) + "\n"
			write = func() { _, _ = os.Stderr.WriteString(line) }
		case "logger":
			msg := strings.Repeat("y", a.Length)
			write = func() { vm.env.Logger.Info(msg) }
		default:
			return "", jsonrpc.InvalidParams("via: want stderr or logger, got %q", a.Via)
		}
		until := time.Now().Add(time.Duration(a.Seconds * float64(time.Second)))
		go func() {
			for time.Now().Before(until) {
				write()
			}
		}()
		return fmt.Sprintf("flooding %s for %gs", a.Via, a.Seconds), nil
	}))
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(StartedAnswer))
		http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Hour):
		}
	})
	cut := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(StartedAnswer))
		http.NewResponseController(w).Flush()
		panic("faultvm: cut midway")
	})
	garbage := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	return map[string]http.Handler{rpcHandler: s, wsHandler: s.WebSocketHandler(), StreamHandler: stream, CutHandler: cut, GarbageHandler: garbage}
}

// Shutdown has nothing to flush.
func (vm *VM) Shutdown(context.Context) error { return nil }
