package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// faultConfig runs the fault VM (internal/faultvm) as chain F, alone.
const faultConfig = `
chains:
  - alias: F
    vm: faultvm
    genesis: {}
modules: []
`

// startFaultNode starts the node with the fault VM and args.
func startFaultNode(t *testing.T, args ...string) *nodetest.Node {
	t.Helper()
	return nodetest.Start(t, nodetest.Options{
		Config: faultConfig, PluginDir: nodetest.PluginDirWith(t, "internal/faultvm/cmd/faultvm"), Args: args,
	})
}

// TestPluginRequestTimeout: a plugin method that never answers is
// answered for with 504 and a JSON-RPC error once plugin-request-timeout
// passes; an answer that started and then hangs is cut at that time; the
// plugin keeps serving; many hung requests leave no goroutine behind in
// the host.
func TestPluginRequestTimeout(t *testing.T) {
	t.Parallel()
	n := startFaultNode(t, "--plugin-request-timeout=1s", "--http-write-timeout=5s")
	rpc := n.URL + "/ext/bc/F/rpc"
	if status, body := postJSON(t, rpc, rpcRequest("fault.echo", `{"text":"hi"}`)); status != 200 || body != `{"jsonrpc":"2.0","result":"hi","id":1}` {
		t.Fatalf("echo = %d %s", status, body)
	}
	status, body := postJSON(t, rpc, rpcRequest("fault.hang", `{}`))
	if want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"plugin did not answer in time: handler rpc: no answer within 1s"},"id":null}`; status != http.StatusGatewayTimeout || body != want {
		t.Fatalf("hung method = %d %s, want 504 %s", status, body, want)
	}

	// An answer that started, then hung: cut at the timeout, not held.
	resp, err := http.Post(n.URL+"/ext/bc/F/stream", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || err == nil || string(got) != `{"jsonrpc":"2.0","id":1,"result":"` {
		t.Fatalf("hung stream: %d %q %v, want the started answer cut with an error", resp.StatusCode, got, err)
	}

	base := hostGoroutines(t, n)
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			if status, _ := postJSON(t, rpc, rpcRequest("fault.hang", `{}`)); status != http.StatusGatewayTimeout {
				t.Errorf("hung method = %d", status)
			}
		})
	}
	wg.Wait()
	if status, body := postJSON(t, rpc, rpcRequest("fault.echo", `{"text":"hi"}`)); status != 200 {
		t.Fatalf("echo after the timeouts = %d %s", status, body)
	}
	plugintest.Eventually(t, 15*time.Second, func() error {
		if g := hostGoroutines(t, n); g > base+10 {
			return fmt.Errorf("host goroutines %d after 40 hung requests, %d before", g, base)
		}
		return nil
	})
	if out := n.Output(); strings.Contains(out, "chain plugin down") {
		t.Errorf("the fault VM was restarted:\n%s", out)
	}
}
