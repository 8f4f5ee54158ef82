package sdk

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// internalVM has a public and an internal handler; clash makes the
// internal one take the public one's name.
type internalVM struct {
	stubPlugin
	clash bool
}

func (v *internalVM) InternalHandlers() map[string]http.Handler {
	if v.clash {
		return map[string]http.Handler{"rpc": http.NotFoundHandler()}
	}
	return map[string]http.Handler{"indexer": http.NotFoundHandler()}
}

func TestServerInternalHandlers(t *testing.T) {
	s := newPluginServer(&internalVM{}, PluginServerOptions{})
	resp, err := s.Initialize(t.Context(), initRequest())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resp.GetHandlers(), []string{"rpc", "ws"}) || !slices.Equal(resp.GetInternalHandlers(), []string{"indexer"}) {
		t.Errorf("handlers %v, internal %v; want [rpc ws] and [indexer]", resp.GetHandlers(), resp.GetInternalHandlers())
	}

	clash := &internalVM{clash: true}
	_, err = newPluginServer(clash, PluginServerOptions{}).Initialize(t.Context(), initRequest())
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `handler "rpc" is both public and internal`) {
		t.Errorf("Initialize with a clash = %v", err)
	}
	if clash.shutdowns.Load() != 1 {
		t.Errorf("the refused plugin was shut down %d times, want 1", clash.shutdowns.Load())
	}
}

// testModule is a module with health, details and a metric.
type testModule struct {
	env     *Env
	sick    atomic.Bool
	counter prometheus.Counter
}

func (m *testModule) Initialize(_ context.Context, env *Env) error {
	m.env = env
	m.counter = prometheus.NewCounter(prometheus.CounterOpts{Name: "test_requests_total", Help: "Requests."})
	m.counter.Add(3)
	return env.Metrics.Register(m.counter)
}

func (m *testModule) Handler() http.Handler          { return http.NotFoundHandler() }
func (m *testModule) Shutdown(context.Context) error { return nil }

func (m *testModule) Health(context.Context) error {
	if m.sick.Load() {
		return errors.New("index behind")
	}
	return nil
}

func (m *testModule) HealthDetails(context.Context) map[string]any {
	return map[string]any{"height": 7}
}

func TestServerModule(t *testing.T) {
	m := &testModule{}
	s := newPluginServer(AsPlugin(m), PluginServerOptions{})
	req := initRequest()
	req.Kind, req.ChainId, req.Prefixes = pluginv1.KindModule, "", []string{"/v1/x"}
	resp, err := s.Initialize(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resp.GetHandlers(), []string{pluginv1.ModuleHandler}) || m.env.Kind != pluginv1.KindModule ||
		!slices.Equal(m.env.Prefixes, []string{"/v1/x"}) || !m.env.ChainID.IsZero() {
		t.Errorf("handlers %v, env %+v", resp.GetHandlers(), m.env)
	}
	h, err := s.Health(t.Context(), &pluginv1.HealthRequest{})
	if err != nil || !h.GetHealthy() || string(h.GetDetails()) != `{"height":7}` {
		t.Errorf("Health = %v, %v", h, err)
	}
	m.sick.Store(true)
	if h, err := s.Health(t.Context(), &pluginv1.HealthRequest{}); err != nil || h.GetHealthy() || h.GetReason() != "index behind" || len(h.GetDetails()) == 0 {
		t.Errorf("Health of a sick module = %v, %v", h, err)
	}
	mr, err := s.Metrics(t.Context(), &pluginv1.MetricsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	families, err := pluginv1.DecodeMetrics(mr.GetFamilies())
	if err != nil || len(families) != 1 || families[0].GetName() != "test_requests_total" || families[0].GetMetric()[0].GetCounter().GetValue() != 3 {
		t.Errorf("Metrics = %v, %v", families, err)
	}
}

func TestServeOptsTarget(t *testing.T) {
	tests := []struct {
		name     string
		opts     ServeOpts
		wantKind string
		wantErr  string
	}{
		{name: "VM", opts: ServeOpts{Plugin: &stubPlugin{}}, wantKind: ""},
		{name: "module", opts: ServeOpts{Module: &testModule{}}, wantKind: pluginv1.KindModule},
		{name: "module with its kind", opts: ServeOpts{Description: Description{Kind: pluginv1.KindModule}, Module: &testModule{}}, wantKind: pluginv1.KindModule},
		{name: "module as a VM", opts: ServeOpts{Description: Description{Kind: pluginv1.KindVM}, Module: &testModule{}}, wantErr: `Module is set but Description.Kind is "vm"`},
		{name: "both", opts: ServeOpts{Plugin: &stubPlugin{}, Module: &testModule{}}, wantErr: "both Plugin and Module"},
		{name: "neither", opts: ServeOpts{}, wantErr: "neither Plugin nor Module"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, d, err := tt.opts.target()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("target = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || p == nil || d.Kind != tt.wantKind {
				t.Errorf("target = %v, %+v, %v", p, d, err)
			}
		})
	}
}

func TestDescriptionPrefixes(t *testing.T) {
	tests := []struct {
		d       Description
		wantErr string
	}{
		{d: Description{Kind: pluginv1.KindModule, Name: "m", Prefixes: []string{"/v1/chains", "/v1/address"}}},
		{d: Description{Kind: pluginv1.KindModule, Name: "m", Prefixes: []string{"/v1/chains/"}}, wantErr: "and no trailing /"},
		{d: Description{Kind: pluginv1.KindModule, Name: "m", Prefixes: []string{"/ext/x"}}, wantErr: "/ext is the host's"},
		{d: Description{Name: "vm", Prefixes: []string{"/v1/chains"}}, wantErr: "a VM declares no path prefixes"},
		{d: Description{Kind: pluginv1.KindModule, Name: "m", Prefixes: []string{"/explorer"}, Home: true}},
		{d: Description{Name: "vm", Home: true}, wantErr: "and no home page"},
		{d: Description{Kind: pluginv1.KindModule, Name: "m", Prefixes: []string{"/v1/avg_tps", "/v2/networks"}, MessageArrayPrefixes: []string{"/v1"}}},
		{d: Description{Kind: pluginv1.KindModule, Name: "m", Prefixes: []string{"/v1/avg_tps"}, MessageArrayPrefixes: []string{"/v1/"}}, wantErr: "and no trailing /"},
		{d: Description{Name: "vm", MessageArrayPrefixes: []string{"/v1"}}, wantErr: "a VM declares no path prefixes"},
	}
	for _, tt := range tests {
		w, err := tt.d.wire()
		switch {
		case tt.wantErr == "" && (err != nil || !slices.Equal(w.Prefixes, tt.d.Prefixes) || w.Home != tt.d.Home ||
			!slices.Equal(w.MessageArrayPrefixes, tt.d.MessageArrayPrefixes)):
			t.Errorf("wire(%+v) = %+v, %v", tt.d, w, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("wire(%+v) = %v, want %q", tt.d, err, tt.wantErr)
		}
	}
}

// TestDescriptionVMID: a VM's ID is its name padded as avalanchego pads
// it, unless the VM declares another (avalanchego's platform VM is
// "platform", ID "platformvm" padded); a module declares none.
func TestDescriptionVMID(t *testing.T) {
	platformvm, err := ids.FromName("platformvm")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		d       Description
		want    string
		wantErr string
	}{
		{d: Description{Name: "avm"}, want: "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq"},
		{d: Description{Name: "evm"}, want: "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6"},
		{d: Description{Name: "platform", VMID: platformvm}, want: "rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT"},
		{d: Description{Kind: pluginv1.KindModule, Name: "m", VMID: platformvm}, wantErr: "a module has no VM ID"},
	}
	for _, tt := range tests {
		w, err := tt.d.wire()
		switch {
		case tt.wantErr == "" && (err != nil || w.VMID != tt.want || w.Name != tt.d.Name):
			t.Errorf("wire(%+v) = %+v, %v; want VM ID %s", tt.d, w, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("wire(%+v) = %v, want %q", tt.d, err, tt.wantErr)
		}
	}
}
