package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// adminCase is one call to a node JSON-RPC API: on success its exact raw
// result; on failure its error code and pieces of its message.
type adminCase struct {
	path   string // default /ext/admin
	method string
	params any
	result string
	code   int
	want   []string
}

// rawCall returns a call's raw result or its JSON-RPC error.
func rawCall(t *testing.T, n *nodetest.Node, path, method string, params any) (string, *jsonrpc.Error) {
	t.Helper()
	var raw json.RawMessage
	err := n.Call(context.Background(), path, method, params, &raw)
	if err == nil {
		return string(raw), nil
	}
	var rpcErrorCode *jsonrpc.Error
	if !errors.As(err, &rpcErrorCode) {
		t.Fatalf("%s %s: %v", path, method, err)
	}
	return "", rpcErrorCode
}

// TestAdminDisabled: without --api-admin-enabled, /ext/admin does not exist.
func TestAdminDisabled(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{PluginDir: examplePluginDir(t)})
	if code, _ := postJSON(t, n.URL+"/ext/admin", rpcRequest("admin.loadVMs", `{}`)); code != http.StatusNotFound {
		t.Fatalf("POST /ext/admin with the admin API off: HTTP %d, want 404", code)
	}
	n2 := nodetest.Start(t, nodetest.Options{PluginDir: n.Opts.PluginDir, Args: []string{"--api-admin-enabled=true"}})
	if code, _ := postJSON(t, n2.URL+"/ext/admin", rpcRequest("admin.loadVMs", `{}`)); code != http.StatusOK {
		t.Fatalf("POST /ext/admin with the admin API on: HTTP %d, want 200", code)
	}
	// Profiles go to <data-dir>/profiles by default.
	runAdmin(t, n2, []adminCase{{method: "admin.memoryProfile", result: `{}`}})
	if _, err := os.Stat(filepath.Join(n2.DataDir, "profiles", "mem.profile")); err != nil {
		t.Errorf("default profile dir: %v", err)
	}
}

// TestAdminAliases: endpoint and chain aliases answer like the originals,
// are refused when they must be, and survive a restart.
func TestAdminAliases(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{PluginDir: examplePluginDir(t), Args: []string{"--api-admin-enabled=true"}})
	ctx := context.Background()
	if _, err := put(ctx, n, "a", "1"); err != nil {
		t.Fatal(err)
	}
	var bid struct {
		BlockchainID string `json:"blockchainID"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getBlockchainID", map[string]string{"alias": "example"}, &bid); err != nil {
		t.Fatal(err)
	}
	id := bid.BlockchainID
	long := strings.Repeat("x", 513)
	runAdmin(t, n, []adminCase{
		{method: "admin.alias", params: map[string]string{"endpoint": "bc/example/rpc", "alias": "kvrpc"}, result: `{}`},
		{method: "admin.alias", params: map[string]string{"endpoint": "bc/example", "alias": "kvchain"}, result: `{}`},
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": "nodeinfo"}, result: `{}`},
		{method: "admin.alias", params: map[string]string{"endpoint": "index/example/block", "alias": "kvindex"}, result: `{}`},
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": strings.Repeat("y", 512)}, result: `{}`},
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": long}, code: -32602, want: []string{`"alias"`, "513 characters", "at most 512"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": ""}, code: -32602, want: []string{`"alias"`, "empty"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": "kvrpc"}, code: -32602, want: []string{`"kvrpc" is already used`}},
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": "bc"}, code: -32602, want: []string{"would shadow the API at /ext/bc"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": "health"}, code: -32602, want: []string{"would shadow"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": "admin"}, code: -32602, want: []string{"would shadow"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "bc/nope/rpc", "alias": "n1"}, code: -32602, want: []string{`"endpoint"`, `unknown chain "nope"`}},
		{method: "admin.alias", params: map[string]string{"endpoint": "nothing", "alias": "n2"}, code: -32602, want: []string{"no API at /ext/nothing"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "bc/example/nohandler", "alias": "n3"}, code: -32602, want: []string{`no handler "nohandler"`}},

		{method: "admin.getChainAliases", params: map[string]string{"chain": "example"}, result: `{"aliases":["example","` + id + `"]}`},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": "mykv"}, result: `{}`},
		{method: "admin.aliasChain", params: map[string]string{"chain": id, "alias": "mykv2"}, result: `{}`},
		{method: "admin.getChainAliases", params: map[string]string{"chain": "mykv"}, result: `{"aliases":["example","mykv","mykv2","` + id + `"]}`},
		{method: "admin.getChainAliases", params: map[string]string{"chain": id}, result: `{"aliases":["example","mykv","mykv2","` + id + `"]}`},
		{method: "admin.aliasChain", params: map[string]string{"chain": "nope", "alias": "z"}, code: -32602, want: []string{`"chain"`, `"nope"`}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": long}, code: -32602, want: []string{"at most 512"}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": ""}, code: -32602, want: []string{"empty"}},
		{method: "admin.getChainAliases", params: map[string]string{"chain": "nope"}, code: -32602, want: []string{`"nope"`}},
		{method: "admin.getChainAliases", params: map[string]string{}, code: -32602, want: []string{`"chain"`}},
	})
	// The new names answer like the originals; the originals keep working.
	check := func(t *testing.T, n *nodetest.Node) {
		t.Helper()
		same := []adminCase{
			{path: "/ext/kvrpc", method: "kv.get", params: map[string]string{"key": "a"}, result: `{"value":"1"}`},
			{path: "/ext/bc/example/rpc", method: "kv.get", params: map[string]string{"key": "a"}, result: `{"value":"1"}`},
			{path: "/ext/kvchain/rpc", method: "kv.get", params: map[string]string{"key": "a"}, result: `{"value":"1"}`},
			{path: "/ext/bc/mykv/rpc", method: "kv.get", params: map[string]string{"key": "a"}, result: `{"value":"1"}`},
			{path: "/ext/bc/mykv2/rpc", method: "kv.get", params: map[string]string{"key": "a"}, result: `{"value":"1"}`},
			{path: "/ext/kvrpc", method: "kv.get", params: map[string]string{"key": "none"}, code: -32000, want: []string{`key "none" not found`}},
			{path: "/ext/nodeinfo", method: "info.getBlockchainID", params: map[string]string{"alias": "mykv"}, result: `{"blockchainID":"` + id + `"}`},
			{path: "/ext/info", method: "info.getBlockchainID", params: map[string]string{"alias": "mykv2"}, result: `{"blockchainID":"` + id + `"}`},
			{path: "/ext/" + strings.Repeat("y", 512), method: "info.getNetworkID", result: `{"networkID":"12345"}`},
			{method: "admin.getChainAliases", params: map[string]string{"chain": "mykv2"}, result: `{"aliases":["example","mykv","mykv2","` + id + `"]}`},
		}
		runAdmin(t, n, same)
		var viaIndex, direct, viaAlias json.RawMessage
		if err := n.Call(ctx, "/ext/index/example/block", "index.getLastAccepted", map[string]string{"encoding": "hex"}, &direct); err != nil {
			t.Fatal(err)
		}
		if err := n.Call(ctx, "/ext/index/mykv/block", "index.getLastAccepted", map[string]string{"encoding": "hex"}, &viaAlias); err != nil {
			t.Fatal(err)
		}
		if err := n.Call(ctx, "/ext/kvindex", "index.getLastAccepted", map[string]string{"encoding": "hex"}, &viaIndex); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(direct, viaAlias) || !bytes.Equal(direct, viaIndex) {
			t.Errorf("index.getLastAccepted: direct %s, chain alias %s, endpoint alias %s", direct, viaAlias, viaIndex)
		}
		// WebSocket through an endpoint alias.
		ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(n.URL, "http")+"/ext/kvchain/ws", nil)
		if err != nil {
			t.Fatalf("WebSocket through the alias: %v", err)
		}
		defer ws.Close()
		_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		if err := ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "kv.get", "params": map[string]string{"key": "a"}}); err != nil {
			t.Fatal(err)
		}
		var got struct {
			ID     int               `json:"id"`
			Result map[string]string `json:"result"`
		}
		if err := ws.ReadJSON(&got); err != nil || got.ID != 7 || got.Result["value"] != "1" {
			t.Fatalf("kv.get over WebSocket through the alias: %+v, %v", got, err)
		}
	}
	check(t, n)
	// A put through the endpoint alias lands in the same chain.
	var pr putReply
	if err := n.Call(ctx, "/ext/kvrpc", "kv.put", map[string]string{"key": "b", "value": "2"}, &pr); err != nil || pr.Height != 1 {
		t.Fatalf("put through the alias: %+v, %v", pr, err)
	}
	if v, err := get(ctx, n, "b"); err != nil || v != "2" {
		t.Fatalf("get b = %q, %v", v, err)
	}

	n = n.Restart(t)
	check(t, n)
	// Still refused after the restart: the aliases are taken.
	runAdmin(t, n, []adminCase{
		{method: "admin.alias", params: map[string]string{"endpoint": "info", "alias": "kvrpc"}, code: -32602, want: []string{"already used"}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": "mykv"}, result: `{}`},
	})
}

// TestAdminLoggerLevels: levels read and change at run time, and a chain's
// plugin process writes DEBUG lines to the chain's log file only once its
// logger is set to DEBUG.
func TestAdminLoggerLevels(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{PluginDir: examplePluginDir(t), Args: []string{"--api-admin-enabled=true"}})
	ctx := context.Background()
	got, rpcErrorCode := rawCall(t, n, "/ext/admin", "admin.getLoggerLevel", nil)
	if rpcErrorCode != nil {
		t.Fatal(rpcErrorCode)
	}
	var all struct {
		LoggerLevels map[string]map[string]string `json:"loggerLevels"`
	}
	if err := json.Unmarshal([]byte(got), &all); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"main", "example"} {
		if l := all.LoggerLevels[name]; len(l) != 2 || l["logLevel"] != "INFO" || l["displayLevel"] != "INFO" {
			t.Errorf("getLoggerLevel: %s = %v in %s", name, l, got)
		}
	}

	if _, err := put(ctx, n, "quiet", "1"); err != nil {
		t.Fatal(err)
	}
	runAdmin(t, n, []adminCase{
		{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "example"}, result: `{"loggerLevels":{"example":{"logLevel":"INFO","displayLevel":"INFO"}}}`},
		{method: "admin.setLoggerLevel", params: map[string]string{"loggerName": "example", "logLevel": "debug"}, result: `{}`},
		{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "example"}, result: `{"loggerLevels":{"example":{"logLevel":"DEBUG","displayLevel":"INFO"}}}`},
		{method: "admin.setLoggerLevel", params: map[string]string{"loggerName": "example"}, code: -32602, want: []string{"logLevel and displayLevel are both omitted"}},
		{method: "admin.setLoggerLevel", params: map[string]string{}, code: -32602, want: []string{"both omitted"}},
		{method: "admin.setLoggerLevel", params: map[string]string{"logLevel": "LOUD"}, code: -32602, want: []string{`"logLevel"`, `unknown log level "LOUD"`}},
		{method: "admin.setLoggerLevel", params: map[string]string{"displayLevel": "hush"}, code: -32602, want: []string{`"displayLevel"`, `"hush"`}},
		{method: "admin.setLoggerLevel", params: map[string]string{"loggerName": "nope", "logLevel": "INFO"}, code: -32602, want: []string{`unknown logger "nope"`}},
		{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "nope"}, code: -32602, want: []string{`unknown logger "nope"`}},
	})
	if _, err := put(ctx, n, "loud", "2"); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(n.DataDir, "logs", "example.log")
	var lines []map[string]any
	plugintest.Eventually(t, 10*time.Second, func() error {
		lines = debugLines(t, logFile)
		if !slices.ContainsFunc(lines, func(l map[string]any) bool { return l["key"] == "loud" }) {
			return fmt.Errorf("no DEBUG line of the plugin for key loud in %s after setLoggerLevel DEBUG: %v", logFile, lines)
		}
		return nil
	})
	if slices.ContainsFunc(lines, func(l map[string]any) bool { return l["key"] == "quiet" }) {
		t.Errorf("a DEBUG line was written before setLoggerLevel DEBUG: %v", lines)
	}
	// The display level stayed INFO: the terminal did not get the line.
	if strings.Contains(n.Output(), "block accepted") {
		t.Error("the DEBUG line reached the display, whose level is INFO")
	}
	// All loggers at once.
	runAdmin(t, n, []adminCase{
		{method: "admin.setLoggerLevel", params: map[string]string{"displayLevel": "WARN"}, result: `{}`},
		{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "main"}, result: `{"loggerLevels":{"main":{"logLevel":"INFO","displayLevel":"WARN"}}}`},
		{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "example"}, result: `{"loggerLevels":{"example":{"logLevel":"DEBUG","displayLevel":"WARN"}}}`},
	})
}

// debugLines returns the plugin's "block accepted" lines of a log file.
func debugLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	lines := logLines(t, path, "block accepted")
	for _, l := range lines {
		if l["@level"] != "debug" {
			t.Errorf("block accepted line at level %v", l["@level"])
		}
	}
	return lines
}

// TestAdminHotLoad: a chain whose VM is missing at start-up runs as soon as
// the VM is copied into the plugin dir and admin.loadVMs is called, without
// a restart; a file that is not a plugin is reported and retried.
func TestAdminHotLoad(t *testing.T) {
	t.Parallel()
	_, built := nodetest.Binaries(t)
	hotvm := filepath.Join(t.TempDir(), "hotvm")
	build := exec.Command("go", "build", "-o", hotvm, "./testdata/hotvm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build testdata/hotvm: %v\n%s", err, out)
	}
	pluginDir := t.TempDir()
	n := nodetest.Start(t, nodetest.Options{
		PluginDir: pluginDir,
		Args:      []string{"--api-admin-enabled=true"},
		Config:    "chains:\n  - alias: hot\n    vm: hotvm\n    genesis: {}\n",
	})
	ctx := context.Background()
	runAdmin(t, n, []adminCase{
		{path: "/ext/bc/hot/rpc", method: "kv.put", params: map[string]string{"key": "k", "value": "v"}, code: -32000, want: []string{"not running", `"hotvm" is not installed`}},
		{method: "admin.loadVMs", result: `{"newVMs":{}}`},
	})

	installPlugin(t, hotvm, pluginDir, "hotvm")
	junk := filepath.Join(pluginDir, "notaplugin")
	plugintest.WriteExecutable(t, junk, []byte("#!/bin/sh\necho this is not a plugin\n"), 0o755)
	hotID, err := ids.FromName("hotvm")
	if err != nil {
		t.Fatal(err)
	}
	loaded := loadVMs(t, n)
	if want := map[string][]string{hotID.String(): {"hotvm", "hotkv"}}; !equalVMs(loaded.NewVMs, want) {
		t.Errorf("newVMs = %v, want %v", loaded.NewVMs, want)
	}
	if len(loaded.FailedVMs) != 1 || !strings.Contains(loaded.FailedVMs["notaplugin"], `not a chainhost plugin: it printed "this is not a plugin"`) {
		t.Errorf("failedVMs = %v", loaded.FailedVMs)
	}
	// The chain runs now, without a restart.
	var r putReply
	if err := n.Call(ctx, "/ext/bc/hot/rpc", "kv.put", map[string]string{"key": "k", "value": "v"}, &r); err != nil || r.Height != 0 {
		t.Fatalf("kv.put on the hot-loaded chain: %+v, %v", r, err)
	}
	runAdmin(t, n, []adminCase{
		{path: "/ext/bc/hot/rpc", method: "kv.get", params: map[string]string{"key": "k"}, result: `{"value":"v"}`},
		{path: "/ext/info", method: "info.getVMs", result: `{"vms":{"` + hotID.String() + `":["hotvm","hotkv"]}}`},
	})
	if len(n.PluginPIDs("hotvm")) != 1 {
		t.Errorf("hotvm plugin processes: %v", n.PluginPIDs("hotvm"))
	}

	// The failed file is tried again, and fails again.
	again := loadVMs(t, n)
	if len(again.NewVMs) != 0 || !strings.Contains(again.FailedVMs["notaplugin"], "not a chainhost plugin") {
		t.Errorf("second loadVMs = %+v", again)
	}
	// Replaced by a real plugin, it loads; nothing failed, so failedVMs is
	// left out.
	installPlugin(t, filepath.Join(built, "example"), pluginDir, "notaplugin")
	exampleID, err := ids.FromName("example")
	if err != nil {
		t.Fatal(err)
	}
	runAdmin(t, n, []adminCase{
		{method: "admin.loadVMs", result: `{"newVMs":{"` + exampleID.String() + `":["example","kv"]}}`},
		{method: "admin.loadVMs", result: `{"newVMs":{}}`},
		{method: "admin.loadVMs", params: map[string]int{"x": 1}, code: -32602, want: []string{`unknown param "x"`}},
	})
}

type loadResult struct {
	NewVMs    map[string][]string `json:"newVMs"`
	FailedVMs map[string]string   `json:"failedVMs"`
}

func loadVMs(t *testing.T, n *nodetest.Node) loadResult {
	t.Helper()
	got, rpcErrorCode := rawCall(t, n, "/ext/admin", "admin.loadVMs", nil)
	if rpcErrorCode != nil {
		t.Fatalf("admin.loadVMs: %v", rpcErrorCode)
	}
	var r loadResult
	if err := json.Unmarshal([]byte(got), &r); err != nil || r.NewVMs == nil {
		t.Fatalf("admin.loadVMs = %s (%v)", got, err)
	}
	return r
}

func equalVMs(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestAdminProfiles: each profile is written into the profile dir and
// opens with go tool pprof.
func TestAdminProfiles(t *testing.T) {
	t.Parallel()
	profileDir := filepath.Join(t.TempDir(), "profiles")
	n := nodetest.Start(t, nodetest.Options{PluginDir: examplePluginDir(t), Args: []string{"--api-admin-enabled=true", "--profile-dir=" + profileDir}})
	ctx := context.Background()
	runAdmin(t, n, []adminCase{
		{method: "admin.stopCPUProfiler", code: -32000, want: []string{"the CPU profiler is not running"}},
		{method: "admin.startCPUProfiler", result: `{}`},
		{method: "admin.startCPUProfiler", code: -32000, want: []string{"the CPU profiler is already running"}},
	})
	for i := range 50 { // some work to profile
		if _, err := put(ctx, n, "p"+string(rune('a'+i%26)), "v"); err != nil {
			t.Fatal(err)
		}
	}
	runAdmin(t, n, []adminCase{
		{method: "admin.stopCPUProfiler", result: `{}`},
		{method: "admin.stopCPUProfiler", code: -32000, want: []string{"not running"}},
		{method: "admin.memoryProfile", result: `{}`},
		{method: "admin.lockProfile", result: `{}`},
	})
	for _, file := range []string{"cpu.profile", "mem.profile", "lock.profile"} {
		path := filepath.Join(profileDir, file)
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", file, err)
			continue
		}
		cmd := exec.Command("go", "tool", "pprof", "-top", path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go tool pprof -top %s: %v\n%s", file, err, out)
		}
	}
	// Nothing was written to the default profile dir.
	if _, err := os.Stat(filepath.Join(n.DataDir, "profiles")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("<data-dir>/profiles exists with --profile-dir set: %v", err)
	}
}
