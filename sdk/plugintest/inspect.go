package plugintest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	dto "github.com/prometheus/client_model/go"

	"google.golang.org/grpc/codes"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/grpcerr"
	"github.com/chainhost/chainhost/transport/wire"
)

// ChainID returns the instance's blockchain ID.
func (h *Harness) ChainID() ids.ID { return h.chainID }

// Handlers returns the handler names the plugin answered at Initialize.
func (h *Harness) Handlers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.run.handlers)
}

// InternalHandlers returns the internal handler names the plugin answered
// at Initialize.
func (h *Harness) InternalHandlers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.run.internal)
}

// SetChain adds a chain to the registry the plugin sees, or replaces the
// one with its ID; a change of Running is reported to the plugin's chain
// watches as the chain starting or stopping.
func (h *Harness) SetChain(info host.ChainInfo) { h.mem.SetChain(info) }

// AppendContainer appends a container to a chain's index of kind, as that
// chain's VM would; the plugin's feeds of it see it.
func (h *Harness) AppendContainer(chain ids.ID, kind string, id ids.ID, b []byte) host.Container {
	return h.mem.AppendContainer(chain, kind, id, b)
}

// IndexKinds returns the index kinds the plugin answered at Initialize.
func (h *Harness) IndexKinds() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.run.indexKinds)
}

// UnsafeAPIs returns the API families the plugin declared unsafe in
// public at Initialize (sdk.UnsafeAPISource), sorted.
func (h *Harness) UnsafeAPIs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.run.unsafeAPIs)
}

// Containers returns what the plugin accepted into its index of kind, in
// order, with the positions and times the memory host gave them.
func (h *Harness) Containers(kind string) []host.Container { return h.mem.Containers(kind) }

// DB returns the plugin's database namespace, read and written directly.
func (h *Harness) DB() host.Database { return h.mem.DB() }

// Health asks the plugin over gRPC whether it is healthy: nil, or its reason.
func (h *Harness) Health(ctx context.Context) error {
	_, err := h.HealthDetails(ctx)
	return err
}

// HealthDetails asks the plugin over gRPC for its health: the details it
// reports (nil for none) and nil, or its reason.
func (h *Harness) HealthDetails(ctx context.Context) (map[string]any, error) {
	resp, err := h.current().client.Health(ctx, &pluginv1.HealthRequest{})
	if err != nil {
		return nil, fmt.Errorf("health of %s: %w", h.name, fromStatus(err))
	}
	var details map[string]any
	if b := resp.GetDetails(); len(b) > 0 {
		if err := json.Unmarshal(b, &details); err != nil {
			return nil, fmt.Errorf("health details of %s: %w", h.name, err)
		}
	}
	if !resp.GetHealthy() {
		return details, fmt.Errorf("%s is unhealthy: %s", h.name, resp.GetReason())
	}
	return details, nil
}

// Metrics asks the plugin over gRPC for the metrics it registered on
// Env.Metrics, as the node does for /ext/metrics.
func (h *Harness) Metrics(ctx context.Context) ([]*dto.MetricFamily, error) {
	resp, err := h.current().client.Metrics(ctx, &pluginv1.MetricsRequest{})
	if err != nil {
		return nil, fmt.Errorf("metrics of %s: %w", h.name, fromStatus(err))
	}
	families, err := pluginv1.DecodeMetrics(resp.GetFamilies())
	if err != nil {
		return nil, fmt.Errorf("metrics of %s: %w", h.name, err)
	}
	return families, nil
}

// AcceptedCount asks the plugin over gRPC how many containers of kind it
// accepted, as the node does at start.
func (h *Harness) AcceptedCount(ctx context.Context, kind string) (uint64, error) {
	resp, err := h.current().client.AcceptedCount(ctx, &pluginv1.AcceptedCountRequest{Kind: kind})
	if err != nil {
		return 0, fmt.Errorf("accepted %s count of %s: %w", kind, h.name, fromStatus(err))
	}
	return resp.GetCount(), nil
}

// GetAccepted asks the plugin over gRPC for its accepted container of kind
// at position; the error matches host.ErrNotFound when the plugin's did.
func (h *Harness) GetAccepted(ctx context.Context, kind string, position uint64) (host.Container, error) {
	resp, err := h.current().client.GetAccepted(ctx, &pluginv1.GetAcceptedRequest{Kind: kind, Position: position})
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

// PutShared puts elements in the memory host's shared memory as if chain
// from had exported them to chain to, so that a test can import them into
// the plugin's chain (from is then one of Options.Chains, to the plugin's
// own ChainID). A key present or consumed already is an error matching
// host.ErrSharedMemoryConflict.
func (h *Harness) PutShared(from, to ids.ID, elems ...host.SharedElement) error {
	return h.mem.PutShared(from, to, elems...)
}

// Shared returns the values chain from put in shared memory for chain to
// that are still there (not imported), ordered by key: what the plugin's
// chain exported (from = ChainID) or what it has yet to import.
func (h *Harness) Shared(from, to ids.ID) []host.SharedElement { return h.mem.Shared(from, to) }
