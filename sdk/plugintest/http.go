package plugintest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/transport/httpgrpc"
)

// maxBodyBytes caps request bodies below the 4 MiB gRPC message limit that
// go-plugin's test connection keeps on the plugin side (the node raises it
// to 64 MiB).
const maxBodyBytes = 4<<20 - 64<<10

// Handler returns the host-side proxy to the plugin's handler of a name, as
// the node mounts it below /ext/bc/<chain>/<name>: r.URL.Path is the path
// below the handler. WebSocket upgrades work through it.
func (h *Harness) Handler(name string) http.Handler {
	return httpgrpc.NewHandler(httpgrpc.HandlerOptions{
		Handler:      name,
		MaxBodyBytes: maxBodyBytes,
		Client:       func() (pluginv1.PluginClient, error) { return h.client, nil },
	})
}

// URL returns the base URL of an HTTP server that serves the plugin's
// handler of a name (one server per name, closed when the test ends). Use
// "ws" + strings.TrimPrefix(url, "http") for WebSocket.
func (h *Harness) URL(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	srv, ok := h.servers[name]
	if !ok {
		srv = httptest.NewServer(h.Handler(name))
		h.servers[name] = srv
	}
	return srv.URL
}

// closeServers closes the servers URL started.
func (h *Harness) closeServers() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, srv := range h.servers {
		srv.Close()
	}
	clear(h.servers)
}

// ModuleURL returns the base URL of an HTTP server that serves a module's
// handler: request the module's paths below it, like URL + "/v1/...".
func (h *Harness) ModuleURL() string { return h.URL(pluginv1.ModuleHandler) }

// callChain answers the plugin's ChainCaller: a call to a VM's own chain is
// POSTed to its own handler, public or internal; a call to another chain
// goes to Options.Call.
func (h *Harness) callChain(ctx context.Context, chain host.ChainInfo, handlerPath string, body []byte) (int, []byte, error) {
	if h.chainID.IsZero() || chain.ID != h.chainID {
		if h.call == nil {
			return 0, nil, fmt.Errorf("call %s/%s: plugintest.Options.Call is not set", chain.ID, handlerPath)
		}
		return h.call(ctx, chain, handlerPath, body)
	}
	handler, path := host.SplitHandlerPath(handlerPath)
	if !slices.Contains(h.handlers, handler) && !slices.Contains(h.internal, handler) {
		return 0, nil, fmt.Errorf("call %s/%s: no handler %q: %w", chain.ID, handlerPath, handler, host.ErrNotFound)
	}
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	req.URL.Path = path
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.Handler(handler).ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}
