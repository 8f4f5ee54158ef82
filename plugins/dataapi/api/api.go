// Package api serves the chain data REST API (docs/data-api.md) from the
// data API's store: transactions, transfers, internal transactions,
// balances, deployments, blocks and chains of the node's EVM chains, in
// the shapes of the contract reference/openapi/data-api.json, with the
// REST toolkit's errors, parameter checks and page tokens.
package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/price"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The module's path prefixes.
var Prefixes = []string{"/v1/chains", "/v1/address", "/v1/networks"}

// Options configures a Server.
type Options struct {
	// Store is where the records are read.
	Store store.Reader
	// Chains lists the EVM chains the indexer knows.
	Chains func() []indexer.Chain
	// Host gives native balances (chain calls) and finds the X-Chain
	// (registry).
	Host host.Services
	// Tokens seals and opens page tokens.
	Tokens *rest.PageTokens
	// Prices gives token prices; nil leaves every price out.
	Prices price.Source
	// Network is the network whose names the node answers to.
	Network rest.Network
	// PublicURL is the node's base URL as clients reach it, for rpcUrl and
	// wsUrl; "" takes the scheme and host each request came to.
	PublicURL string
	// ChainConfig describes chains, by alias, blockchain ID or EVM chain
	// ID.
	ChainConfig map[string]ChainConfig
	// Logger; nil discards.
	Logger hclog.Logger
	// Metrics takes the request counter; nil registers none.
	Metrics prometheus.Registerer
}

// Server answers the data API.
type Server struct {
	opts     Options
	log      hclog.Logger
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// New returns a server.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	s := &Server{
		opts: opts, log: opts.Logger,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dataapi_requests_total", Help: "Data API requests, by endpoint and status code.",
		}, []string{"endpoint", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "dataapi_request_seconds", Help: "Data API request duration, by endpoint.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 8),
		}, []string{"endpoint"}),
	}
	if opts.Metrics != nil {
		for _, c := range []prometheus.Collector{s.requests, s.latency} {
			if err := opts.Metrics.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// Handler routes the endpoints. Every other path, and every method but
// GET, gets the REST error body.
func (s *Server) Handler() http.Handler {
	mux := rest.NewMux(rest.MuxOptions{
		Logger: s.log,
		Observe: func(endpoint string, status int, took time.Duration) {
			s.requests.WithLabelValues(endpoint, strconv.Itoa(status)).Inc()
			s.latency.WithLabelValues(endpoint).Observe(took.Seconds())
		},
	})
	const addr = "/v1/chains/{chainId}/addresses/{address}/"
	for path, h := range map[string]rest.EndpointFunc{
		"/v1/chains":                                                              s.listChains,
		addr + "transactions":                                                     s.listTransactions,
		addr + "transactions:listErc721":                                          s.listErc721,
		addr + "transactions:listErc1155":                                         s.listErc1155,
		addr + "transactions:listInternals":                                       s.listInternals,
		addr + "balances:listErc20":                                               s.listErc20Balances,
		addr + "balances:listErc1155":                                             s.listErc1155Balances,
		addr + "balances:listCollectibles":                                        s.listCollectibles,
		"/v1/chains/{chainId}/contracts/{address}/deployments":                    s.listDeployments,
		"/v1/chains/{chainId}/transactions/{txHash}":                              s.getTransaction,
		"/v1/chains/{chainId}/blocks/{blockId}":                                   s.getBlock,
		"/v1/address/{address}/chains":                                            s.listAddressChains,
		"/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}": s.getVertex,
	} {
		mux.Handle(path, h)
	}
	return mux
}
