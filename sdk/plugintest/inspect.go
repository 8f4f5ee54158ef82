package plugintest

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/grpc/codes"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/internal/grpcerr"
	"github.com/chainhost/chainhost/sdk/internal/wire"
)

// ChainID returns the instance's blockchain ID.
func (h *Harness) ChainID() ids.ID { return h.chainID }

// Handlers returns the handler names the plugin answered at Initialize.
func (h *Harness) Handlers() []string { return slices.Clone(h.handlers) }

// IndexKinds returns the index kinds the plugin answered at Initialize.
func (h *Harness) IndexKinds() []string { return slices.Clone(h.indexKinds) }

// Containers returns what the plugin accepted into its index of kind, in
// order, with the positions and times the memory host gave them.
func (h *Harness) Containers(kind string) []host.Container { return h.mem.Containers(kind) }

// DB returns the plugin's database namespace, read and written directly.
func (h *Harness) DB() host.Database { return h.mem.DB() }

// Health asks the plugin over gRPC whether it is healthy: nil, or its reason.
func (h *Harness) Health(ctx context.Context) error {
	resp, err := h.client.Health(ctx, &pluginv1.HealthRequest{})
	if err != nil {
		return fmt.Errorf("health of %s: %w", h.name, fromStatus(err))
	}
	if !resp.GetHealthy() {
		return fmt.Errorf("%s is unhealthy: %s", h.name, resp.GetReason())
	}
	return nil
}

// AcceptedCount asks the plugin over gRPC how many containers of kind it
// accepted, as the node does at start.
func (h *Harness) AcceptedCount(ctx context.Context, kind string) (uint64, error) {
	resp, err := h.client.AcceptedCount(ctx, &pluginv1.AcceptedCountRequest{Kind: kind})
	if err != nil {
		return 0, fmt.Errorf("accepted %s count of %s: %w", kind, h.name, fromStatus(err))
	}
	return resp.GetCount(), nil
}

// GetAccepted asks the plugin over gRPC for its accepted container of kind
// at position; the error matches host.ErrNotFound when the plugin's did.
func (h *Harness) GetAccepted(ctx context.Context, kind string, position uint64) (host.Container, error) {
	resp, err := h.client.GetAccepted(ctx, &pluginv1.GetAcceptedRequest{Kind: kind, Position: position})
	if err != nil {
		return host.Container{}, fmt.Errorf("accepted %s %d of %s: %w", kind, position, h.name, fromStatus(err))
	}
	c := resp.GetContainer()
	id, err := wire.ContainerID(c)
	if err != nil {
		return host.Container{}, fmt.Errorf("accepted %s %d of %s: %w", kind, position, h.name, err)
	}
	return host.Container{ID: id, Bytes: c.GetBytes(), Index: c.GetIndex(), Timestamp: wire.TimeFromProto(c.GetTimestampUnixNano())}, nil
}

// notFound maps host.ErrNotFound to its gRPC code; read only.
var notFound = grpcerr.Sentinels{codes.NotFound: host.ErrNotFound}

// fromStatus turns a gRPC error from the plugin into a Go error that keeps
// its message and matches host.ErrNotFound and the context errors.
func fromStatus(err error) error { return grpcerr.FromStatus(err, notFound) }
