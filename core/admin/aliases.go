package admin

import (
	"context"
	"errors"
	"slices"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/server"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// aliasArgs are the params of admin.alias.
type aliasArgs struct {
	Endpoint string `json:"endpoint"`
	Alias    string `json:"alias"`
}

// aliasChainArgs are the params of admin.aliasChain.
type aliasChainArgs struct {
	Chain string `json:"chain"`
	Alias string `json:"alias"`
}

// chainArgs are the params of admin.getChainAliases.
type chainArgs struct {
	Chain string `json:"chain"`
}

// chainAliases is the result of admin.getChainAliases.
type chainAliases struct {
	Aliases []string `json:"aliases"`
}

// alias makes /ext/<alias> answer like /ext/<endpoint>, persisted.
func (s *Service) alias(_ context.Context, a aliasArgs) (empty, error) {
	if err := s.opts.Router.AliasEndpoint(a.Endpoint, a.Alias); err != nil {
		if ae, ok := errors.AsType[*server.AliasError](err); ok {
			return empty{}, jsonrpc.InvalidParams("%q: %s", ae.Param, ae.Msg)
		}
		return empty{}, err
	}
	s.log.Info("endpoint alias added", "alias", a.Alias, "endpoint", a.Endpoint)
	return empty{}, nil
}

// aliasChain adds a persisted alias to a chain named by ID or alias.
func (s *Service) aliasChain(_ context.Context, a aliasChainArgs) (empty, error) {
	c, ok := s.opts.Chains.Resolve(a.Chain)
	if !ok {
		return empty{}, jsonrpc.InvalidParams("\"chain\": there is no chain %q", a.Chain)
	}
	if err := aliases.Validate(a.Alias); err != nil {
		return empty{}, jsonrpc.InvalidParams("\"alias\": %v", err)
	}
	if slices.Contains(s.opts.Aliases.Aliases(c.ID), a.Alias) {
		return empty{}, nil // already this chain's alias
	}
	if other, ok := s.opts.Chains.Resolve(a.Alias); ok {
		return empty{}, jsonrpc.InvalidParams("\"alias\": alias %q is already used by chain %s (%s)", a.Alias, other.Alias, other.ID)
	}
	if _, err := s.opts.Aliases.Register(c.ID, a.Alias, true); err != nil {
		return empty{}, err
	}
	s.log.Info("chain alias added", "chain", c.Alias, "id", c.ID, "alias", a.Alias)
	return empty{}, nil
}

// getChainAliases lists a chain's aliases: the primary one, the others from
// the config, those added with admin.aliasChain (sorted), then the chain's
// CB58 ID, usable like an alias (avalanchego lists it too). The order is the
// same before and after a restart.
func (s *Service) getChainAliases(_ context.Context, a chainArgs) (chainAliases, error) {
	c, ok := s.opts.Chains.Resolve(a.Chain)
	if !ok {
		return chainAliases{}, jsonrpc.InvalidParams("\"chain\": there is no chain %q", a.Chain)
	}
	out := s.opts.Aliases.Aliases(c.ID)
	if id := c.ID.String(); !slices.Contains(out, id) {
		out = append(out, id)
	}
	return chainAliases{Aliases: out}, nil
}
