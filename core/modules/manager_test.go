package modules

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/config"
)

// restError writes the REST error body the host's routes use.
func restError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"message": err.Error(), "statusCode": status})
}

// TestManagerWithoutPlugins: the manager keeps the enabled modules in
// config order; routes once the modules whose config names prefixes (a
// module known only by its plugin waits for it); a module whose plugin is
// not installed answers 503 saying how to install it; a refused module is
// never routed nor started; and with nothing running, StartPending starts
// nothing and Stop has nothing to stop.
func TestManagerWithoutPlugins(t *testing.T) {
	off := false
	plugins := catalog.New(t.TempDir(), t.TempDir())
	if _, err := plugins.Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := New(Options{
		Config: &config.Config{Modules: []config.Module{
			{Name: "data", Prefixes: []string{"/v1/chains"}},
			{Name: "off", Enabled: &off, Prefixes: []string{"/v1/off"}},
			{Name: "metrics", Plugin: "metricsapi"},
			{Name: "bad", Prefixes: []string{"/v1/bad"}},
		}},
		Plugins: plugins,
		Log:     hclog.NewNullLogger(),
	})
	var names []string
	for _, mod := range m.Modules() {
		names = append(names, mod.Name)
	}
	if strings.Join(names, ",") != "data,metrics,bad" {
		t.Fatalf("modules %v, want data, metrics, bad in config order", names)
	}
	data, metrics, bad := m.Modules()[0], m.Modules()[1], m.Modules()[2]

	m.Refuse(bad, errors.New("prefix /v1/bad is taken"))
	m.FindPlugins()
	routed := m.ToRoute()
	if len(routed) != 1 || routed[0] != data {
		t.Fatalf("ToRoute = %v, want data alone (metrics has no prefixes until its plugin comes, bad is refused)", routed)
	}
	if again := m.ToRoute(); len(again) != 0 {
		t.Fatalf("ToRoute routed %v twice", again)
	}
	if metrics.Prefixes() != nil || metrics.Plugin() != nil {
		t.Fatalf("metrics without its plugin: prefixes %v, plugin %v", metrics.Prefixes(), metrics.Plugin())
	}

	for mod, want := range map[*Module]string{
		data:    `module data is not running: module plugin \"data\" is not installed in ` + plugins.Dir() + ` (install it, then call admin.loadVMs)`,
		metrics: `module metrics is not running: module plugin \"metricsapi\" is not installed`,
		bad:     "module bad is not running: prefix /v1/bad is taken",
	} {
		w := httptest.NewRecorder()
		mod.Handler(restError).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/chains", nil))
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d %s, want 503 with %s", mod.Name, w.Code, w.Body.String(), want)
		}
	}

	if started := m.StartPending(context.Background()); len(started) != 0 {
		t.Fatalf("StartPending started %v without plugins", started)
	}
	if err := m.Stop(context.Background()); err != nil {
		t.Fatalf("Stop with nothing running: %v", err)
	}
}
