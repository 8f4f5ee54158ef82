// Package aliases maps chain aliases to chain IDs. Aliases from the config
// are registered at every start; aliases added through the admin API are
// persisted so that they survive a restart.
package aliases

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

// MaxLen is the longest alias accepted (SPEC 8).
const MaxLen = 512

// Chains is the chain alias table. It is safe for concurrent use.
type Chains struct {
	ns *storage.Namespace

	mu      sync.RWMutex
	byAlias map[string]ids.ID
	byID    map[ids.ID][]string // in registration order: the primary alias first
}

// NewChains loads the persisted aliases from ns. Persisted aliases are
// registered lazily: they apply once their chain is known, see Register.
func NewChains(ns *storage.Namespace) (*Chains, error) {
	c := &Chains{ns: ns, byAlias: map[string]ids.ID{}, byID: map[ids.ID][]string{}}
	err := ns.Iterate(nil, nil, func(k, v []byte) error {
		id, err := ids.FromBytes(v)
		if err != nil {
			return fmt.Errorf("alias %q: %w", k, err)
		}
		c.add(id, string(k))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load chain aliases: %w", err)
	}
	return c, nil
}

// Validate checks an alias's form.
func Validate(alias string) error {
	switch {
	case alias == "":
		return errors.New("alias is empty")
	case len(alias) > MaxLen:
		return fmt.Errorf("alias is %d characters long, at most %d allowed", len(alias), MaxLen)
	case strings.ContainsAny(alias, "/?#% \t\r\n"):
		return fmt.Errorf("alias %q contains a character not allowed in a URL path segment", alias)
	}
	return nil
}

// Register adds alias for chain id. With persist, the alias is stored and
// comes back at the next start. Registering the alias a chain already has
// is a no-op; an alias of another chain, or one that reads as another
// chain's ID, is an error.
func (c *Chains) Register(id ids.ID, alias string, persist bool) error {
	if err := Validate(alias); err != nil {
		return err
	}
	if other, err := ids.FromString(alias); err == nil && other != id {
		return fmt.Errorf("alias %q is the ID of another chain", alias)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if owner, ok := c.byAlias[alias]; ok {
		if owner != id {
			return fmt.Errorf("alias %q is already used by chain %s", alias, owner)
		}
		if !persist {
			return nil
		}
	}
	if persist {
		if err := c.ns.Put([]byte(alias), id[:]); err != nil {
			return fmt.Errorf("persist alias %q: %w", alias, err)
		}
	}
	if _, ok := c.byAlias[alias]; !ok {
		c.add(id, alias)
	}
	return nil
}

func (c *Chains) add(id ids.ID, alias string) {
	c.byAlias[alias] = id
	c.byID[id] = append(c.byID[id], alias)
}

// Resolve returns the chain named by an alias or a CB58 chain ID.
func (c *Chains) Resolve(s string) (ids.ID, bool) {
	c.mu.RLock()
	id, ok := c.byAlias[s]
	c.mu.RUnlock()
	if ok {
		return id, true
	}
	id, err := ids.FromString(s)
	return id, err == nil
}

// Aliases returns the aliases of a chain, the primary one first.
func (c *Chains) Aliases(id ids.ID) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]string(nil), c.byID[id]...)
}
