package hostsvc

import (
	"fmt"

	avaids "github.com/ava-labs/avalanchego/ids"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/sdk/ids"
)

var _ avaids.AliaserReader = Aliases{}

// Aliases is avalanchego's ids.AliaserReader over the node's chain
// aliases. As in avalanchego, a chain's ID string is one of its aliases,
// the last: a chain with no alias has it as its primary alias, and the
// primary alias of a chain of the config is its first config alias ("X"
// for the X-Chain), which a VM writes addresses with.
type Aliases struct {
	chains *aliases.Chains
}

// NewAliases returns the alias reader of chains.
func NewAliases(chains *aliases.Chains) Aliases { return Aliases{chains: chains} }

// Lookup returns the chain an alias or a chain ID string names; anything
// else is an error matching avalanchego's ids.ErrNoIDWithAlias.
func (a Aliases) Lookup(alias string) (avaids.ID, error) {
	id, ok := a.chains.Resolve(alias)
	if !ok {
		return avaids.ID{}, fmt.Errorf("%w: %s", avaids.ErrNoIDWithAlias, alias)
	}
	return avaids.ID(id), nil
}

// PrimaryAlias returns the first of the chain's aliases.
func (a Aliases) PrimaryAlias(id avaids.ID) (string, error) {
	all, _ := a.Aliases(id)
	return all[0], nil
}

// Aliases returns the chain's aliases: the config ones in order, those
// added through the admin API, then its ID string.
func (a Aliases) Aliases(id avaids.ID) ([]string, error) {
	return append(a.chains.Aliases(ids.ID(id)), id.String()), nil
}
