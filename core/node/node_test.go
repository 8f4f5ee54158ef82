package node

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/config"
)

// startNode starts a node of no chains and no modules on a free port with
// its data in dir, and stops it at the end of the test.
func startNode(t *testing.T, dir string, flags ...string) (*Node, string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "plugins"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "chainhost.yaml")
	if err := os.WriteFile(file, []byte("chains: []\nmodules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--config=" + file, "--http-port=0", "--data-dir=" + filepath.Join(dir, "data"),
		"--plugin-dir=" + filepath.Join(dir, "plugins"), "--log-display-level=OFF"}, flags...)
	cfg, err := config.Load(config.LoadOptions{Args: args})
	if err != nil {
		t.Fatal(err)
	}
	n, err := New(cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Stop(context.Background()) })
	return n, "http://" + n.Addr().String()
}

// call posts a JSON-RPC request and returns the answer's status and body.
func call(t *testing.T, url, method string) (int, map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{}}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST %s %s: %v", url, method, err)
	}
	return resp.StatusCode, out
}

// TestNodeHostAPIs: a node of no chains serves the host's APIs as its
// config says (health, info, metrics on; admin off), answers an unknown
// path with the REST error body, stops, and starts again on the same data
// directory (the database lock is released).
func TestNodeHostAPIs(t *testing.T) {
	dir := t.TempDir()
	n, url := startNode(t, dir)

	resp, err := http.Get(url + "/ext/health")
	if err != nil {
		t.Fatal(err)
	}
	var report struct{ Healthy bool }
	err = json.NewDecoder(resp.Body).Decode(&report)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !report.Healthy {
		t.Fatalf("health: %d %+v %v", resp.StatusCode, report, err)
	}

	status, out := call(t, url+"/ext/info", "info.getNetworkID")
	if result, _ := out["result"].(map[string]any); status != http.StatusOK || result["networkID"] != "12345" {
		t.Fatalf("info.getNetworkID: %d %v", status, out)
	}

	resp, err = http.Get(url + "/ext/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(metrics, []byte("chainhost_")) {
		t.Fatalf("metrics: %d %.200s", resp.StatusCode, metrics)
	}

	if status, out := call(t, url+"/ext/admin", "admin.getLoggerLevel"); status != http.StatusNotFound || out["error"] == nil {
		t.Fatalf("admin while off: %d %v", status, out)
	}

	resp, err = http.Get(url + "/nowhere")
	if err != nil {
		t.Fatal(err)
	}
	var rest struct {
		Message    string
		StatusCode int
		Error      string
	}
	err = json.NewDecoder(resp.Body).Decode(&rest)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusNotFound || rest.StatusCode != 404 || rest.Error != "Not Found" || rest.Message == "" {
		t.Fatalf("unknown path: %d %+v %v", resp.StatusCode, rest, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.Stop(ctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if _, err := http.Get(url + "/ext/health"); err == nil {
		t.Fatal("the stopped node still answers")
	}
	_, url = startNode(t, dir, "--api-admin-enabled=true")
	if status, out := call(t, url+"/ext/admin", "admin.getLoggerLevel"); status != http.StatusOK || out["result"] == nil {
		t.Fatalf("admin on, after a restart on the same data directory: %d %v", status, out)
	}
}
