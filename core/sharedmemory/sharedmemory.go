// Package sharedmemory is the host's shared memory (docs/shared-memory.md):
// per pair of chains, the values one chain put for the other to import
// (UTXOs an export made), found by key and by trait (the addresses that
// own them). Writes are staged into the batch of an index append, so they
// commit with the block that makes them, or not at all.
package sharedmemory

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// maxPage is the most values one Indexed call returns.
const maxPage = 1024

// Key prefixes inside the namespace of one (importing, exporting) pair.
const (
	prefixValue    = 'v' // key -> element record
	prefixTrait    = 't' // uvarint(len(trait)) trait key -> nothing
	prefixConsumed = 'c' // key -> nothing: imported, never to come back
)

// Memory is the shared memory of every pair of chains, in the host's
// database. It is safe for concurrent use.
type Memory struct {
	ns *storage.Namespace
	// mu is held from Stage until the batch is written, so that two
	// batches never both consume one value.
	mu sync.Mutex
}

// New returns the shared memory kept in ns. Batches given to Stage must be
// of ns's database.
func New(ns *storage.Namespace) *Memory {
	return &Memory{ns: ns}
}

// pair returns the namespace of the values from put for to.
func (m *Memory) pair(to, from ids.ID) *storage.Namespace {
	return m.ns.Namespace(string(to[:]) + string(from[:]))
}

// Lock takes the memory's write lock: hold it from Stage until the batch
// is written or dropped.
func (m *Memory) Lock() { m.mu.Lock() }

// Unlock releases the lock Lock took.
func (m *Memory) Unlock() { m.mu.Unlock() }

// Stage checks the requests chain self makes and adds their writes to b:
// a remove deletes a value a peer put for self and marks its key consumed;
// a put stores a value for the peer, indexed by its traits. A remove of a
// value that is not there (never put, or consumed), a put of a key that is
// there or was consumed, or either twice in reqs, is an error matching
// host.ErrSharedMemoryConflict, and b must then be dropped. The caller
// holds Lock until b is written or dropped.
func (m *Memory) Stage(b *storage.Batch, self ids.ID, reqs []host.SharedRequests) error {
	removed := map[string]bool{}
	put := map[string]bool{}
	for _, r := range reqs {
		if r.Peer == self {
			return fmt.Errorf("shared memory: chain %s names itself as the peer", self)
		}
		in := m.pair(self, r.Peer)
		for _, key := range r.Removes {
			if len(key) == 0 {
				return fmt.Errorf("shared memory: remove from %s: empty key", r.Peer)
			}
			seenKey := string(r.Peer[:]) + string(key)
			rec, err := in.Get(valueKey(key))
			switch {
			case errors.Is(err, storage.ErrNotFound) || removed[seenKey]:
				why := "not in shared memory"
				if consumed, cerr := in.Has(consumedKey(key)); cerr != nil {
					return fmt.Errorf("shared memory: remove %x from %s: %w", key, r.Peer, cerr)
				} else if consumed || removed[seenKey] {
					why = "consumed already"
				}
				return fmt.Errorf("shared memory: remove %x put by %s: %s: %w", key, r.Peer, why, host.ErrSharedMemoryConflict)
			case err != nil:
				return fmt.Errorf("shared memory: remove %x from %s: %w", key, r.Peer, err)
			}
			traits, _, err := decodeElement(rec)
			if err != nil {
				return fmt.Errorf("shared memory: value %x from %s: %w", key, r.Peer, err)
			}
			removed[seenKey] = true
			v := b.In(in)
			v.Delete(valueKey(key))
			for _, t := range traits {
				v.Delete(traitKey(t, key))
			}
			v.Put(consumedKey(key), nil)
		}
		out := m.pair(r.Peer, self)
		for _, e := range r.Puts {
			if len(e.Key) == 0 {
				return fmt.Errorf("shared memory: put for %s: empty key", r.Peer)
			}
			seenKey := string(r.Peer[:]) + string(e.Key)
			exists, err := out.Has(valueKey(e.Key))
			if err != nil {
				return fmt.Errorf("shared memory: put %x for %s: %w", e.Key, r.Peer, err)
			}
			consumed, err := out.Has(consumedKey(e.Key))
			if err != nil {
				return fmt.Errorf("shared memory: put %x for %s: %w", e.Key, r.Peer, err)
			}
			if exists || consumed || put[seenKey] {
				return fmt.Errorf("shared memory: put %x for %s: the key exists or was consumed: %w", e.Key, r.Peer, host.ErrSharedMemoryConflict)
			}
			for _, t := range e.Traits {
				if len(t) == 0 {
					return fmt.Errorf("shared memory: put %x for %s: empty trait", e.Key, r.Peer)
				}
			}
			put[seenKey] = true
			v := b.In(out)
			v.Put(valueKey(e.Key), encodeElement(e.Traits, e.Value))
			for _, t := range e.Traits {
				v.Put(traitKey(t, e.Key), nil)
			}
		}
	}
	return nil
}

// Get returns the values chain from put for chain to under keys, in
// order; a key with no value is an error matching host.ErrNotFound.
func (m *Memory) Get(to, from ids.ID, keys [][]byte) ([][]byte, error) {
	ns := m.pair(to, from)
	out := make([][]byte, len(keys))
	for i, key := range keys {
		rec, err := ns.Get(valueKey(key))
		if errors.Is(err, storage.ErrNotFound) {
			return nil, fmt.Errorf("shared memory: no value %x from %s: %w", key, from, host.ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("shared memory: get %x from %s: %w", key, from, err)
		}
		_, v, err := decodeElement(rec)
		if err != nil {
			return nil, fmt.Errorf("shared memory: value %x from %s: %w", key, from, err)
		}
		out[i] = v
	}
	return out, nil
}

// Indexed returns at most limit (1 to maxPage; other values mean maxPage)
// values that chain from put for chain to and that have any of traits,
// ordered by trait, then key, starting after (startTrait, startKey); see
// host.SharedMemory.
func (m *Memory) Indexed(to, from ids.ID, traits [][]byte, startTrait, startKey []byte, limit int) ([][]byte, []byte, []byte, error) {
	if limit < 1 || limit > maxPage {
		limit = maxPage
	}
	ns := m.pair(to, from)
	sorted := slices.Clone(traits)
	slices.SortFunc(sorted, bytes.Compare)
	sorted = slices.CompactFunc(sorted, bytes.Equal)
	var values [][]byte
	lastTrait, lastKey := bytes.Clone(startTrait), bytes.Clone(startKey)
	seen := map[string]bool{}
	for _, trait := range sorted {
		c := bytes.Compare(trait, startTrait)
		if c < 0 || len(trait) == 0 {
			continue
		}
		prefix := traitKey(trait, nil)
		var start []byte
		if c == 0 {
			start = traitKey(trait, startKey)
		}
		full := false
		err := ns.Iterate(prefix, start, func(k, _ []byte) error {
			key := k[len(prefix):]
			if c == 0 && bytes.Equal(key, startKey) {
				return nil // the page starts after it
			}
			lastTrait, lastKey = trait, key
			if !seen[string(key)] {
				seen[string(key)] = true
				rec, err := ns.Get(valueKey(key))
				if err != nil {
					return fmt.Errorf("value %x of trait %x: %w", key, trait, err)
				}
				_, v, err := decodeElement(rec)
				if err != nil {
					return fmt.Errorf("value %x: %w", key, err)
				}
				values = append(values, v)
			}
			if len(values) == limit {
				full = true
				return storage.ErrStopIteration
			}
			return nil
		})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("shared memory: indexed from %s: %w", from, err)
		}
		if full {
			break
		}
	}
	return values, bytes.Clone(lastTrait), bytes.Clone(lastKey), nil
}

func valueKey(key []byte) []byte {
	return append([]byte{prefixValue}, key...)
}

func consumedKey(key []byte) []byte {
	return append([]byte{prefixConsumed}, key...)
}

// traitKey is the index entry of key under trait; with a nil key, the
// prefix of every key of trait.
func traitKey(trait, key []byte) []byte {
	k := binary.AppendUvarint([]byte{prefixTrait}, uint64(len(trait)))
	return append(append(k, trait...), key...)
}

// encodeElement returns the stored form of a value and its traits:
// uvarint(count), then uvarint(len) and bytes of each trait, then the
// value.
func encodeElement(traits [][]byte, value []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(len(traits)))
	for _, t := range traits {
		out = binary.AppendUvarint(out, uint64(len(t)))
		out = append(out, t...)
	}
	return append(out, value...)
}

// decodeElement reads what encodeElement wrote.
func decodeElement(rec []byte) (traits [][]byte, value []byte, err error) {
	n, k := binary.Uvarint(rec)
	if k <= 0 || n > uint64(len(rec)) {
		return nil, nil, errors.New("corrupt shared memory record")
	}
	rec = rec[k:]
	traits = make([][]byte, 0, n)
	for range n {
		l, k := binary.Uvarint(rec)
		if k <= 0 || l > uint64(len(rec)-k) {
			return nil, nil, errors.New("corrupt shared memory record")
		}
		traits = append(traits, rec[k:k+int(l)])
		rec = rec[k+int(l):]
	}
	return traits, rec, nil
}
