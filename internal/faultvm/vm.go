// Package faultvm is a VM that misbehaves on request, for the host's fault
// tests (docs/bad-input.md): it never ships in the plugin directory; tests
// build it (BuildBinary) beside the real plugins.
package faultvm

import (
	"context"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Name is the VM's name.
const Name = "faultvm"

// VM answers fault.* methods on its rpc handler.
type VM struct{ env *sdk.Env }

// Initialize keeps the environment.
func (vm *VM) Initialize(_ context.Context, env *sdk.Env) error {
	vm.env = env
	return nil
}

// Handlers serves the fault methods at rpc, and at stream a handler that
// starts an answer and then hangs.
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
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"`))
		http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Hour):
		}
	})
	return map[string]http.Handler{"rpc": s, "stream": stream}
}

// Shutdown has nothing to flush.
func (vm *VM) Shutdown(context.Context) error { return nil }
