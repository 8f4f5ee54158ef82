// Package aliases maps chain aliases to chain IDs. Aliases from the config
// are registered at every start; aliases added through the admin API are
// persisted so that they survive a restart.
package aliases

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

// maxLen is the longest alias accepted (docs/api/admin.md).
const maxLen = 512

// Chains is the chain alias table. It is safe for concurrent use.
type Chains struct {
	ns *storage.Namespace

	mu        sync.RWMutex
	byAlias   map[string]ids.ID
	byID      map[ids.ID][]string // config aliases in registration order: the primary first
	persisted map[string]bool     // aliases added at run time and stored
}

// NewChains loads the persisted aliases from ns. Persisted aliases are
// registered lazily: they apply once their chain is known, see Register.
func NewChains(ns *storage.Namespace) (*Chains, error) {
	c := &Chains{ns: ns, byAlias: map[string]ids.ID{}, byID: map[ids.ID][]string{}, persisted: map[string]bool{}}
	err := ns.Iterate(nil, nil, func(k, v []byte) error {
		id, err := ids.FromBytes(v)
		if err != nil {
			return fmt.Errorf("alias %q: %w", k, err)
		}
		c.byAlias[string(k)] = id
		c.persisted[string(k)] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load chain aliases: %w", err)
	}
	return c, nil
}

// Validate checks an alias's form: one URL path segment that a client
// sends as it is, so that /ext/bc/<alias> and /ext/<alias> reach it and no
// other route (docs/bad-input.md).
func Validate(alias string) error {
	switch {
	case alias == "":
		return errors.New("alias is empty")
	case len(alias) > maxLen:
		return fmt.Errorf("alias is %d characters long, at most %d allowed", len(alias), maxLen)
	case alias == "." || alias == "..":
		return fmt.Errorf("alias %q is a relative path segment, which clients resolve away", alias)
	case strings.IndexFunc(alias, notInSegment) >= 0:
		return fmt.Errorf("alias %q contains a character not allowed in a URL path segment", alias)
	}
	return nil
}

// notInSegment reports whether r may not stand unescaped in a URL path
// segment: a delimiter, the escape character, a space or a control
// character.
func notInSegment(r rune) bool {
	return strings.ContainsRune("/?#% ", r) || unicode.IsControl(r)
}

// Register adds alias for chain id. With persist, the alias is stored and
// comes back at the next start; without, it is a config alias, registered
// at every start, which wins over a stored alias of another chain (the
// stored one is dropped and returned in replaced, for a warning).
// Registering the alias a chain already has is a no-op; an alias of
// another chain, or one that reads as another chain's ID, is an error.
func (c *Chains) Register(id ids.ID, alias string, persist bool) (replaced *ids.ID, err error) {
	if err := Validate(alias); err != nil {
		return nil, err
	}
	if other, err := ids.FromString(alias); err == nil && other != id {
		return nil, fmt.Errorf("alias %q is the ID of another chain", alias)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if owner, ok := c.byAlias[alias]; ok {
		switch {
		case owner == id && !persist && c.persisted[alias]:
			// A stored alias is now in the config: it becomes a config alias.
		case owner == id:
			return nil, nil
		case !persist && c.persisted[alias]:
			replaced = &owner
		default:
			return nil, fmt.Errorf("alias %q is already used by chain %s", alias, owner)
		}
	}
	if persist {
		if err := c.ns.Put([]byte(alias), id[:]); err != nil {
			return nil, fmt.Errorf("persist alias %q: %w", alias, err)
		}
		c.persisted[alias] = true
		c.byAlias[alias] = id
		return nil, nil
	}
	if c.persisted[alias] {
		if err := c.ns.Delete([]byte(alias)); err != nil {
			return nil, fmt.Errorf("drop stored alias %q: %w", alias, err)
		}
		delete(c.persisted, alias)
	}
	c.byAlias[alias] = id
	c.byID[id] = append(c.byID[id], alias)
	return replaced, nil
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

// Aliases returns the aliases of a chain: the config ones in order (the
// primary first), then the stored ones, sorted.
func (c *Chains) Aliases(id ids.ID) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := append([]string(nil), c.byID[id]...)
	var stored []string
	for a := range c.persisted {
		if c.byAlias[a] == id {
			stored = append(stored, a)
		}
	}
	slices.Sort(stored)
	return append(out, stored...)
}
