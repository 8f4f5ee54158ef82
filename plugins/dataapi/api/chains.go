package api

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/sdk/rest"
)

// ChainConfig describes a chain in /v1/chains; what it leaves empty has a
// default (docs/data-api.md, "Configuration").
type ChainConfig struct {
	Name         string       `json:"name"`
	Description  string       `json:"description"`
	LogoURI      string       `json:"logo-uri"`
	ExplorerURL  string       `json:"explorer-url"`
	SubnetID     string       `json:"subnet-id"`
	Multicall    string       `json:"multicall"`
	Private      bool         `json:"private"`
	Features     []string     `json:"features"`
	NetworkToken *TokenConfig `json:"network-token"`
}

// TokenConfig describes a chain's native token.
type TokenConfig struct {
	Name        string  `json:"name"`
	Symbol      string  `json:"symbol"`
	Decimals    *uint64 `json:"decimals"`
	LogoURI     string  `json:"logo-uri"`
	Description string  `json:"description"`
}

// features are the values of the feature filter and of enabledFeatures.
var features = []string{"nftIndexing", "webhooks", "teleporter"}

// Validate checks the config of the chain named name.
func (c ChainConfig) Validate(name string) error {
	for i, f := range c.Features {
		if !slices.Contains(features, f) {
			return fmt.Errorf("chains.%s.features[%d]: must be one of %s, got %q", name, i, strings.Join(features, "|"), f)
		}
	}
	if t := c.NetworkToken; t != nil && t.Decimals != nil && *t.Decimals > 255 {
		return fmt.Errorf("chains.%s.network-token.decimals: must be at most 255, got %d", name, *t.Decimals)
	}
	for _, u := range []struct{ key, v string }{{"logo-uri", c.LogoURI}, {"explorer-url", c.ExplorerURL}} {
		if u.v == "" {
			continue
		}
		if p, err := url.Parse(u.v); err != nil || p.Scheme == "" || p.Host == "" {
			return fmt.Errorf("chains.%s.%s: must be an absolute URL, got %q", name, u.key, u.v)
		}
	}
	return nil
}

// names returns every name a chain answers to: its EVM chain ID (when
// known), blockchain ID and aliases. Config keys and API key allow lists
// use them.
func names(c indexer.Chain) []string {
	out := make([]string, 0, 2+len(c.Info.Aliases))
	if c.EVMChainID != 0 {
		out = append(out, strconv.FormatUint(c.EVMChainID, 10))
	}
	out = append(out, c.Info.ID.String())
	return append(out, c.Info.Aliases...)
}

// config returns the config of a chain, by any of its names.
func (s *Server) config(c indexer.Chain) ChainConfig {
	for _, n := range names(c) {
		if cfg, ok := s.opts.ChainConfig[n]; ok {
			return cfg
		}
	}
	return ChainConfig{}
}

// primaryAlias returns a chain's first alias, or its ID.
func primaryAlias(c indexer.Chain) string {
	if len(c.Info.Aliases) > 0 {
		return c.Info.Aliases[0]
	}
	return c.Info.ID.String()
}

// networkToken returns a chain's native token: the config's, with AVAX
// (18 decimals) as the default of the chain aliased C and "Native Token"
// (NATIVE, 18 decimals) of the others.
func (s *Server) networkToken(c indexer.Chain) NetworkToken {
	tok := NetworkToken{Name: "Native Token", Symbol: "NATIVE", Decimals: 18}
	switch {
	case c.External != nil && c.External.Symbol != "":
		tok.Symbol = c.External.Symbol
	case c.External == nil && slices.Contains(c.Info.Aliases, "C"):
		tok = NetworkToken{Name: "Avalanche", Symbol: "AVAX", Decimals: 18, Description: "The native token of the C-Chain."}
	}
	if t := s.config(c).NetworkToken; t != nil {
		if t.Name != "" {
			tok.Name = t.Name
		}
		if t.Symbol != "" {
			tok.Symbol = t.Symbol
		}
		if t.Decimals != nil {
			tok.Decimals = *t.Decimals
		}
		if t.LogoURI != "" {
			tok.LogoURI = t.LogoURI
		}
		if t.Description != "" {
			tok.Description = t.Description
		}
	}
	return tok
}

// chainInfo describes a chain.
func (s *Server) chainInfo(c indexer.Chain, base string) ChainInfo {
	cfg := s.config(c)
	alias := primaryAlias(c)
	name := cfg.Name
	if name == "" {
		name = alias
		if alias == "C" {
			name = "C-Chain"
		}
	}
	desc := cfg.Description
	switch {
	case desc != "":
	case c.External != nil:
		desc = fmt.Sprintf("EVM chain %s (EVM chain ID %d) of another node, indexed by this chainhost node through its JSON-RPC.", name, c.EVMChainID)
	default:
		desc = fmt.Sprintf("EVM chain %s (EVM chain ID %d) indexed by this chainhost node.", name, c.EVMChainID)
	}
	status := "UNAVAILABLE"
	if c.Info.Running {
		status = "OK"
	}
	info := ChainInfo{
		ChainID: strconv.FormatUint(c.EVMChainID, 10), Status: status, ChainName: name, Description: desc,
		PlatformChainID: c.Info.ID.String(), SubnetID: cfg.SubnetID, VMName: "EVM",
		ExplorerURL: cfg.ExplorerURL, RPCURL: base + "/ext/bc/" + alias + "/rpc",
		IsTestnet: !s.opts.Network.Mainnet, NetworkToken: s.networkToken(c), ChainLogoURI: cfg.LogoURI,
		Private: cfg.Private, EnabledFeatures: append([]string{}, cfg.Features...),
	}
	if !c.Info.VMID.IsZero() {
		info.VMID = c.Info.VMID.String()
	}
	if slices.Contains(c.Info.Handlers, "ws") {
		info.WSURL = "ws" + strings.TrimPrefix(base, "http") + "/ext/bc/" + alias + "/ws"
	}
	if e := c.External; e != nil {
		info.RPCURL, info.WSURL = cmp.Or(e.PublicRPCURL, e.RPCURL), cmp.Or(e.PublicWSURL, e.WSURL)
	}
	if c.Tracing != "" {
		indexed := c.Tracing != string(evmremote.TracingNone)
		info.InternalTransactionsIndexed = &indexed
	}
	if cfg.Multicall != "" {
		info.UtilityAddresses = &UtilityAddresses{Multicall: cfg.Multicall}
	}
	return info
}

// baseURL is the node's base URL for rpcUrl and wsUrl: the configured
// public URL, or else the scheme and host the request reached the node at.
func (s *Server) baseURL(r *http.Request) string {
	if s.opts.PublicURL != "" {
		return strings.TrimSuffix(s.opts.PublicURL, "/")
	}
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// listed returns the chains that can be shown: those whose EVM chain ID is
// known.
func (s *Server) listed() []indexer.Chain {
	var out []indexer.Chain
	for _, c := range s.opts.Chains() {
		if c.EVMChainID != 0 {
			out = append(out, c)
		}
	}
	return out
}

// ListChainsResponse is the answer of /v1/chains.
type ListChainsResponse struct {
	Chains []ChainInfo `json:"chains"`
}

// listChains answers GET /v1/chains.
func (s *Server) listChains(r *http.Request) (any, error) {
	q := rest.Query(r)
	network := q.Enum("network", "", rest.Networks...)
	feature := q.Enum("feature", "", features...)
	if err := q.Err(); err != nil {
		return nil, err
	}
	out := ListChainsResponse{Chains: []ChainInfo{}}
	if network != "" && !s.opts.Network.Serves(network) {
		return out, nil
	}
	for _, c := range s.listed() {
		info := s.chainInfo(c, s.baseURL(r))
		if feature != "" && !slices.Contains(info.EnabledFeatures, feature) {
			continue
		}
		out.Chains = append(out.Chains, info)
	}
	return out, nil
}

// chain resolves the path parameter chainId: an EVM chain ID or a
// blockchain ID of a chain the module indexes (404 otherwise), that the
// request's API key may use (403 otherwise).
func (s *Server) chain(r *http.Request) (indexer.Chain, error) {
	id, err := rest.PathParam(r, "chainId")
	if err != nil {
		return indexer.Chain{}, err
	}
	for _, c := range s.listed() {
		if strconv.FormatUint(c.EVMChainID, 10) != id && c.Info.ID.String() != id {
			continue
		}
		if !rest.Allowed(r.Context(), names(c)...) {
			return indexer.Chain{}, rest.Forbidden("this API key may not use chain %s", id)
		}
		return c, nil
	}
	return indexer.Chain{}, rest.NotFound("chain %s not found: use an EVM chain ID or a blockchain ID from /v1/chains", rest.Quote(id))
}

// ListAddressChainsResponse is the answer of /v1/address/{address}/chains.
type ListAddressChainsResponse struct {
	IndexedChains   []ChainInfo `json:"indexedChains"`
	UnindexedChains []string    `json:"unindexedChains"`
}

// listAddressChains answers GET /v1/address/{address}/chains: the chains
// on which the address took part in a transaction, a transfer or an
// internal transaction, as soon as the block is indexed.
func (s *Server) listAddressChains(r *http.Request) (any, error) {
	addr, err := pathAddress(r)
	if err != nil {
		return nil, err
	}
	active, err := s.opts.Store.AddressChains(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	out := ListAddressChainsResponse{IndexedChains: []ChainInfo{}, UnindexedChains: []string{}}
	for _, c := range s.listed() {
		if slices.Contains(active, c.Info.ID) {
			out.IndexedChains = append(out.IndexedChains, s.chainInfo(c, s.baseURL(r)))
		}
	}
	return out, nil
}
