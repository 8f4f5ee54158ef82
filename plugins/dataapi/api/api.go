// Package api serves the chain data REST API (docs/data-api.md) from the
// data API's store: transactions, transfers, internal transactions,
// balances, deployments, blocks and chains of the node's EVM chains, in
// the shapes of the contract reference/openapi/data-api.json, with the
// REST toolkit's errors, parameter checks and page tokens.
package api

import (
	"net/http"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/price"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The module's path prefixes.
var Prefixes = []string{"/v1/chains", "/v1/address", "/v1/networks", "/v1/health-check", "/v1/live-check", "/v1/primaryNetworkRpcUsageMetrics",
	"/v2/chains/{chainId}/addresses", "/v1/blocks", "/v1/transactions"}

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
	// PublicURL is the base URL, as clients reach it, of the node that
	// serves the chains, for rpcUrl and wsUrl; "" takes the scheme and host
	// each request came to.
	PublicURL string
	// ChainConfig describes chains, by alias, blockchain ID or EVM chain
	// ID.
	ChainConfig map[string]ChainConfig
	// Reindex refetches NFT metadata; nil (an API-only instance) answers
	// reindex requests 503.
	Reindex Reindexer
	// Logger; nil discards.
	Logger hclog.Logger
	// Metrics takes the request counter; nil registers none.
	Metrics prometheus.Registerer
}

// Server answers the data API.
type Server struct {
	opts    Options
	log     hclog.Logger
	metrics *rest.EndpointMetrics
}

// New returns a server.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	metrics, err := rest.NewEndpointMetrics("dataapi", "Data API", opts.Metrics)
	if err != nil {
		return nil, err
	}
	return &Server{opts: opts, log: opts.Logger, metrics: metrics}, nil
}

// Handler routes the endpoints. Every other path, and every method but
// GET, gets the REST error body.
func (s *Server) Handler() http.Handler {
	mux := rest.NewMux(rest.MuxOptions{Logger: s.log, Observe: s.metrics.Observe})
	const addr = "/v1/chains/{chainId}/addresses/{address}/"
	for path, h := range map[string]rest.EndpointFunc{
		"/v1/chains":                                                              s.listChains,
		"/v1/chains/{chainId}":                                                    s.getChain,
		"/v1/chains/{chainId}/blocks":                                             s.listLatestBlocks,
		"/v1/chains/allBlocks":                                                    s.listAllLatestBlocks("allBlocks"),
		addr + "transactions":                                                     addressPage(s, "transactions", s.opts.Store.AddressTxs, s.txDetails),
		addr + "transactions:listErc721":                                          addressPage(s, "listErc721", s.opts.Store.ERC721Transfers, erc721Item),
		addr + "transactions:listErc1155":                                         addressPage(s, "listErc1155", s.opts.Store.ERC1155Transfers, erc1155Item),
		addr + "transactions:listInternals":                                       addressPage(s, "listInternals", s.opts.Store.InternalTxs, internalItem),
		addr + "balances:listErc20":                                               s.listErc20Balances,
		addr + "balances:listErc1155":                                             s.listErc1155Balances,
		addr + "balances:listCollectibles":                                        s.listCollectibles,
		"/v1/chains/{chainId}/contracts/{address}/deployments":                    s.listDeployments,
		"/v1/chains/{chainId}/transactions/{txHash}":                              s.getTransaction,
		"/v1/chains/{chainId}/blocks/{blockId}":                                   s.getBlock,
		"/v1/address/{address}/chains":                                            s.listAddressChains,
		"/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}": s.getVertex,
		"/v1/networks/{network}/blockchains/{blockchainId}/vertices":              s.listVertices,
		"/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight": s.listVerticesByHeight,
		"/v1/networks/{network}/blockchains/{blockchainId}/blocks":                s.listPBlocks,
		"/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}":      s.getPBlock,
		"/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks": s.listNodePBlocks,
		"/v1/networks/{network}/blockchains":                                      s.listBlockchains,
		"/v1/networks/{network}/blockchains/{blockchainId}":                       s.getBlockchain,
		"/v1/networks/{network}/subnets":                                          s.listSubnets,
		"/v1/networks/{network}/subnets/{subnetId}":                               s.getSubnet,
		"/v1/chains/{chainId}/addresses/{address}":                                s.getContractMetadata,
		"/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment":     s.getDeployment,
		"/v1/chains/{chainId}/tokens/{address}/transfers":                         s.listTokenTransfers,
		collectionPath:                                          s.listCollectionTokens,
		collectionPath + "/{tokenId}":                           s.getTokenDetails,
		addr + "balances:listErc721":                            s.listErc721Balances,
		"/v1/chains/{chainId}/{address}":                        s.chainsOfAddress,
		"/v2/chains/{chainId}/addresses/{address}/transactions": s.v2Transactions,
	} {
		mux.Handle(path, h)
	}
	s.handleService(mux)
	s.handleChainLists(mux, addr)
	// reindexNft is the one POST: routed before the GET-only mux.
	outer := http.NewServeMux()
	outer.Handle("/", mux)
	outer.HandleFunc("POST "+collectionPath+"/{tokenId}", s.reindex)
	return outer
}
