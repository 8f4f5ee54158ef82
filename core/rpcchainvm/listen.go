package rpcchainvm

import (
	"context"
	"fmt"
	"net/http"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/transport/chainlisten"
	"github.com/chainhost/chainhost/transport/httpserve"
)

// serveListener serves the VM's handlers on the chain's own listener, as
// a chainhost plugin serves it (docs/listeners.md), but from the host: an
// avalanchego plugin knows nothing of it. Its request metrics join the
// chain's.
func (i *Instance) serveListener(l *pluginhost.Listener, names []string) (*httpserve.Server, error) {
	// chainlisten closes the descriptor it is given: a copy, so the
	// node's socket stays open for the chain's next start.
	fd, err := syscall.Dup(int(l.File.Fd()))
	if err != nil {
		return nil, fmt.Errorf("chain listener %s: %w", l.Addr, err)
	}
	onError := func(w http.ResponseWriter, _ *http.Request, status int, err error) {
		jsonrpc.WriteHTTPError(w, status, jsonrpc.ServerError("%s", err.Error()))
	}
	handlers := map[string]http.Handler{}
	for _, name := range i.Handlers() {
		handlers[name] = i.Handler(name, onError)
	}
	reg := prometheus.NewRegistry()
	srv, err := chainlisten.Serve(chainlisten.Options{
		Listener: httpserve.Listener{FD: uint32(fd), Addr: l.Addr, Limits: l.Limits},
		Name:     i.opts.Alias,
		Names:    names,
		Handlers: handlers,
		Metrics:  reg,
		Logger:   i.opts.Log,
	})
	if err != nil {
		_ = syscall.Close(fd)
		return nil, err
	}
	i.listenMetrics = reg
	return srv, nil
}

// stopListener stops serving the chain's own listener.
func (i *Instance) stopListener(ctx context.Context) error {
	if i.listener == nil {
		return nil
	}
	return i.listener.Shutdown(ctx)
}
