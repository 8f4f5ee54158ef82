package server

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/loglevel"
)

// testRouter returns a router over one chain "example" (its VM is not
// installed, so it does not run) with a fake API mounted at "info" that
// echoes the path it was given, and the namespace aliases persist in.
func testRouter(t *testing.T, db *storage.DB) (*Router, *storage.Namespace) {
	t.Helper()
	dir := t.TempDir()
	logs, err := logging.NewRegistry(logging.Options{Display: io.Discard, LogLevel: loglevel.Info, DisplayLevel: loglevel.Info})
	if err != nil {
		t.Fatal(err)
	}
	al, err := aliases.NewChains(db.Namespace("chain-aliases"))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := chains.New(chains.Options{
		Config:  &config.Config{DataDir: dir, Chains: []config.Chain{{Alias: "example", VM: "example"}}},
		DB:      db,
		Aliases: al,
		Plugins: catalog.New(filepath.Join(dir, "plugins"), filepath.Join(dir, "plugin-cache")),
		Logs:    logs,
		Metrics: metrics.New(),
		Log:     hclog.NewNullLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	rt := NewRouter(RouterOptions{Chains: LookupOf(cm.Resolve), Metrics: metrics.New()})
	rt.Handle("info", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Method+" info at "+r.URL.Path)
	}))
	ns := db.Namespace("endpoint-aliases")
	if err := rt.LoadEndpointAliases(ns); err != nil {
		t.Fatal(err)
	}
	return rt, ns
}

func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// serve answers a request through the router: status and body.
func serve(rt *Router, method, path string) (int, string) {
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader("{}")))
	return w.Code, w.Body.String()
}

func TestAliasEndpointValidation(t *testing.T) {
	rt, _ := testRouter(t, openDB(t))
	rt.Handle("custom", http.NotFoundHandler())
	if err := rt.AliasEndpoint("bc/example/rpc", "ex"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, endpoint, alias string
		param, want           string // "" param: accepted
	}{
		{"chain handler", "bc/example/rpc", "ex2", "", ""},
		{"chain root", "bc/example", "exroot", "", ""},
		{"host API", "info", "myinfo", "", ""},
		{"given with /ext/", "/ext/info/", "myinfo2", "", ""},
		{"alias of an alias", "ex", "exex", "", ""},
		{"empty alias", "info", "", "alias", "alias is empty"},
		{"513 characters", "info", strings.Repeat("a", 513), "alias", "at most 512"},
		{"512 characters", "info", strings.Repeat("a", 512), "", ""},
		{"slash in alias", "info", "a/b", "alias", "not allowed in a URL path segment"},
		{"dot-dot", "info", "..", "alias", "relative path segment"},
		{"already used", "info", "ex", "alias", `"ex" is already used for endpoint bc/example/rpc`},
		{"shadows bc", "info", "bc", "alias", "would shadow the API at /ext/bc"},
		{"shadows index", "info", "index", "alias", "would shadow"},
		{"shadows admin (not mounted)", "info", "admin", "alias", "would shadow"},
		{"shadows health", "info", "health", "alias", "would shadow"},
		{"shadows metrics", "info", "metrics", "alias", "would shadow"},
		{"shadows a mounted API", "info", "custom", "alias", "would shadow the API at /ext/custom"},
		{"empty endpoint", "", "e1", "endpoint", "endpoint is empty"},
		{"unknown API", "nope", "e2", "endpoint", "no API at /ext/nope"},
		{"path below a host API", "info/x", "e3", "endpoint", "no API at /ext/info/x"},
		{"unknown chain", "bc/nope/rpc", "e4", "endpoint", `unknown chain "nope"`},
		{"index off", "index/example/block", "e5", "endpoint", "the index API is off"},
		{"query", "info?x=1", "e6", "endpoint", "not a path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := rt.AliasEndpoint(tt.endpoint, tt.alias)
			if tt.param == "" {
				if err != nil {
					t.Fatalf("want accepted, got %v", err)
				}
				return
			}
			var ae *AliasError
			if !errors.As(err, &ae) || ae.Param != tt.param || !strings.Contains(ae.Msg, tt.want) {
				t.Fatalf("want %s error containing %q, got %v", tt.param, tt.want, err)
			}
		})
	}
	if got := rt.EndpointAliases()["exex"]; got != "bc/example/rpc" {
		t.Errorf("alias of an alias stored as %q, want bc/example/rpc", got)
	}
	if got := rt.EndpointAliases()["myinfo2"]; got != "info" {
		t.Errorf("/ext/info/ stored as %q, want info", got)
	}
}

func TestAliasedRequests(t *testing.T) {
	db := openDB(t)
	rt, ns := testRouter(t, db)
	for _, a := range [][2]string{{"info", "myinfo"}, {"bc/example/rpc", "ex"}, {"bc/example", "exroot"}, {"bc", "chains"}} {
		if err := rt.AliasEndpoint(a[0], a[1]); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, rt *Router) {
		t.Helper()
		pairs := [][2]string{
			{"/ext/myinfo", "/ext/info"},
			{"/ext/ex", "/ext/bc/example/rpc"},
			{"/ext/ex/sub", "/ext/bc/example/rpc/sub"},
			{"/ext/exroot/rpc", "/ext/bc/example/rpc"},
			{"/ext/chains/example/rpc", "/ext/bc/example/rpc"},
			{"/ext/myinfo/x", "/ext/info/x"},
			// A chain's name is its endpoint, as avalanchego's /ext/P.
			{"/ext/example/rpc", "/ext/bc/example/rpc"},
			{"/ext/example", "/ext/bc/example"},
		}
		for _, p := range pairs {
			for _, method := range []string{http.MethodPost, http.MethodGet} {
				code, body := serve(rt, method, p[0])
				wantCode, wantBody := serve(rt, method, p[1])
				if code != wantCode || body != wantBody {
					t.Errorf("%s %s = %d %q; %s = %d %q", method, p[0], code, body, p[1], wantCode, wantBody)
				}
			}
		}
		if code, body := serve(rt, http.MethodPost, "/ext/myinfo"); code != 200 || body != "POST info at /ext/info" {
			t.Errorf("alias of info: %d %q", code, body)
		}
		if code, _ := serve(rt, http.MethodPost, "/ext/nope"); code != http.StatusNotFound {
			t.Errorf("unknown API: %d, want 404", code)
		}
		// A chain that does not run says so at its root too, where a
		// chain like the X-Chain serves its API.
		for _, path := range []string{"/ext/bc/example", "/ext/bc/example/rpc"} {
			if code, body := serve(rt, http.MethodPost, path); code != http.StatusServiceUnavailable || !strings.Contains(body, "chain example is not running") {
				t.Errorf("%s of a chain that does not run: %d %s, want 503 saying so", path, code, body)
			}
		}
	}
	check(t, rt)

	// The aliases persist: a new router on the same namespace has them.
	rt2, ns2 := testRouter(t, db)
	if string(ns2.Prefix()) != string(ns.Prefix()) {
		t.Fatal("the second router loads another namespace")
	}
	if len(rt2.EndpointAliases()) != 4 {
		t.Fatalf("restored aliases: %v", rt2.EndpointAliases())
	}
	check(t, rt2)

	// An API mounted later under an alias's name wins over the alias.
	rt2.Handle("ex", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "mounted")
	}))
	if code, body := serve(rt2, http.MethodPost, "/ext/ex"); code != 200 || body != "mounted" {
		t.Errorf("mounted API vs alias: %d %q", code, body)
	}
}
