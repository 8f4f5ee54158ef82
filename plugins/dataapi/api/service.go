package api

import (
	"context"

	"github.com/chainhost/chainhost/sdk/rest"
)

// handleService routes the paths about the service rather than the
// chains: the health and live checks, and the path of the contract a
// self-hosted node cannot serve (docs/data-api.md, "Not servable by a
// self-hosted node").
func (s *Server) handleService(mux *rest.Mux) {
	store := rest.Health(map[string]rest.HealthCheck{"store": s.storeReads})
	mux.Handle("/v1/health-check", store)
	mux.Handle("/v1/live-check", store)
	mux.Handle("/v1/primaryNetworkRpcUsageMetrics", rest.Unservable(
		"it reports the use of the hosted service's public Primary Network RPC endpoints, which a node does not have; "+
			"this node's own requests are in its metrics (docs/data-api.md)"))
}

// storeReads checks that the store answers a read.
func (s *Server) storeReads(ctx context.Context) error {
	_, err := s.opts.Store.Chains(ctx)
	return err
}
