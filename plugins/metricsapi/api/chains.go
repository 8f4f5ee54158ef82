package api

import (
	"context"
	"net/http"

	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Chain is a chain of /v2/chains: an EVM chain whose metrics the module
// keeps (Chain of the contract).
type Chain struct {
	EVMChainID   uint64 `json:"evmChainId"`
	ChainName    string `json:"chainName"`
	BlockchainID string `json:"blockchainId"`
	SubnetID     string `json:"subnetId"`
	Network      string `json:"network"`
}

// ListChainsResponse is the answer of /v2/chains: every chain in one page,
// as the node has far fewer than the contract's page of 10,000.
type ListChainsResponse struct {
	Chains []Chain `json:"chains"`
}

// listChains answers GET /v2/chains: the EVM chains the module keeps
// metrics of, the node's own first; none for a network the node does not
// serve. No answer has a next page, so any pageToken is refused.
func (s *Server) listChains(r *http.Request) (any, error) {
	q := rest.Query(r)
	network := q.Enum("network", "", rest.Networks...)
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	if token != "" {
		return nil, rest.BadRequest("pageToken: not a page token of this API, got %s; %s", rest.Quote(token), startAgain)
	}
	out := ListChainsResponse{Chains: []Chain{}}
	if network != "" && !s.opts.Network.Serves(network) {
		return out, nil
	}
	subnets, err := s.subnets(r.Context())
	if err != nil {
		return nil, err
	}
	for _, c := range s.opts.Chains() {
		if ch, ok := s.describe(r.Context(), c, subnets); ok {
			out.Chains = append(out.Chains, ch)
		}
	}
	return out, nil
}

// getChain answers GET /v2/chains/{chainId}: one chain of /v2/chains, by
// EVM chain ID, blockchain ID, alias or external chain name.
func (s *Server) getChain(r *http.Request) (any, error) {
	v, err := rest.PathParam(r, "chainId")
	if err != nil {
		return nil, err
	}
	c, err := s.chain(r.Context(), v)
	if err != nil {
		return nil, err
	}
	subnets, err := s.subnets(r.Context())
	if err != nil {
		return nil, err
	}
	ch, ok := s.describe(r.Context(), c, subnets)
	if !ok {
		return nil, rest.NotFound("chain %s is not an EVM chain: the chain metrics are kept for EVM chains", rest.Quote(v))
	}
	return ch, nil
}

// describe returns c as /v2/chains lists it; ok is false for a chain
// without an EVM chain ID (the P-Chain, a chain that does not answer
// eth_chainId now).
func (s *Server) describe(ctx context.Context, c series.Chain, subnets map[ids.ID]ids.ID) (Chain, bool) {
	network := "testnet"
	if s.opts.Network.Mainnet {
		network = "mainnet"
	}
	if c.External != nil && !c.Node {
		// A chain of another node: its subnet is not known here.
		return Chain{EVMChainID: c.External.ChainID, ChainName: c.External.Name, BlockchainID: c.Info.ID.String(), Network: network}, true
	}
	evmID, ok := s.evmChainID(ctx, c.Info)
	if !ok && c.External != nil {
		evmID, ok = c.External.ChainID, true
	}
	if !ok {
		return Chain{}, false
	}
	name := c.Info.ID.String()
	if len(c.Info.Aliases) > 0 {
		name = c.Info.Aliases[0]
	}
	// A chain the P-Chain does not list is of the primary network, whose
	// ID is the zero ID.
	return Chain{EVMChainID: evmID, ChainName: name, BlockchainID: c.Info.ID.String(), SubnetID: subnets[c.Info.ID].String(), Network: network}, true
}

// subnets returns the subnet of each chain the node's P-Chain knows; none
// on a node without a P-Chain.
func (s *Server) subnets(ctx context.Context) (map[ids.ID]ids.ID, error) {
	p, err := s.pChain()
	if err != nil { // no P-Chain: every chain is of the primary network
		return map[ids.ID]ids.ID{}, nil
	}
	chains, err := s.pClient(p).Blockchains(ctx)
	if err != nil {
		return nil, pFailed(err)
	}
	out := make(map[ids.ID]ids.ID, len(chains))
	for _, c := range chains {
		out[c.ID] = c.SubnetID
	}
	return out, nil
}
