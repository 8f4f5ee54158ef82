package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chainhost/chainhost/core/health"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// TestReport checks the host's own check and a target with no running
// instance, which is unhealthy with its reason (docs/api/info.md).
func TestReport(t *testing.T) {
	tests := []struct {
		name    string
		targets []health.Target
		healthy bool
		checks  map[string]health.Check
	}{
		{name: "host alone", healthy: true, checks: map[string]health.Check{"host": {Healthy: true}}},
		{
			name:    "chain not running",
			targets: []health.Target{{Key: "chain/X", Reason: "no plugin for VM avm"}},
			checks: map[string]health.Check{
				"host":    {Healthy: true},
				"chain/X": {Message: "no plugin for VM avm"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := health.New(func() []health.Target { return tt.targets }).Report(t.Context())
			if rep.Healthy != tt.healthy {
				t.Errorf("healthy = %v, want %v", rep.Healthy, tt.healthy)
			}
			if len(rep.Checks) != len(tt.checks) {
				t.Errorf("checks = %+v, want %+v", rep.Checks, tt.checks)
			}
			for key, want := range tt.checks {
				got, ok := rep.Checks[key]
				if !ok || got.Healthy != want.Healthy || got.Message != want.Message || got.Details != nil {
					t.Errorf("check %q = %+v (present %v), want %+v", key, got, ok, want)
				}
			}
		})
	}
}

// TestHandler checks GET's status follows the report, and that POST
// answers health.health over JSON-RPC.
func TestHandler(t *testing.T) {
	var targets []health.Target
	srv := httptest.NewServer(health.New(func() []health.Target { return targets }).Handler(jsonrpc.Options{}))
	defer srv.Close()

	get := func() (int, health.Report) {
		t.Helper()
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatalf("GET: %v", err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		var rep health.Report
		if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
			t.Fatalf("decode report: %v", err)
		}
		return resp.StatusCode, rep
	}
	if code, rep := get(); code != http.StatusOK || !rep.Healthy {
		t.Errorf("GET with the host alone = %d %+v, want 200 healthy", code, rep)
	}
	targets = []health.Target{{Key: "module/data", Reason: "disabled"}}
	if code, rep := get(); code != http.StatusServiceUnavailable || rep.Healthy || rep.Checks["module/data"].Message != "disabled" {
		t.Errorf("GET with a module down = %d %+v, want 503 unhealthy", code, rep)
	}

	var rep health.Report
	if err := jsonrpc.Call(context.Background(), http.DefaultClient, srv.URL, "health.health", nil, &rep); err != nil {
		t.Fatalf("health.health: %v", err)
	}
	if rep.Healthy || !rep.Checks["host"].Healthy || rep.Checks["module/data"].Message != "disabled" {
		t.Errorf("health.health = %+v, want the GET report", rep)
	}
	var rpcErr *jsonrpc.Error
	err := jsonrpc.Call(context.Background(), http.DefaultClient, srv.URL, "health.nope", nil, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method: %v, want method not found", err)
	}
}
