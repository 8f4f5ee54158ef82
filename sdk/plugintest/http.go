package plugintest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/transport/httpunix"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// dataSocket is the socket the harness serves the plugin's handlers on, as
// the node does: the plugin's own data socket server (transport/httpunix)
// answers there, and the harness reaches it with net/http's client.
type dataSocket struct {
	dir  string
	path string
	ln   *net.UnixListener
	fd   uint32 // a copy of the socket for the plugin, which closes it
}

// bindDataSocket binds a data socket in a new directory short enough for
// a socket's path.
func bindDataSocket() (*dataSocket, error) {
	dir, err := os.MkdirTemp("", "plugintest")
	if err != nil {
		return nil, fmt.Errorf("data socket: %w", err)
	}
	path := filepath.Join(dir, "data.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("data socket: %w", err)
	}
	f, err := ln.File()
	if err == nil {
		var fd int
		fd, err = syscall.Dup(int(f.Fd()))
		_ = f.Close()
		if err == nil {
			return &dataSocket{dir: dir, path: path, ln: ln, fd: uint32(fd)}, nil
		}
	}
	_ = ln.Close()
	_ = os.RemoveAll(dir)
	return nil, fmt.Errorf("data socket %s: %w", path, err)
}

// close closes the harness's side of the socket and removes its directory.
func (s *dataSocket) close() {
	_ = s.ln.Close()
	_ = os.RemoveAll(s.dir)
}

// newDataTransport returns the client transport to the data socket at
// path(): the running plugin's, which changes at a restart.
func newDataTransport(path func() string) *http.Transport {
	var d net.Dialer
	return &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", path())
		},
		DisableCompression:  true, // the handler sees the client's Accept-Encoding
		MaxIdleConnsPerHost: 64,
	}
}

// Handler returns a proxy to the plugin's handler of a name, as the node
// mounts it below /ext/bc/<chain>/<name>: r.URL.Path is the path below the
// handler. A body over the node's default cap is refused with 413, as the
// node does; WebSocket upgrades work through it.
func (h *Harness) Handler(name string) http.Handler {
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", "plugin"
			for k := range pr.Out.Header {
				if strings.HasPrefix(k, "Chainhost-") { // a client may not pose as the host
					delete(pr.Out.Header, k)
				}
			}
			pr.Out.Header.Set(httpunix.HeaderHandler, name)
			pr.Out.Header.Set(httpunix.HeaderRemoteAddr, pr.In.RemoteAddr)
			if pr.In.RequestURI != "" {
				pr.Out.Header.Set(httpunix.HeaderRequestURI, pr.In.RequestURI)
			}
		},
		Transport: h.rt,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > httpwire.DefaultMaxBodyBytes {
			http.Error(w, http.StatusText(http.StatusRequestEntityTooLarge), http.StatusRequestEntityTooLarge)
			return
		}
		proxy.ServeHTTP(w, r)
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
	if !slices.Contains(h.Handlers(), handler) && !slices.Contains(h.InternalHandlers(), handler) {
		return 0, nil, fmt.Errorf("call %s/%s: no handler %q: %w", chain.ID, handlerPath, handler, host.ErrNotFound)
	}
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	req.URL.Path = path
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.Handler(handler).ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}
