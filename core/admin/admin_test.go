package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/server"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/loglevel"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/sdk/profile"
)

// fixture is a host with two configured chains, "example" and "other"
// (alias "zz"), whose VMs are not installed, and the admin API at /ext/admin.
type fixture struct {
	url        string
	db         *storage.DB
	logs       *logging.Registry
	chains     *chains.Manager
	pluginDir  string
	profileDir string
	svc        *Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	logs, err := logging.NewRegistry(logging.Options{Dir: filepath.Join(dir, "logs"), Display: io.Discard, LogLevel: loglevel.Info, DisplayLevel: loglevel.Info})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = logs.Close() })
	al, err := aliases.NewChains(db.Namespace("chain-aliases"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, logs: logs, pluginDir: filepath.Join(dir, "plugins"), profileDir: filepath.Join(dir, "profiles")}
	if err := os.Mkdir(f.pluginDir, 0o755); err != nil {
		t.Fatal(err)
	}
	reg := catalog.New(f.pluginDir, filepath.Join(dir, "plugin-cache"))
	f.chains, err = chains.New(chains.Options{
		Config:  &config.Config{DataDir: dir, Chains: []config.Chain{{Alias: "example", VM: "example"}, {Alias: "other", Aliases: []string{"zz"}, VM: "example"}}},
		DB:      db,
		Aliases: al,
		Plugins: reg,
		Logs:    logs,
		Metrics: metrics.New(),
		Log:     hclog.NewNullLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	rt := server.NewRouter(server.RouterOptions{Chains: server.LookupOf(f.chains.Resolve), Metrics: metrics.New()})
	f.svc = New(Options{Router: rt, Chains: f.chains, Aliases: al, Plugins: reg, Logs: logs, ProfileDir: f.profileDir})
	t.Cleanup(func() { _ = f.svc.Close() })
	rt.Handle("admin", f.svc.Handler())
	srv := httptest.NewServer(rt)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// call returns the raw result of a method, or its error object.
func (f *fixture) call(t *testing.T, method string, params any) (string, *jsonrpc.Error) {
	t.Helper()
	var raw json.RawMessage
	err := jsonrpc.Call(context.Background(), nil, f.url+"/ext/admin", method, params, &raw)
	if err == nil {
		return string(raw), nil
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("%s: %v", method, err)
	}
	return "", rpcErr
}

// expect checks a call's exact result, or its error code and that its
// message holds each of want.
type expect struct {
	method string
	params any
	result string   // exact raw result on success
	code   int      // error code; 0 for success
	want   []string // pieces of the error message
}

func (f *fixture) run(t *testing.T, tests []expect) {
	t.Helper()
	for _, tt := range tests {
		got, rpcErr := f.call(t, tt.method, tt.params)
		switch {
		case tt.code == 0 && rpcErr != nil:
			t.Errorf("%s %v: error %d %q", tt.method, tt.params, rpcErr.Code, rpcErr.Message)
		case tt.code == 0 && got != tt.result:
			t.Errorf("%s %v = %s, want %s", tt.method, tt.params, got, tt.result)
		case tt.code != 0 && rpcErr == nil:
			t.Errorf("%s %v = %s, want error %d", tt.method, tt.params, got, tt.code)
		case tt.code != 0:
			if rpcErr.Code != tt.code {
				t.Errorf("%s %v: code %d, want %d (%s)", tt.method, tt.params, rpcErr.Code, tt.code, rpcErr.Message)
			}
			for _, w := range tt.want {
				if !strings.Contains(rpcErr.Message, w) {
					t.Errorf("%s %v: message %q lacks %q", tt.method, tt.params, rpcErr.Message, w)
				}
			}
		}
	}
}

func TestChainAliases(t *testing.T) {
	f := newFixture(t)
	example, _ := f.chains.Resolve("example")
	other, _ := f.chains.Resolve("other")
	id := example.ID.String()
	f.run(t, []expect{
		{method: "admin.getChainAliases", params: map[string]string{"chain": "example"}, result: `{"aliases":["example","` + id + `"]}`},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": "kv"}, result: `{}`},
		{method: "admin.aliasChain", params: map[string]string{"chain": id, "alias": "kv2"}, result: `{}`},
		{method: "admin.aliasChain", params: map[string]string{"chain": "kv", "alias": "kv3"}, result: `{}`},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": "kv"}, result: `{}`},
		{method: "admin.getChainAliases", params: map[string]string{"chain": "kv2"}, result: `{"aliases":["example","kv","kv2","kv3","` + id + `"]}`},
		{method: "admin.getChainAliases", params: map[string]string{"chain": id}, result: `{"aliases":["example","kv","kv2","kv3","` + id + `"]}`},
		// Primary alias, config aliases, added aliases sorted, ID.
		{method: "admin.aliasChain", params: map[string]string{"chain": "zz", "alias": "aa"}, result: `{}`},
		{method: "admin.getChainAliases", params: map[string]string{"chain": "aa"}, result: `{"aliases":["other","zz","aa","` + other.ID.String() + `"]}`},
		{method: "admin.aliasChain", params: map[string]string{"chain": "nope", "alias": "x"}, code: -32602, want: []string{`"chain"`, `"nope"`}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": ""}, code: -32602, want: []string{`"alias"`, "empty"}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": strings.Repeat("a", 513)}, code: -32602, want: []string{"513", "512"}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": "other"}, code: -32602, want: []string{`"other" is already used by chain other`}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": other.ID.String()}, code: -32602, want: []string{"already used by chain other"}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": "a/b"}, code: -32602, want: []string{"not allowed"}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example"}, code: -32602, want: []string{"empty"}},
		{method: "admin.aliasChain", params: map[string]string{"chain": "example", "alias": "y", "x": "1"}, code: -32602, want: []string{`unknown param "x"`}},
		{method: "admin.getChainAliases", params: map[string]string{"chain": "nope"}, code: -32602, want: []string{`"nope"`}},
	})
	// Persisted: a fresh alias table on the same database has them.
	al, err := aliases.NewChains(f.db.Namespace("chain-aliases"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"kv", "kv2", "kv3"} {
		if got, ok := al.Resolve(a); !ok || got != example.ID {
			t.Errorf("persisted alias %s -> %v, %v", a, got, ok)
		}
	}
	if _, ok := al.Resolve("example"); ok {
		t.Error("the config alias was persisted too")
	}
}

func TestEndpointAlias(t *testing.T) {
	f := newFixture(t)
	f.run(t, []expect{
		{method: "admin.alias", params: map[string]string{"endpoint": "admin", "alias": "adm"}, result: `{}`},
		{method: "admin.alias", params: map[string]string{"endpoint": "bc/example/rpc", "alias": "ex"}, result: `{}`},
		{method: "admin.alias", params: map[string]string{"endpoint": "admin", "alias": "adm"}, code: -32602, want: []string{`"alias"`, "already used"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "admin", "alias": "info"}, code: -32602, want: []string{"shadow"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "admin", "alias": strings.Repeat("a", 513)}, code: -32602, want: []string{"513"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "admin", "alias": ""}, code: -32602, want: []string{"empty"}},
		{method: "admin.alias", params: map[string]string{"endpoint": "bc/nope", "alias": "z"}, code: -32602, want: []string{`"endpoint"`, `unknown chain "nope"`}},
	})
	// The admin API answers through its alias.
	var raw json.RawMessage
	if err := jsonrpc.Call(context.Background(), nil, f.url+"/ext/adm", "admin.getChainAliases", map[string]string{"chain": "other"}, &raw); err != nil {
		t.Fatalf("call through the alias: %v", err)
	}
	if !strings.HasPrefix(string(raw), `{"aliases":["other",`) {
		t.Errorf("through the alias: %s", raw)
	}
}

func TestLoggerLevels(t *testing.T) {
	f := newFixture(t)
	f.logs.Get("main")
	f.logs.Get("example")
	f.run(t, []expect{
		{method: "admin.getLoggerLevel", params: nil, result: `{"loggerLevels":{"example":{"logLevel":"INFO","displayLevel":"INFO"},"main":{"logLevel":"INFO","displayLevel":"INFO"}}}`},
		{method: "admin.setLoggerLevel", params: map[string]string{"loggerName": "example", "logLevel": "debug"}, result: `{}`},
		{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "example"}, result: `{"loggerLevels":{"example":{"logLevel":"DEBUG","displayLevel":"INFO"}}}`},
		{method: "admin.setLoggerLevel", params: map[string]string{"displayLevel": "WARN"}, result: `{}`},
		{method: "admin.getLoggerLevel", params: map[string]string{}, result: `{"loggerLevels":{"example":{"logLevel":"DEBUG","displayLevel":"WARN"},"main":{"logLevel":"INFO","displayLevel":"WARN"}}}`},
		{method: "admin.setLoggerLevel", params: map[string]string{"loggerName": "main", "logLevel": "VERBO", "displayLevel": "off"}, result: `{}`},
		{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "main"}, result: `{"loggerLevels":{"main":{"logLevel":"VERBO","displayLevel":"OFF"}}}`},
		{method: "admin.setLoggerLevel", params: map[string]string{"loggerName": "main"}, code: -32602, want: []string{"logLevel and displayLevel are both omitted"}},
		{method: "admin.setLoggerLevel", params: nil, code: -32602, want: []string{"both omitted"}},
		{method: "admin.setLoggerLevel", params: map[string]string{"logLevel": "LOUD"}, code: -32602, want: []string{`"logLevel"`, `"LOUD"`}},
		{method: "admin.setLoggerLevel", params: map[string]string{"displayLevel": "quiet"}, code: -32602, want: []string{`"displayLevel"`, `"quiet"`}},
		{method: "admin.setLoggerLevel", params: map[string]string{"loggerName": "nope", "logLevel": "INFO"}, code: -32602, want: []string{`unknown logger "nope"`, "example, main"}},
		{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "nope"}, code: -32602, want: []string{`unknown logger "nope"`}},
	})
	// The failed calls changed nothing.
	if p, _ := f.logs.Levels("example"); p.LogLevel != loglevel.Debug || p.DisplayLevel != loglevel.Warn {
		t.Errorf("example levels = %+v", p)
	}
}

func TestProfiles(t *testing.T) {
	f := newFixture(t)
	f.run(t, []expect{
		{method: "admin.stopCPUProfiler", code: -32000, want: []string{"not running"}},
		{method: "admin.startCPUProfiler", result: `{}`},
		{method: "admin.startCPUProfiler", code: -32000, want: []string{"already running"}},
		{method: "admin.memoryProfile", result: `{}`},
		{method: "admin.lockProfile", result: `{}`},
		{method: "admin.stopCPUProfiler", result: `{}`},
		{method: "admin.stopCPUProfiler", code: -32000, want: []string{"not running"}},
		{method: "admin.memoryProfile", params: map[string]int{"x": 1}, code: -32602, want: []string{`unknown param "x"`}},
	})
	entries, err := os.ReadDir(f.profileDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "cpu.profile lock.profile mem.profile" {
		t.Fatalf("profile dir holds %v", names)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(f.profileDir, n))
		if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("%s is not a gzipped pprof profile (%d bytes, %v)", n, len(b), err)
		}
	}
}

func TestCloseWritesCPUProfile(t *testing.T) {
	f := newFixture(t)
	f.run(t, []expect{{method: "admin.startCPUProfiler", result: `{}`}})
	if err := f.svc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.profileDir, profile.CPUFile)); err != nil {
		t.Fatalf("Close while profiling: %v", err)
	}
	f.run(t, []expect{{method: "admin.stopCPUProfiler", code: -32000, want: []string{"not running"}}})
}

func TestLoadVMs(t *testing.T) {
	f := newFixture(t)
	f.run(t, []expect{{method: "admin.loadVMs", result: `{"newVMs":{}}`}})
	junk := filepath.Join(f.pluginDir, "junk")
	plugintest.WriteExecutable(t, junk, []byte("#!/bin/sh\necho garbage\n"), 0o755)
	for range 2 { // a failed binary is tried again on every call
		got, rpcErr := f.call(t, "admin.loadVMs", nil)
		if rpcErr != nil {
			t.Fatal(rpcErr)
		}
		var res struct {
			NewVMs    map[string][]string `json:"newVMs"`
			FailedVMs map[string]string   `json:"failedVMs"`
		}
		if err := json.Unmarshal([]byte(got), &res); err != nil {
			t.Fatal(err)
		}
		if res.NewVMs == nil || len(res.NewVMs) != 0 || len(res.FailedVMs) != 1 ||
			!strings.Contains(res.FailedVMs["junk"], `not a chainhost plugin: it printed "garbage"`) {
			t.Fatalf("loadVMs = %s", got)
		}
	}
	if err := os.RemoveAll(f.pluginDir); err != nil {
		t.Fatal(err)
	}
	f.run(t, []expect{{method: "admin.loadVMs", code: -32000, want: []string{"read plugin dir"}}})
}
