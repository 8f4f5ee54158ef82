package main_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
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

// postRPC POSTs a JSON-RPC call with params (JSON) and returns the
// status and body.
func postRPC(t *testing.T, url, method, params string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	if err != nil {
		t.Fatalf("POST %s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// hostGoroutines reads the host's go_goroutines from /ext/metrics.
func hostGoroutines(t *testing.T, n *nodetest.Node) int {
	t.Helper()
	return int(hostMetric(t, n, "go_goroutines"))
}

// TestPluginRequestTimeout: a plugin method that never answers is
// answered for with 504 and a JSON-RPC error once plugin-request-timeout
// passes; an answer that started and then hangs is cut at that time; the
// plugin keeps serving; many hung requests leave no goroutine behind in
// the host.
func TestPluginRequestTimeout(t *testing.T) {
	n := startFaultNode(t, "--plugin-request-timeout=1s", "--http-write-timeout=5s")
	rpc := n.URL + "/ext/bc/F/rpc"
	if status, body := postRPC(t, rpc, "fault.echo", `{"text":"hi"}`); status != 200 || body != `{"jsonrpc":"2.0","result":"hi","id":1}` {
		t.Fatalf("echo = %d %s", status, body)
	}
	status, body := postRPC(t, rpc, "fault.hang", `{}`)
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
			if status, _ := postRPC(t, rpc, "fault.hang", `{}`); status != http.StatusGatewayTimeout {
				t.Errorf("hung method = %d", status)
			}
		})
	}
	wg.Wait()
	if status, body := postRPC(t, rpc, "fault.echo", `{"text":"hi"}`); status != 200 {
		t.Fatalf("echo after the timeouts = %d %s", status, body)
	}
	deadline := time.Now().Add(15 * time.Second)
	for g := hostGoroutines(t, n); g > base+10; g = hostGoroutines(t, n) {
		if time.Now().After(deadline) {
			t.Fatalf("host goroutines %d after 40 hung requests, %d before", g, base)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out := n.Output(); strings.Contains(out, "chain plugin down") {
		t.Errorf("the fault VM was restarted:\n%s", out)
	}
}
