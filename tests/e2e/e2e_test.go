package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

type putReply struct {
	Height  jsonrpc.Uint64 `json:"height"`
	BlockID string         `json:"blockID"`
}

func put(ctx context.Context, n *nodetest.Node, key, value string) (putReply, error) {
	var r putReply
	err := n.Call(ctx, "/ext/bc/example/rpc", "kv.put", map[string]string{"key": key, "value": value}, &r)
	return r, err
}

func get(ctx context.Context, n *nodetest.Node, key string) (string, error) {
	var r struct {
		Value string `json:"value"`
	}
	err := n.Call(ctx, "/ext/bc/example/rpc", "kv.get", map[string]string{"key": key}, &r)
	return r.Value, err
}

// TestDefaultNode: the embedded default config starts, /ext/health says the
// example chain is healthy, and its JSON-RPC is served by a plugin process.
func TestDefaultNode(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()

	resp, err := http.Get(n.URL + "/ext/health")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Healthy bool `json:"healthy"`
		Checks  map[string]struct {
			Healthy bool   `json:"healthy"`
			Message string `json:"message"`
		} `json:"checks"`
	}
	err = json.NewDecoder(resp.Body).Decode(&rep)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !rep.Healthy || !rep.Checks["chain/example"].Healthy {
		t.Fatalf("health: status %d, %+v, %v", resp.StatusCode, rep, err)
	}

	plugin := nodetest.PluginPID(t, n, "example")
	r, err := put(ctx, n, "a", "1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Height != 0 || r.BlockID == "" {
		t.Fatalf("first put: %+v", r)
	}
	if v, err := get(ctx, n, "a"); err != nil || v != "1" {
		t.Fatalf("get a = %q, %v", v, err)
	}
	// The answer came from the plugin process: with it stopped, no answer.
	nodetest.Suspend(t, plugin)
	sctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = get(sctx, n, "a")
	cancel()
	_ = syscall.Kill(plugin, syscall.SIGCONT)
	if err == nil {
		t.Fatal("kv.get answered while the plugin process was stopped")
	}

	// The info API.
	var netID struct {
		NetworkID string `json:"networkID"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getNetworkID", nil, &netID); err != nil || netID.NetworkID != "12345" {
		t.Fatalf("info.getNetworkID: %+v, %v", netID, err)
	}
	var vms struct {
		VMs map[string][]string `json:"vms"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getVMs", nil, &vms); err != nil || !strings.Contains(fmt.Sprint(vms.VMs), "example") {
		t.Fatalf("info.getVMs: %+v, %v", vms, err)
	}
	var nv struct {
		Version    string            `json:"version"`
		VMVersions map[string]string `json:"vmVersions"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getNodeVersion", nil, &nv); err != nil || nv.Version == "" || nv.VMVersions["example"] == "" {
		t.Fatalf("info.getNodeVersion: %+v, %v", nv, err)
	}
	// Unknown chains and handlers are clear 404s in JSON-RPC form.
	for path, want := range map[string]string{
		"/ext/bc/nochain/rpc":   `unknown chain \"nochain\"`,
		"/ext/bc/example/nope":  `has no handler \"nope\"`,
		"/ext/nothing":          "no API at /ext/nothing",
		"/ext/index/nochain/tx": `unknown chain \"nochain\"`,
	} {
		resp, err := http.Post(n.URL+path, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), want) {
			t.Errorf("POST %s: %d %s, want 404 with %s", path, resp.StatusCode, body, want)
		}
	}

	var bid struct {
		BlockchainID string `json:"blockchainID"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getBlockchainID", map[string]string{"alias": "example"}, &bid); err != nil {
		t.Fatal(err)
	}
	// The chain answers under its ID as well as its alias.
	var byID struct {
		Value string `json:"value"`
	}
	if err := n.Call(ctx, "/ext/bc/"+bid.BlockchainID+"/rpc", "kv.get", map[string]string{"key": "a"}, &byID); err != nil || byID.Value != "1" {
		t.Fatalf("get by chain ID: %+v, %v", byID, err)
	}
}

// TestPluginCrash: SIGKILL of the plugin gets an error answer within a
// second, the host restarts it, and nothing acknowledged is lost.
func TestPluginCrash(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()
	const before = 20
	for i := range before {
		if _, err := put(ctx, n, "k"+string(rune('a'+i)), "v"); err != nil {
			t.Fatal(err)
		}
	}
	old := nodetest.PluginPID(t, n, "example")
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// An answer, not a hang: an error within one second.
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	_, err := get(dctx, n, "ka")
	cancel()
	var rpcErrorCode *jsonrpc.Error
	if !errors.As(err, &rpcErrorCode) {
		// The restart may already be done; then the call succeeds.
		if err != nil {
			t.Fatalf("call during restart: want a JSON-RPC error answer, got %v", err)
		}
	}
	// Restarted: calls succeed again on a new process.
	plugintest.Eventually(t, 20*time.Second, func() error {
		if _, err := get(ctx, n, "ka"); err != nil {
			return fmt.Errorf("plugin not back: %w", err)
		}
		return nil
	})
	if now := n.PluginPIDs("example"); len(now) != 1 || now[0] == old {
		t.Fatalf("plugin processes after restart: %v (old %d)", now, old)
	}
	for i := range before {
		if v, err := get(ctx, n, "k"+string(rune('a'+i))); err != nil || v != "v" {
			t.Fatalf("acknowledged put %d lost: %q, %v", i, v, err)
		}
	}
	r, err := put(ctx, n, "after", "x")
	if err != nil || r.Height != before {
		t.Fatalf("put after restart: %+v, %v (want height %d)", r, err, before)
	}
	// The restart is counted in the metrics.
	resp, err := http.Get(n.URL + "/ext/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`chainhost_plugin_restarts_total{plugin="example"} 1`, `chainhost_plugin_up{plugin="example"} 1`, `chainhost_http_requests_total{code="200",route="bc/example/rpc"}`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/ext/metrics lacks %s", want)
		}
	}
}

// TestHostKill: no plugin outlives a SIGKILLed host.
func TestHostKill(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	children := n.ChildPIDs()
	if len(children) == 0 {
		t.Fatal("no plugin process")
	}
	n.Kill()
	nodetest.WaitGone(t, 5*time.Second, children)
}

// TestWebSocketSubscription: a client connected through the host gets
// blocks pushed by the plugin and can send requests on the same connection.
func TestWebSocketSubscription(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(n.URL, "http")+"/ext/bc/example/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	if err := ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "kv.subscribe"}); err != nil {
		t.Fatal(err)
	}
	var sub struct {
		Result string `json:"result"`
	}
	if err := ws.ReadJSON(&sub); err != nil || sub.Result == "" {
		t.Fatalf("subscribe: %+v, %v", sub, err)
	}
	for i, key := range []string{"x", "y"} {
		if _, err := put(ctx, n, key, "v"); err != nil {
			t.Fatal(err)
		}
		var note struct {
			Method string `json:"method"`
			Params struct {
				Subscription string `json:"subscription"`
				Result       struct {
					Block struct {
						Height jsonrpc.Uint64 `json:"height"`
						Key    string         `json:"key"`
					} `json:"block"`
				} `json:"result"`
			} `json:"params"`
		}
		if err := ws.ReadJSON(&note); err != nil {
			t.Fatal(err)
		}
		if note.Method != "kv.block" || note.Params.Subscription != sub.Result || note.Params.Result.Block.Key != key || int(note.Params.Result.Block.Height) != i {
			t.Fatalf("notification %d: %+v", i, note)
		}
	}
	// A request on the same connection.
	if err := ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "kv.get", "params": map[string]string{"key": "y"}}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID     int               `json:"id"`
		Result map[string]string `json:"result"`
	}
	if err := ws.ReadJSON(&got); err != nil || got.ID != 2 || got.Result["value"] != "v" {
		t.Fatalf("kv.get over ws: %+v, %v", got, err)
	}
}

// TestConfigLayers runs the binary: an unknown key stops start-up naming
// the key; the environment overrides the file and flags the environment.
func TestConfigLayers(t *testing.T) {
	t.Parallel()
	hostBin, _ := nodetest.Binaries(t)
	dir := t.TempDir()
	file := dir + "/c.yaml"
	run := func(cfg string, env []string, args ...string) (string, int) {
		if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(hostBin, append([]string{"config", "--config=" + file}, args...)...)
		cmd.Env = append(nodetest.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := run("htp-port: 1\n", nil)
	if code == 0 || !strings.Contains(out, `"htp-port"`) {
		t.Fatalf("unknown key: exit %d, output %q", code, out)
	}
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"file", nil, nil, "http-port: 9700"},
		{"env over file", []string{"CHAINHOST_HTTP_PORT=9701"}, nil, "http-port: 9701"},
		{"flag over env", []string{"CHAINHOST_HTTP_PORT=9701"}, []string{"--http-port=9702"}, "http-port: 9702"},
	}
	for _, c := range cases {
		out, code := run("http-port: 9700\n", c.env, c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %q in:\n%s", c.name, code, c.want, out)
		}
	}
	// The real node refuses to start too, and says why.
	if err := os.WriteFile(file, []byte("chains:\n  - alias: a\n    vm: example\n    colour: red\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hostBin, "--config="+file, "--data-dir="+dir)
	out2, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(string(out2), "colour") {
		t.Fatalf("node start with unknown chain key: exit %d, %q", cmd.ProcessState.ExitCode(), out2)
	}
}
