package pluginhost

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// oldPlugin answers like a plugin built before the Metrics call and the
// health details existed.
type oldPlugin struct{ pluginv1.PluginClient }

func (oldPlugin) Health(context.Context, *pluginv1.HealthRequest, ...grpc.CallOption) (*pluginv1.HealthResponse, error) {
	return &pluginv1.HealthResponse{Healthy: true}, nil
}

func (oldPlugin) Metrics(context.Context, *pluginv1.MetricsRequest, ...grpc.CallOption) (*pluginv1.MetricsResponse, error) {
	return nil, status.Error(codes.Unimplemented, "unknown method Metrics for service chainhost.plugin.v1.Plugin")
}

// TestOldPluginKeepsWorking: a plugin without metrics or health details is
// healthy, with no details, and exports no metrics; no error.
func TestOldPluginKeepsWorking(t *testing.T) {
	i := &Instance{opts: Options{Init: Init{Kind: pluginv1.KindModule, Name: "old"}}, state: Running, proc: &process{rpc: oldPlugin{}}}
	if h := i.Health(t.Context()); !h.Healthy || h.Reason != "" || h.Details != nil {
		t.Errorf("Health = %+v, want healthy without details", h)
	}
	if families, err := i.Metrics(t.Context()); err != nil || families != nil {
		t.Errorf("Metrics = %v, %v; want none and no error", families, err)
	}
}
