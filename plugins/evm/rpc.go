package evm

import (
	"fmt"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/eth/downloader"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/rpc"
)

// Namespaces the public JSON-RPC server may expose; everything else
// (admin, miner, engine, ...) answers method-not-found.
const (
	nsWeb3     = "web3"
	nsNet      = "net"
	nsEth      = "eth"
	nsTxPool   = "txpool"
	nsDebug    = "debug"
	nsPersonal = "personal"
	nsDev      = "evm"
)

// namespaces returns the namespaces the chain config allows.
func (c config) namespaces() []string {
	ns := []string{nsWeb3, nsNet, nsEth, nsTxPool}
	if c.DebugAPIEnabled {
		ns = append(ns, nsDebug)
	}
	if c.PersonalAPIEnabled {
		ns = append(ns, nsPersonal)
	}
	if c.DevAPIEnabled {
		ns = append(ns, nsDev)
	}
	if c.TestingAPIEnabled {
		ns = append(ns, nsTesting)
	}
	return ns
}

// newInnerServer serves every go-ethereum API unfiltered and unwrapped; it
// is never exposed, only called in-process by the wrappers of the public
// server (eth_getProof's window check delegates to it).
func newInnerServer(apis []rpc.API) (*rpc.Server, error) {
	srv := rpc.NewServer()
	for _, api := range apis {
		if err := srv.RegisterName(api.Namespace, api.Service); err != nil {
			srv.Stop()
			return nil, fmt.Errorf("register %s API: %w", api.Namespace, err)
		}
	}
	return srv, nil
}

// newIndexerServer returns the internal handler evmapi.IndexerHandler: the
// eth and net namespaces of apis and the tracers' debug methods, less those
// that read or write server files; not the rest of debug, which can rewind
// or compact the chain. blocks serves its own method,
// evmapi.GetBlocksMethod.
func newIndexerServer(apis []rpc.API, blocks *blocksAPI) (*rpc.Server, error) {
	srv := rpc.NewServer()
	if err := srv.RegisterName(nsIndexer, blocks); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("register the %s API of the indexer handler: %w", nsIndexer, err)
	}
	for _, api := range apis {
		_, tracer := api.Service.(*tracers.API)
		if !tracer && api.Namespace != nsEth && api.Namespace != nsNet {
			continue
		}
		if err := srv.RegisterName(api.Namespace, api.Service); err != nil {
			srv.Stop()
			return nil, fmt.Errorf("register %s API of the indexer handler: %w", api.Namespace, err)
		}
	}
	if err := srv.RegisterName(nsDebug, refusedDebugAPI{}); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("register the refused debug methods of the indexer handler: %w", err)
	}
	return srv, nil
}

// newPublicServer serves the allowed namespaces of apis, then extra on top:
// a service registered later under the same namespace replaces methods of
// the same name, which is how chainhost adds and wraps methods.
func newPublicServer(cfg config, apis, extra []rpc.API) (*rpc.Server, error) {
	allowed := cfg.namespaces()
	srv := rpc.NewServer()
	srv.SetBatchLimits(cfg.APIMaxBatchSize, cfg.APIMaxBatchResponseSize)
	srv.SetHTTPBodyLimit(cfg.APIMaxRequestSize)
	srv.SetWebsocketReadLimit(int64(cfg.APIMaxRequestSize))
	for _, api := range slices.Concat(apis, extra) {
		if api.Authenticated || !slices.Contains(allowed, api.Namespace) {
			continue
		}
		if err := srv.RegisterName(api.Namespace, api.Service); err != nil {
			srv.Stop()
			return nil, fmt.Errorf("register %s API: %w", api.Namespace, err)
		}
	}
	return srv, nil
}

// limitedAPIs returns the services that hold the public server's
// subscriptions and traces to the chain's limits (rpc-ws-max-subscriptions,
// rpc-trace-timeout, rpc-trace-max-size), to register over go-ethereum's own in apis. inner
// serves what they delegate.
func limitedAPIs(cfg config, apis []rpc.API, inner *rpc.Client) ([]rpc.API, error) {
	f, err := serviceOf[*filters.FilterAPI](apis)
	if err != nil {
		return nil, err
	}
	d, err := serviceOf[*downloader.DownloaderAPI](apis)
	if err != nil {
		return nil, err
	}
	tr, err := serviceOf[*tracers.API](apis)
	if err != nil {
		return nil, err
	}
	subs := newSubscriptionCap(cfg.RPCWSMaxSubscriptions)
	return []rpc.API{
		{Namespace: nsEth, Service: subscriptionsAPI{subs: subs, filters: f, downloader: d}},
		{Namespace: nsDebug, Service: traceAPI{api: tr, inner: inner, limit: time.Duration(cfg.RPCTraceTimeout), maxSize: cfg.RPCTraceMaxSize, subs: subs}},
	}, nil
}
