package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/faultvm"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// dataSocketFaultConfig runs the fault VM serving the host's data socket
// (without {"dataSocket": true} its garbler keeps it on gRPC).
const dataSocketFaultConfig = `
chains:
  - alias: F
    vm: faultvm
    genesis: {}
    config: {dataSocket: true}
modules: []
`

// TestDataSocket: the shared listener's requests reach the plugin over
// its data socket (docs/decisions.md), in <data-dir>/sockets, which only
// the host's user can open and which is gone after the host stops; the
// limits and failures answer as over gRPC: plugin-request-timeout (504),
// a started answer cut at the timeout, a crash (503 while the plugin
// restarts), a body over the cap (413), a malformed status (502).
func TestDataSocket(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{
		Config: dataSocketFaultConfig, PluginDir: nodetest.PluginDirWith(t, "internal/faultvm/cmd/faultvm"),
		Args: []string{"--plugin-request-timeout=1s", "--http-write-timeout=5s", "--http-max-body-size=4096"},
	})
	dir := filepath.Join(n.DataDir, "sockets")
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory %s: %v %v, want mode 0700", dir, st, err)
	}
	socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	if len(socks) != 1 {
		t.Fatalf("sockets %v, want the fault VM's", socks)
	}

	rpc := n.URL + "/ext/bc/F/rpc"
	if status, body := postJSON(t, rpc, rpcRequest("fault.echo", `{"text":"hi"}`)); status != 200 || body != `{"jsonrpc":"2.0","result":"hi","id":1}` {
		t.Fatalf("echo = %d %s", status, body)
	}
	// The garbler breaks only the gRPC channel's messages: the answer over
	// the data socket is whole, which shows which path it took.
	if status, body := postJSON(t, n.URL+"/ext/bc/F/"+faultvm.GarbageHandler+"/status", rpcRequest("x", `{}`)); status != 200 || body != `{"ok":true}` {
		t.Errorf("garbage handler over the data socket = %d %s, want 200 {\"ok\":true}", status, body)
	}

	status, body := postJSON(t, rpc, rpcRequest("fault.hang", `{}`))
	if want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"plugin did not answer in time: handler rpc: no answer within 1s"},"id":null}`; status != http.StatusGatewayTimeout || body != want {
		t.Errorf("hung method = %d %s, want 504 %s", status, body, want)
	}
	resp, err := http.Post(n.URL+"/ext/bc/F/stream", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || err == nil || string(got) != faultvm.StartedAnswer {
		t.Errorf("hung stream: %d %q %v, want the started answer cut with an error", resp.StatusCode, got, err)
	}

	status, body = postJSON(t, rpc, rpcRequest("fault.echo", `{"text":"`+strings.Repeat("x", 5000)+`"}`))
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "request body too large") {
		t.Errorf("body over the cap = %d %s, want 413", status, body)
	}

	const down = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"chain F is restarting: plugin exited: exit status 3"},"id":null}`
	if status, body := postJSON(t, rpc, rpcRequest("fault.crash", `{}`)); status != http.StatusServiceUnavailable || body != down {
		t.Errorf("fault.crash = %d %s, want 503 %s", status, body, down)
	}
	plugintest.Eventually(t, 30*time.Second, func() error {
		if status, body := postJSON(t, rpc, rpcRequest("fault.echo", `{"text":"again"}`)); status != 200 {
			return fmt.Errorf("the fault VM is not restarted: %d %s", status, body)
		}
		return nil
	})
	// The restarted process serves the same socket.
	if status, body := postJSON(t, n.URL+"/ext/bc/F/"+faultvm.GarbageHandler+"/status", rpcRequest("x", `{}`)); status != 200 || body != `{"ok":true}` {
		t.Errorf("after the restart, garbage handler = %d %s, want 200 over the data socket", status, body)
	}

	n.Stop(t)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("socket directory after stop: %v, want it removed", err)
	}
}
