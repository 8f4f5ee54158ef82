package rpcchainvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/sdk/host"
	chids "github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// BlockKind is the index kind of an rpcchainvm chain: its accepted blocks,
// in order, from height 1 (the genesis block is never accepted).
const BlockKind = "block"

// Health reports the VM's HealthCheck: unhealthy, with why, while no
// process runs or when the check fails; its details are what the VM
// reports.
func (i *Instance) Health(ctx context.Context) pluginhost.Health {
	i.mu.Lock()
	p := i.proc
	if p == nil || i.stopping || i.state != pluginhost.Running {
		reason := i.unavailableLocked().Error()
		i.mu.Unlock()
		return pluginhost.Health{Reason: reason}
	}
	i.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, pluginhost.HealthTimeout)
	defer cancel()
	details, err := p.vm.HealthCheck(ctx)
	h := pluginhost.Health{Healthy: err == nil}
	if err != nil {
		h.Reason = err.Error()
	}
	if raw, ok := details.(json.RawMessage); ok && len(raw) > 0 && json.Valid(raw) && string(raw) != "null" {
		h.Details = raw
	}
	return h
}

// Metrics gathers the VM's own metrics and those of the host's servers
// for it (rpcdb and the other services).
func (i *Instance) Metrics(context.Context) ([]*dto.MetricFamily, error) {
	p, err := i.current()
	if err != nil {
		return nil, err
	}
	if i.listenMetrics != nil {
		return prometheus.Gatherers{p.metrics, i.listenMetrics}.Gather()
	}
	return p.metrics.Gather()
}

// SetLogLevel does nothing: the protocol has no call for it. The VM logs
// at the level of its own config, and the chain's logger filters what the
// host keeps of its output.
func (*Instance) SetLogLevel(context.Context, string) error { return nil }

// IndexKinds lists the chain's one index kind, BlockKind.
func (*Instance) IndexKinds() []string { return []string{BlockKind} }

// AcceptedCount is the number of blocks accepted after genesis: the
// height of the last accepted block.
func (i *Instance) AcceptedCount(ctx context.Context, kind string) (uint64, error) {
	p, err := i.withKind(kind)
	if err != nil {
		return 0, err
	}
	id, err := p.vm.LastAccepted(ctx)
	if err != nil {
		return 0, fmt.Errorf("last accepted block: %w", err)
	}
	blk, err := p.vm.GetBlock(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("last accepted block %s: %w", id, err)
	}
	return blk.Height(), nil
}

// GetAccepted returns the accepted block at index position pos: height
// pos+1.
func (i *Instance) GetAccepted(ctx context.Context, kind string, pos uint64) (host.Container, error) {
	p, err := i.withKind(kind)
	if err != nil {
		return host.Container{}, err
	}
	id, err := p.vm.GetBlockIDAtHeight(ctx, pos+1)
	if err != nil {
		return host.Container{}, fmt.Errorf("block at height %d: %w", pos+1, err)
	}
	blk, err := p.vm.GetBlock(ctx, id)
	if err != nil {
		return host.Container{}, fmt.Errorf("block %s: %w", id, err)
	}
	return host.Container{ID: chids.ID(id), Bytes: blk.Bytes(), Index: pos}, nil
}

func (i *Instance) withKind(kind string) (*process, error) {
	if kind != BlockKind {
		return nil, fmt.Errorf("index kind %q: an rpcchainvm chain indexes %q", kind, BlockKind)
	}
	return i.current()
}

// Handlers lists the names of the VM's handlers (its CreateHandlers
// prefixes without the leading slash), sorted.
func (i *Instance) Handlers() []string {
	p, err := i.current()
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(p.handlers))
	for n := range p.handlers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// InternalHandlers is empty: every handler of an rpcchainvm VM is public,
// as on avalanchego.
func (*Instance) InternalHandlers() []string { return nil }

// Serves reports whether the VM has the handler name.
func (i *Instance) Serves(name string, _ bool) bool {
	p, err := i.current()
	if err != nil {
		return false
	}
	_, ok := p.handlers[name]
	return ok
}

// Handler serves the VM's handler name of the process running at each
// request (over avalanchego's ghttp, WebSocket upgrades included). While
// none runs onError gets 503 and why.
func (i *Instance) Handler(name string, onError httpwire.ErrorWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := i.current()
		if err != nil {
			onError(w, r, http.StatusServiceUnavailable, err)
			return
		}
		h, ok := p.handlers[name]
		if !ok {
			onError(w, r, http.StatusNotFound, fmt.Errorf("no handler %q", name))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// HeaderHandler serves the VM's NewHTTPHandler, which avalanchego routes
// by the Avalanche-Api-Route header naming the chain; ok is false when the
// VM has none. While no process runs onError gets 503 and why.
func (i *Instance) HeaderHandler(onError httpwire.ErrorWriter) (h http.Handler, ok bool) {
	p, err := i.current()
	if err != nil || p.header == nil {
		return nil, false
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := i.current()
		switch {
		case err != nil:
			onError(w, r, http.StatusServiceUnavailable, err)
		case p.header == nil:
			onError(w, r, http.StatusNotFound, errors.New("the VM has no header-routed handler"))
		default:
			p.header.ServeHTTP(w, r)
		}
	}), true
}
