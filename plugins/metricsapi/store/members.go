package store

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/chainhost/chainhost/sdk/ids"
)

// maxCachedMembers bounds each set of memberCache: past it, the set stops
// growing and its misses are looked up in the store.
const maxCachedMembers = 1 << 20

// ever is the interval of memberKey for the chain's own sets (every
// address and deployer ever seen), which have no bucket.
const ever Interval = 0

// memberKey names one address of a bucket's, or the chain's, set of kind.
type memberKey struct {
	i      Interval
	bucket uint32
	kind   byte
	addr   common.Address
}

// memberSet is what the store holds of one set: the addresses known
// stored; complete when it holds every one of them, so that a miss is a
// new member without a lookup.
type memberSet struct {
	bucket   uint32
	complete bool
	addrs    map[common.Address]struct{}
}

// memberCache is what a chain's writer knows of its stored members: of
// each interval and kind the set of the newest bucket written (blocks
// come in time order, so the next block is in it or in a later one), and
// the chain's own sets.
type memberCache struct {
	sets map[[2]byte]*memberSet // interval, kind
}

// members returns the cache of chain's members.
func (s *Store) members(chain ids.ID) *memberCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.caches == nil {
		s.caches = map[ids.ID]*memberCache{}
	}
	c := s.caches[chain]
	if c == nil {
		c = &memberCache{sets: map[[2]byte]*memberSet{}}
		s.caches[chain] = c
	}
	return c
}

// set returns the cached set of k's interval, kind and bucket; when the
// cache holds another bucket's, the set replaces it: empty and complete
// when stored is false (nothing of it is stored), else read from the
// store.
func (cb *chainBatch) set(k memberKey, stored bool) (*memberSet, error) {
	sk := [2]byte{byte(k.i), k.kind}
	if m := cb.cache.sets[sk]; m != nil && m.bucket == k.bucket {
		return m, nil
	}
	m := &memberSet{bucket: k.bucket, complete: true, addrs: map[common.Address]struct{}{}}
	if stored {
		prefix := memberPrefix(cb.chain, k.i, k.bucket, k.kind)
		if k.i == ever {
			prefix = everKey(cb.chain, k.kind, common.Address{})[:1+len(cb.chain)+1]
		}
		it := cb.s.db.NewIterator(util.BytesPrefix(prefix), nil)
		for it.Next() {
			if len(m.addrs) == maxCachedMembers {
				m.complete = false
				break
			}
			m.addrs[common.Address(it.Key()[len(prefix):])] = struct{}{}
		}
		it.Release()
		if err := it.Error(); err != nil {
			return nil, err
		}
	}
	cb.cache.sets[sk] = m
	return m, nil
}

// add records k as a member and tells whether it is new; stored tells
// whether its bucket (or, for the chain's sets, the chain) had a record
// before this write. The cached set takes the members at once: a write
// that fails drops the chain's cache (dropCache).
func (cb *chainBatch) add(k memberKey, stored bool) (bool, error) {
	m, err := cb.set(k, stored)
	if err != nil {
		return false, err
	}
	if _, known := m.addrs[k.addr]; known {
		return false, nil
	}
	if _, seen := cb.pending[k]; seen {
		return false, nil // looked up in this write, the set full
	}
	key := everKey(cb.chain, k.kind, k.addr)
	if k.i != ever {
		key = append(memberPrefix(cb.chain, k.i, k.bucket, k.kind), k.addr[:]...)
	}
	fresh := m.complete
	if !fresh {
		has, err := cb.s.db.Has(key, nil)
		if err != nil {
			return false, err
		}
		fresh = !has
	}
	if len(m.addrs) < maxCachedMembers {
		m.addrs[k.addr] = struct{}{}
	} else {
		m.complete = false
		cb.pending[k] = struct{}{}
	}
	if fresh {
		cb.batch.Put(key, nil)
	}
	return fresh, nil
}

// dropCache forgets what the writer of chain knows of its members: after
// a write that failed, the cache holds members that are not stored.
func (s *Store) dropCache(chain ids.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.caches, chain)
}
