package memhost

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// MaxSharedPage is the most values one Indexed call returns, as the
// node's (docs/shared-memory.md).
const MaxSharedPage = 1024

// sharedKey names the values one chain put for another.
type sharedKey struct {
	to, from ids.ID
}

// sharedSpace holds the values one chain put for another: those present,
// and the keys the importing chain consumed, which never come back.
type sharedSpace struct {
	values   map[string]host.SharedElement
	consumed map[string]bool
}

// spaceLocked returns the values from put for to, creating them; h.mu is
// held.
func (h *Host) spaceLocked(from, to ids.ID) *sharedSpace {
	k := sharedKey{to: to, from: from}
	s, ok := h.shared[k]
	if !ok {
		s = &sharedSpace{values: map[string]host.SharedElement{}, consumed: map[string]bool{}}
		h.shared[k] = s
	}
	return s
}

// PutShared puts elements in shared memory as if chain from had exported
// them to chain to (an accepted export of another chain), for tests of a
// VM's imports. A key present or consumed already is an error matching
// host.ErrSharedMemoryConflict, and nothing is put.
func (h *Host) PutShared(from, to ids.ID, elems ...host.SharedElement) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.spaceLocked(from, to)
	seen := map[string]bool{}
	for _, e := range elems {
		k := string(e.Key)
		if len(e.Key) == 0 {
			return fmt.Errorf("put shared value: empty key")
		}
		if _, ok := s.values[k]; ok || s.consumed[k] || seen[k] {
			return fmt.Errorf("put shared value %x from %s for %s: the key exists or was consumed: %w", e.Key, from, to, host.ErrSharedMemoryConflict)
		}
		seen[k] = true
	}
	for _, e := range elems {
		s.values[string(e.Key)] = cloneElement(e)
	}
	return nil
}

// Shared returns the values chain from put for chain to that are still
// there (not imported), ordered by key.
func (h *Host) Shared(from, to ids.ID) []host.SharedElement {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.shared[sharedKey{to: to, from: from}]
	if s == nil {
		return nil
	}
	out := make([]host.SharedElement, 0, len(s.values))
	for _, e := range s.values {
		out = append(out, cloneElement(e))
	}
	slices.SortFunc(out, func(a, b host.SharedElement) int { return bytes.Compare(a.Key, b.Key) })
	return out
}

func cloneElement(e host.SharedElement) host.SharedElement {
	traits := make([][]byte, len(e.Traits))
	for i, t := range e.Traits {
		traits[i] = bytes.Clone(t)
	}
	return host.SharedElement{Key: bytes.Clone(e.Key), Value: bytes.Clone(e.Value), Traits: traits}
}

// checkSharedLocked checks that reqs, made by chain self, agree with shared
// memory and with each other, and returns what applies them; h.mu is held.
func (h *Host) checkSharedLocked(self ids.ID, reqs []host.SharedRequests) (func(), error) {
	known := map[ids.ID]bool{}
	for _, c := range h.others {
		known[c.ID] = true
	}
	type op struct {
		space  *sharedSpace
		put    *host.SharedElement
		remove string
	}
	var ops []op
	removed := map[*sharedSpace]map[string]bool{}
	put := map[*sharedSpace]map[string]bool{}
	for _, r := range reqs {
		if r.Peer == self {
			return nil, fmt.Errorf("shared memory: chain %s names itself as the peer", self)
		}
		if !known[r.Peer] {
			return nil, fmt.Errorf("shared memory: unknown peer chain %s", r.Peer)
		}
		in := h.spaceLocked(r.Peer, self)
		if removed[in] == nil {
			removed[in] = map[string]bool{}
		}
		for _, key := range r.Removes {
			k := string(key)
			if _, ok := in.values[k]; !ok || removed[in][k] {
				why := "not in shared memory"
				if in.consumed[k] || removed[in][k] {
					why = "consumed already"
				}
				return nil, fmt.Errorf("shared memory: remove %x put by %s: %s: %w", key, r.Peer, why, host.ErrSharedMemoryConflict)
			}
			removed[in][k] = true
			ops = append(ops, op{space: in, remove: k})
		}
		out := h.spaceLocked(self, r.Peer)
		if put[out] == nil {
			put[out] = map[string]bool{}
		}
		for i := range r.Puts {
			e := &r.Puts[i]
			k := string(e.Key)
			if len(e.Key) == 0 {
				return nil, fmt.Errorf("shared memory: put for %s: empty key", r.Peer)
			}
			if _, ok := out.values[k]; ok || out.consumed[k] || put[out][k] {
				return nil, fmt.Errorf("shared memory: put %x for %s: the key exists or was consumed: %w", e.Key, r.Peer, host.ErrSharedMemoryConflict)
			}
			put[out][k] = true
			ops = append(ops, op{space: out, put: e})
		}
	}
	return func() {
		for _, o := range ops {
			if o.put != nil {
				o.space.values[string(o.put.Key)] = cloneElement(*o.put)
				continue
			}
			delete(o.space.values, o.remove)
			o.space.consumed[o.remove] = true
		}
	}, nil
}

// sharedMemory is the host.SharedMemory view of a Host.
type sharedMemory Host

func (m *sharedMemory) Get(ctx context.Context, peer ids.ID, keys [][]byte) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.self.ID.IsZero() {
		return nil, fmt.Errorf("shared memory get: a module has no shared memory: %w", host.ErrNotFound)
	}
	s := m.shared[sharedKey{to: m.self.ID, from: peer}]
	out := make([][]byte, len(keys))
	for i, key := range keys {
		var e host.SharedElement
		ok := false
		if s != nil {
			e, ok = s.values[string(key)]
		}
		if !ok {
			return nil, fmt.Errorf("shared memory get: no value %x from %s: %w", key, peer, host.ErrNotFound)
		}
		out[i] = bytes.Clone(e.Value)
	}
	return out, nil
}

func (m *sharedMemory) Indexed(ctx context.Context, peer ids.ID, traits [][]byte, startTrait, startKey []byte, limit int) ([][]byte, []byte, []byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	if limit < 1 || limit > MaxSharedPage {
		limit = MaxSharedPage
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.shared[sharedKey{to: m.self.ID, from: peer}]
	sorted := slices.Clone(traits)
	slices.SortFunc(sorted, bytes.Compare)
	sorted = slices.CompactFunc(sorted, bytes.Equal)
	var values [][]byte
	lastTrait, lastKey := startTrait, startKey
	seen := map[string]bool{}
	for _, trait := range sorted {
		c := bytes.Compare(trait, startTrait)
		if c < 0 || s == nil {
			continue
		}
		var keys []string
		for k, e := range s.values {
			if slices.ContainsFunc(e.Traits, func(t []byte) bool { return bytes.Equal(t, trait) }) &&
				(c > 0 || k > string(startKey)) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			lastTrait, lastKey = trait, []byte(k)
			if !seen[k] {
				seen[k] = true
				values = append(values, bytes.Clone(s.values[k].Value))
			}
			if len(values) == limit {
				return values, bytes.Clone(lastTrait), bytes.Clone(lastKey), nil
			}
		}
	}
	return values, bytes.Clone(lastTrait), bytes.Clone(lastKey), nil
}
