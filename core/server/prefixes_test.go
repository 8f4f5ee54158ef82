package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/sdk/rest"
)

// named answers with its name and the path it was given.
func named(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, name+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	})
}

func TestPrefixesMount(t *testing.T) {
	var p Prefixes
	if err := p.Mount("data", []string{"/v1/chains", "/v1/address", "/v1/networks"}, named("data"), WriteRESTError); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, module string
		prefixes     []string
		want         string // "" for accepted
	}{
		{"disjoint", "metrics", []string{"/v1/avg_tps", "/v2/networks"}, ""},
		{"same prefix", "other", []string{"/v1/chains"}, "modules data and other both claim path prefix /v1/chains"},
		{"same but the wildcard's name", "other", []string{"/v1/networks/{id}/x"}, ""},
		{"same paths as another's", "third", []string{"/v1/networks/{network}/x"}, "modules other and third both claim path prefix /v1/networks/{network}/x"},
		{"one clash fails all", "other", []string{"/v9", "/v1/address"}, "both claim path prefix /v1/address"},
		{"same paths twice", "other", []string{"/v7/{a}", "/v7/{b}"}, "path prefixes /v7/{a} and /v7/{b} match the same paths"},
		{"bad wildcard", "other", []string{"/v7/{a"}, "a wildcard is a whole segment"},
		{"none", "other", nil, "no path prefixes"},
		{"not a prefix", "other", []string{"v8"}, "must start with /"},
		{"under /ext", "other", []string{"/ext/bc"}, "/ext is the host's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Mount(tt.module, tt.prefixes, named(tt.module), WriteRESTError)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Mount = %v, want accepted", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Mount = %v, want an error with %q", err, tt.want)
			}
		})
	}
	// The refused "one clash fails all" mounted nothing.
	if _, ok := p.Lookup("/v9/x"); ok {
		t.Error("a refused Mount left /v9 routed")
	}
	if got := strings.Join(p.List(), " "); got != "/v1/address /v1/avg_tps /v1/chains /v1/networks /v1/networks/{id}/x /v2/networks" {
		t.Errorf("List = %s", got)
	}
	// A listener of modules alone refuses dot segments like the main one.
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/chains/../../ext/admin", nil))
	if want := `{"message":"path \"/v1/chains/../../ext/admin\" has a \"..\" segment: send the path with it resolved","statusCode":400,"error":"Bad Request"}`; w.Code != 400 || strings.TrimSpace(w.Body.String()) != want {
		t.Errorf("dot segment on a module listener = %d %s, want 400 %s", w.Code, w.Body, want)
	}
}

func TestRouterModules(t *testing.T) {
	modules := &Prefixes{}
	if err := modules.Mount("data", []string{"/v1/chains"}, named("data"), WriteRESTError); err != nil {
		t.Fatal(err)
	}
	rt := NewRouter(RouterOptions{Chains: func(string) (Chain, bool) { return nil, false }, Metrics: metrics.New(), Modules: modules})
	rt.Handle("info", named("info"))
	tests := []struct {
		path       string
		wantStatus int
		wantBody   string // the body, or a substring of an error body's message
		rest       bool   // a REST error body, else JSON-RPC
	}{
		{"/v1/chains", 200, "data /v1/chains?", false},
		{"/v1/chains/43112/addresses/0xAb/transactions:listErc721?pageSize=5", 200, "data /v1/chains/43112/addresses/0xAb/transactions:listErc721?pageSize=5", false},
		{"/v1/chains/a%2Fb%20c?x=%3A", 200, "data /v1/chains/a%2Fb%20c?x=%3A", false},
		{"/ext/info", 200, "info /ext/info?", false},
		{"/v1/chainsX", 404, "no route for /v1/chainsX (this listener serves [/v1/chains])", true},
		{"/", 404, "no route for / (this listener serves [/v1/chains])", true},
		{"/v2/networks", 404, "no route for /v2/networks (this listener serves [/v1/chains])", true},
		{"/ext/nope", 404, "no API at /ext/nope", false},
		{"/ext", 404, "no API at /ext", false},
		{"/v1/chains/../../ext/admin", 400, `path "/v1/chains/../../ext/admin" has a ".." segment: send the path with it resolved`, true},
		{"/v1/chains/%2e%2e/x", 400, `path "/v1/chains/../x" has a ".." segment: send the path with it resolved`, true},
		{"/v1/chains/./x", 400, `path "/v1/chains/./x" has a "." segment: send the path with it resolved`, true},
		{"/ext/info/../admin", 400, `path \"/ext/info/../admin\" has a \"..\" segment`, false},
		{"/ext/bc/C/rpc/..%2F..%2Fadmin", 400, `path \"/ext/bc/C/rpc/../../admin\" has a \"..\" segment`, false},
		{"/v1/chains/...", 200, "data /v1/chains/...?", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			rt.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tt.path, nil))
			body := w.Body.String()
			if w.Code != tt.wantStatus {
				t.Fatalf("GET %s = %d %s, want %d", tt.path, w.Code, body, tt.wantStatus)
			}
			if w.Code == 200 {
				if body != tt.wantBody {
					t.Errorf("GET %s = %q, want %q", tt.path, body, tt.wantBody)
				}
				return
			}
			if tt.rest {
				var e rest.ErrorBody
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.StatusCode != tt.wantStatus || e.Error != rest.StatusName(tt.wantStatus) || e.Message != tt.wantBody {
					t.Errorf("GET %s = %s, want the REST %d body with %q", tt.path, body, tt.wantStatus, tt.wantBody)
				}
				return
			}
			if !strings.Contains(body, `"jsonrpc":"2.0"`) || !strings.Contains(body, tt.wantBody) {
				t.Errorf("GET %s = %s, want a JSON-RPC error with %q", tt.path, body, tt.wantBody)
			}
		})
	}
}

// TestRouterHome: GET and HEAD / redirect to the prefix of the first
// module that is the home page, on the main listener and on a module
// listener, as soon as it is one (its plugin installed by a hot-load);
// other methods, and listeners without a home, answer / as any unrouted
// path.
func TestRouterHome(t *testing.T) {
	modules := &Prefixes{}
	if err := modules.Mount("explorer", []string{"/ui"}, named("explorer"), WriteRESTError); err != nil {
		t.Fatal(err)
	}
	installed := false // the plugin of /later is not installed yet
	modules.AddHome(func() (string, bool) { return "/later", installed })
	modules.AddHome(func() (string, bool) { return "/ui", true })
	modules.AddHome(func() (string, bool) { return "/other", true }) // the first home stays
	rt := NewRouter(RouterOptions{Chains: func(string) (Chain, bool) { return nil, false }, Metrics: metrics.New(), Modules: modules})
	tests := []struct {
		name         string
		h            http.Handler
		method, path string
		wantStatus   int
		wantLocation string
	}{
		{"main GET", rt, http.MethodGet, "/", 302, "/ui/"},
		{"main HEAD", rt, http.MethodHead, "/", 302, "/ui/"},
		{"query kept", rt, http.MethodGet, "/?q=1", 302, "/ui/?q=1"},
		{"POST", rt, http.MethodPost, "/", 404, ""},
		{"the module's own path", rt, http.MethodGet, "/ui/", 200, ""},
		{"module listener", modules, http.MethodGet, "/", 302, "/ui/"},
		{"no home", &Prefixes{}, http.MethodGet, "/", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			tt.h.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
			if w.Code != tt.wantStatus || w.Header().Get("Location") != tt.wantLocation {
				t.Errorf("%s %s = %d, Location %q; want %d, %q", tt.method, tt.path, w.Code, w.Header().Get("Location"), tt.wantStatus, tt.wantLocation)
			}
		})
	}
	// Once its plugin is installed (a hot-load), the first module is home.
	installed = true
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if w.Code != 302 || w.Header().Get("Location") != "/later/" {
		t.Errorf("GET / after the first home's plugin came = %d, Location %q; want 302, /later/", w.Code, w.Header().Get("Location"))
	}
}

// TestModuleErrorStyle: the errors the host writes on a module's routes
// before the module sees them have the style the module describes;
// elsewhere `message` stays a string.
func TestModuleErrorStyle(t *testing.T) {
	modules := &Prefixes{}
	if err := modules.Mount("data", []string{"/v1/chains"}, named("data"), RESTErrorWriter(func() []string { return nil })); err != nil {
		t.Fatal(err)
	}
	arrays := RESTErrorWriter(func() []string { return []string{"/v1"} })
	if err := modules.Mount("metrics", []string{"/v1/avg_tps", "/v2/networks"}, named("metrics"), arrays); err != nil {
		t.Fatal(err)
	}
	rt := NewRouter(RouterOptions{Chains: func(string) (Chain, bool) { return nil, false }, Metrics: metrics.New(), Modules: modules})
	tests := []struct{ path, want string }{
		{"/v1/avg_tps/%2e%2e/x", `{"message":["path \"/v1/avg_tps/../x\" has a \"..\" segment: send the path with it resolved"],"statusCode":400,"error":"Bad Request"}`},
		{"/v2/networks/./x", `{"message":"path \"/v2/networks/./x\" has a \".\" segment: send the path with it resolved","statusCode":400,"error":"Bad Request"}`},
		{"/v1/chains/../x", `{"message":"path \"/v1/chains/../x\" has a \"..\" segment: send the path with it resolved","statusCode":400,"error":"Bad Request"}`},
		{"/v1/other/../x", `{"message":"path \"/v1/other/../x\" has a \"..\" segment: send the path with it resolved","statusCode":400,"error":"Bad Request"}`},
	}
	for _, tt := range tests {
		for name, h := range map[string]http.Handler{"main": rt, "modules only": modules} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tt.path, nil))
			if got := strings.TrimSpace(w.Body.String()); w.Code != 400 || got != tt.want {
				t.Errorf("%s listener: GET %s = %d %s, want 400 %s", name, tt.path, w.Code, got, tt.want)
			}
		}
	}
	// What a module's route answers for it (a 503, a 413) takes its style.
	for path, want := range map[string]string{
		"/v1/avg_tps/C": `{"message":["module metrics is restarting"],"statusCode":503,"error":"Service Unavailable"}`,
		"/v2/networks":  `{"message":"module metrics is restarting","statusCode":503,"error":"Service Unavailable"}`,
	} {
		w := httptest.NewRecorder()
		arrays(w, httptest.NewRequest(http.MethodGet, path, nil), http.StatusServiceUnavailable, errors.New("module metrics is restarting"))
		if got := strings.TrimSpace(w.Body.String()); w.Code != 503 || got != want {
			t.Errorf("%s: %d %s, want 503 %s", path, w.Code, got, want)
		}
	}
}

// A path goes to the most specific prefix it falls under, whichever module
// mounted first: the metrics module's /v2/chains keeps what the data
// module's /v2/chains/{chainId}/addresses does not take.
func TestPrefixesMostSpecific(t *testing.T) {
	for _, order := range [][]string{{"metrics", "data"}, {"data", "metrics"}} {
		var p Prefixes
		claims := map[string][]string{"metrics": {"/v2/chains"}, "data": {"/v2/chains/{chainId}/addresses", "/v2/chains/{chainId}/x/{y}/z"}}
		for _, m := range order {
			if err := p.Mount(m, claims[m], named(m), WriteRESTError); err != nil {
				t.Fatal(err)
			}
		}
		for path, want := range map[string]string{
			"/v2/chains":                                   "metrics",
			"/v2/chains/43114":                             "metrics",
			"/v2/chains/43114/metrics/txCount":             "metrics",
			"/v2/chains/43114/addresses/0xab/transactions": "data",
			"/v2/chains/43114/addresses":                   "data",
			"/v2/chains/43114/addressesX":                  "metrics",
			"/v2/chains/1/x/2/z/3":                         "data",
			"/v2/chains/1/x/2/w":                           "metrics",
		} {
			w := httptest.NewRecorder()
			p.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
			if got, _, _ := strings.Cut(w.Body.String(), " "); got != want {
				t.Errorf("mounted %v: %s went to %q, want %s", order, path, w.Body, want)
			}
		}
	}
}
