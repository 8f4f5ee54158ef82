package pluginhost

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/loglevel"
)

// current returns the initialized process (running, or starting with
// OnStart under way), or the error that explains why there is none.
func (i *Instance) current() (*process, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.proc == nil || i.stopping {
		return nil, i.unavailableLocked()
	}
	return i.proc, nil
}

// Health is a plugin's answer to a health check.
type Health struct {
	// Healthy is false while the plugin is not running or says it is not.
	Healthy bool
	// Reason says why it is not healthy.
	Reason string
	// Details is the JSON object the plugin reports with its health; nil
	// for none.
	Details json.RawMessage
}

// Health reports whether the plugin is healthy: not, with the reason, while
// it is not running, else what its Health call answers within
// HealthTimeout.
func (i *Instance) Health(ctx context.Context) Health {
	i.mu.Lock()
	p := i.proc
	if p == nil || i.stopping || i.state != Running {
		reason := i.unavailableLocked().Error()
		i.mu.Unlock()
		return Health{Reason: reason}
	}
	i.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	resp, err := p.rpc.Health(ctx, &pluginv1.HealthRequest{})
	if err != nil {
		return Health{Reason: "health check failed: " + err.Error()}
	}
	h := Health{Healthy: resp.GetHealthy(), Reason: resp.GetReason()}
	if d := resp.GetDetails(); len(d) > 0 && json.Valid(d) {
		h.Details = d
	}
	if !h.Healthy && h.Reason == "" {
		h.Reason = "plugin reports unhealthy"
	}
	return h
}

// Metrics returns the Prometheus metrics the plugin exports, within
// MetricsTimeout; none from a plugin that is not running or that predates
// the call.
func (i *Instance) Metrics(ctx context.Context) ([]*dto.MetricFamily, error) {
	i.mu.Lock()
	p := i.proc
	running := p != nil && !i.stopping && i.state == Running
	i.mu.Unlock()
	if !running {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, MetricsTimeout)
	defer cancel()
	resp, err := p.rpc.Metrics(ctx, &pluginv1.MetricsRequest{})
	if status.Code(err) == codes.Unimplemented {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("metrics of plugin %s: %w", i.opts.Init.Name, err)
	}
	families, err := pluginv1.DecodeMetrics(resp.GetFamilies())
	if err != nil {
		return nil, fmt.Errorf("metrics of plugin %s: %w", i.opts.Init.Name, err)
	}
	return families, nil
}

// SetLogLevel sets the most verbose level the plugin emits. The level is
// remembered and sent again to every restarted process; while the plugin
// is down, it only is remembered.
func (i *Instance) SetLogLevel(ctx context.Context, level string) error {
	lvl, err := loglevel.Parse(level)
	if err != nil {
		return fmt.Errorf("set log level of plugin %s: %w", i.opts.Init.Name, err)
	}
	level = lvl.String()
	i.mu.Lock()
	i.logLevel = level
	p := i.proc
	i.mu.Unlock()
	if p == nil {
		return nil
	}
	if _, err := p.rpc.SetLogLevel(ctx, &pluginv1.SetLogLevelRequest{Level: level}); err != nil {
		return fmt.Errorf("set log level of plugin %s: %w", i.opts.Init.Name, err)
	}
	return nil
}

// AcceptedCount returns how many containers of kind the VM has accepted.
func (i *Instance) AcceptedCount(ctx context.Context, kind string) (uint64, error) {
	p, err := i.current()
	if err != nil {
		return 0, fmt.Errorf("accepted %s count of %s: %w", kind, i.opts.Init.Name, err)
	}
	resp, err := p.rpc.AcceptedCount(ctx, &pluginv1.AcceptedCountRequest{Kind: kind})
	if err != nil {
		return 0, fmt.Errorf("accepted %s count of %s: %w", kind, i.opts.Init.Name, fromPlugin(err))
	}
	return resp.GetCount(), nil
}

// GetAccepted returns the container of kind the VM accepted at position.
// Index and Timestamp are whatever the VM set (the host sets them when it
// indexes the container). A missing container matches host.ErrNotFound.
func (i *Instance) GetAccepted(ctx context.Context, kind string, position uint64) (host.Container, error) {
	p, err := i.current()
	if err != nil {
		return host.Container{}, fmt.Errorf("accepted %s %d of %s: %w", kind, position, i.opts.Init.Name, err)
	}
	resp, err := p.rpc.GetAccepted(ctx, &pluginv1.GetAcceptedRequest{Kind: kind, Position: position})
	if err != nil {
		return host.Container{}, fmt.Errorf("accepted %s %d of %s: %w", kind, position, i.opts.Init.Name, fromPlugin(err))
	}
	c := resp.GetContainer()
	if c == nil {
		return host.Container{}, fmt.Errorf("accepted %s %d of %s: plugin returned no container", kind, position, i.opts.Init.Name)
	}
	id, err := ids.FromBytes(c.GetId())
	if err != nil {
		return host.Container{}, fmt.Errorf("accepted %s %d of %s: container ID: %w", kind, position, i.opts.Init.Name, err)
	}
	out := host.Container{ID: id, Bytes: c.GetBytes(), Index: c.GetIndex()}
	if ns := c.GetTimestampUnixNano(); ns != 0 {
		out.Timestamp = time.Unix(0, ns).UTC()
	}
	return out, nil
}
