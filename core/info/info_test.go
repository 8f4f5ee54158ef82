package info_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/info"
	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/core/version"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/hashicorp/go-hclog"
)

// TestService calls each info.* method over HTTP against a node with one
// configured chain and no plugins installed (docs/api/info.md).
func TestService(t *testing.T) {
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	al, err := aliases.NewChains(db.Namespace("chain-aliases"))
	if err != nil {
		t.Fatal(err)
	}
	plugins := catalog.New(t.TempDir(), t.TempDir())
	cm, err := chains.New(chains.Options{
		Config:  &config.Config{DataDir: dir, Chains: []config.Chain{{Alias: "kv", Aliases: []string{"example"}, VM: "example"}}},
		DB:      db,
		Aliases: al,
		Plugins: plugins,
		Metrics: metrics.New(),
		Log:     hclog.NewNullLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	kv, ok := cm.Resolve("kv")
	if !ok {
		t.Fatal("chain kv not registered")
	}
	srv := httptest.NewServer(info.NewService(info.Options{NetworkID: 12345, Chains: cm, Plugins: plugins}))
	defer srv.Close()
	call := func(method string, params, result any) error {
		return jsonrpc.Call(context.Background(), http.DefaultClient, srv.URL, method, params, result)
	}

	var v struct {
		Version            string            `json:"version"`
		RPCProtocolVersion jsonrpc.Uint64    `json:"rpcProtocolVersion"`
		VMVersions         map[string]string `json:"vmVersions"`
	}
	if err := call("info.getNodeVersion", nil, &v); err != nil {
		t.Fatalf("info.getNodeVersion: %v", err)
	}
	if v.Version != version.Version || v.RPCProtocolVersion != pluginv1.ProtocolVersion || v.VMVersions == nil || len(v.VMVersions) != 0 {
		t.Errorf("info.getNodeVersion = %+v, want version %s, protocol %d and no VMs", v, version.Version, pluginv1.ProtocolVersion)
	}

	var net map[string]jsonrpc.Uint64
	if err := call("info.getNetworkID", nil, &net); err != nil || net["networkID"] != 12345 {
		t.Errorf("info.getNetworkID = %v, %v; want 12345", net, err)
	}

	for _, alias := range []string{"kv", "example", kv.ID.String()} {
		var id map[string]string
		if err := call("info.getBlockchainID", map[string]string{"alias": alias}, &id); err != nil || id["blockchainID"] != kv.ID.String() {
			t.Errorf("info.getBlockchainID %q = %v, %v; want %s", alias, id, err, kv.ID)
		}
	}
	var rpcErr *jsonrpc.Error
	if err := call("info.getBlockchainID", map[string]string{"alias": "nope"}, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("info.getBlockchainID of an unknown alias: %v, want invalid params", err)
	}

	var vms map[string]map[string][]string
	if err := call("info.getVMs", nil, &vms); err != nil {
		t.Fatalf("info.getVMs: %v", err)
	}
	if got, ok := vms["vms"]; !ok || len(got) != 0 {
		t.Errorf("info.getVMs = %v, want an empty vms object", vms)
	}
}
