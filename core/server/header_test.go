package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// headerChain is a chain that may serve requests routed by header.
type headerChain struct {
	name   string
	header http.Handler // nil: it has none
}

func (c headerChain) Name() string                                      { return c.name }
func (c headerChain) Handlers() []string                                { return []string{"rpc"} }
func (c headerChain) Handler(string, httpwire.ErrorWriter) http.Handler { return named("rpc") }
func (c headerChain) HeaderHandler(httpwire.ErrorWriter) (http.Handler, bool) {
	return c.header, c.header != nil
}

// TestHeaderRoute: a request naming a chain in Avalanche-Api-Route goes
// to its header-routed handler whatever its path, as avalanchego routes it
// to a VM's NewHTTPHandler; an empty header is a 400, an unknown chain or
// one without such a handler a 404, each a JSON-RPC error.
func TestHeaderRoute(t *testing.T) {
	chains := map[string]Chain{
		"xsvm":  headerChain{name: "xsvm", header: named("xsvm header")},
		"plain": headerChain{name: "plain"},
	}
	rt := NewRouter(RouterOptions{
		Chains:  func(n string) (Chain, bool) { c, ok := chains[n]; return c, ok },
		Metrics: metrics.New(),
	})
	rt.Handle("info", named("info"))
	tests := []struct {
		route, path string
		wantStatus  int
		wantBody    string
	}{
		{"xsvm", "/xsvm.Ping/Ping", 200, "xsvm header /xsvm.Ping/Ping?"},
		{"xsvm", "/ext/info", 200, "xsvm header /ext/info?"},
		{"", "/ext/info", 400, "Avalanche-Api-Route names no chain"},
		{"nochain", "/ext/info", 404, `Avalanche-Api-Route: unknown chain \"nochain\"`},
		{"plain", "/ext/info", 404, "Avalanche-Api-Route: chain plain serves nothing routed by header"},
	}
	for _, tt := range tests {
		t.Run(tt.route+tt.path, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, tt.path, nil)
			r.Header[HeaderRoute] = []string{tt.route}
			w := httptest.NewRecorder()
			rt.ServeHTTP(w, r)
			if w.Code != tt.wantStatus || !strings.Contains(w.Body.String(), tt.wantBody) {
				t.Fatalf("%s %s = %d %s, want %d with %q", tt.route, tt.path, w.Code, w.Body, tt.wantStatus, tt.wantBody)
			}
			if w.Code != 200 && !strings.Contains(w.Body.String(), `"jsonrpc":"2.0"`) {
				t.Errorf("error body %s is not a JSON-RPC error", w.Body)
			}
		})
	}
	// Without the header, the path routes as ever.
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/ext/info", nil))
	if w.Body.String() != "info /ext/info?" {
		t.Errorf("without the header: %d %s", w.Code, w.Body)
	}
}
