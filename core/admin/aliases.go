package admin

import (
	"context"
	"errors"
	"slices"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/server"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// AliasArgs are the params of admin.alias.
type AliasArgs struct {
	Endpoint string `json:"endpoint"`
	Alias    string `json:"alias"`
}

// AliasChainArgs are the params of admin.aliasChain.
type AliasChainArgs struct {
	Chain string `json:"chain"`
	Alias string `json:"alias"`
}

// ChainArgs are the params of admin.getChainAliases.
type ChainArgs struct {
	Chain string `json:"chain"`
}

// ChainAliases is the result of admin.getChainAliases.
type ChainAliases struct {
	Aliases []string `json:"aliases"`
}

// alias makes /ext/<alias> answer like /ext/<endpoint>, persisted.
func (s *Service) alias(_ context.Context, a AliasArgs) (Empty, error) {
	if err := s.opts.Router.AliasEndpoint(a.Endpoint, a.Alias); err != nil {
		if ae, ok := errors.AsType[*server.AliasError](err); ok {
			return Empty{}, jsonrpc.InvalidParams("%q: %s", ae.Param, ae.Msg)
		}
		return Empty{}, err
	}
	s.log.Info("endpoint alias added", "alias", a.Alias, "endpoint", a.Endpoint)
	return Empty{}, nil
}

// aliasChain adds a persisted alias to a chain named by ID or alias.
func (s *Service) aliasChain(_ context.Context, a AliasChainArgs) (Empty, error) {
	c, ok := s.opts.Chains.Resolve(a.Chain)
	if !ok {
		return Empty{}, jsonrpc.InvalidParams("\"chain\": there is no chain %q", a.Chain)
	}
	if err := aliases.Validate(a.Alias); err != nil {
		return Empty{}, jsonrpc.InvalidParams("\"alias\": %v", err)
	}
	if slices.Contains(s.opts.Aliases.Aliases(c.ID), a.Alias) {
		return Empty{}, nil // already this chain's alias
	}
	if other, ok := s.opts.Chains.Resolve(a.Alias); ok {
		return Empty{}, jsonrpc.InvalidParams("\"alias\": alias %q is already used by chain %s (%s)", a.Alias, other.Alias, other.ID)
	}
	if _, err := s.opts.Aliases.Register(c.ID, a.Alias, true); err != nil {
		return Empty{}, err
	}
	s.log.Info("chain alias added", "chain", c.Alias, "id", c.ID, "alias", a.Alias)
	return Empty{}, nil
}

// getChainAliases lists a chain's aliases: the primary one, the others from
// the config, those added with admin.aliasChain (sorted), then the chain's
// CB58 ID, usable like an alias (avalanchego lists it too). The order is the
// same before and after a restart.
func (s *Service) getChainAliases(_ context.Context, a ChainArgs) (ChainAliases, error) {
	c, ok := s.opts.Chains.Resolve(a.Chain)
	if !ok {
		return ChainAliases{}, jsonrpc.InvalidParams("\"chain\": there is no chain %q", a.Chain)
	}
	out := s.opts.Aliases.Aliases(c.ID)
	if id := c.ID.String(); !slices.Contains(out, id) {
		out = append(out, id)
	}
	return ChainAliases{Aliases: out}, nil
}
