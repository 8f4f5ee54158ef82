package api

import (
	"context"

	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// handleService routes the v2 paths about the service rather than a
// series: the health and live checks, the chains, and the path of the
// contract a self-hosted node cannot serve (docs/metrics-api.md, "Not
// servable by a self-hosted node").
func (s *Server) handleService(v2 *rest.Mux) {
	store := rest.Health(map[string]rest.HealthCheck{"store": s.storeReads})
	v2.Handle("/v2/health-check", store)
	v2.Handle("/v2/live-check", store)
	v2.Handle("/v2/chains", s.listChains)
	v2.Handle("/v2/chains/{chainId}", s.getChain)
	v2.Handle("/v2/chains/43114/btcb/bridged:getAddresses", rest.Unservable(
		"it lists the addresses that bridged BTC.b into mainnet's C-Chain, from the Avalanche Bridge's records, "+
			"which the hosted service keeps and a node does not"))
}

// storeReads checks that the store answers a read.
func (s *Server) storeReads(context.Context) error {
	_, _, err := s.opts.Store.FirstDay(ids.ID{})
	return err
}
