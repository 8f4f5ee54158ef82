package hostsvc

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ava-labs/avalanchego/chains/atomic"
	"github.com/ava-labs/avalanchego/database"
	avaids "github.com/ava-labs/avalanchego/ids"

	"github.com/chainhost/chainhost/core/rpcchainvm/chaindb"
	"github.com/chainhost/chainhost/core/sharedmemory"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

var _ atomic.SharedMemory = (*SharedMemory)(nil)

// The errors of a refused Apply, named as avalanchego's shared memory
// names them (a VM over rpcchainvm sees only their text).
var (
	errDuplicatePut    = errors.New("duplicate put")
	errDuplicateRemove = errors.New("duplicate remove")
)

// maxPage is the most values one Indexed call of the host's shared memory
// answers; SharedMemory.Indexed pages through it for more.
const maxPage = 1024

// SharedMemory is avalanchego's atomic.SharedMemory of one chain over the
// host's shared memory, so that an avalanchego VM trades values with the
// node's X-, P- and C-Chains (docs/shared-memory.md). It keeps chainhost's
// rule where avalanchego's differs: a value is consumed at most once, and
// a remove of a value that is not there is refused (avalanchego records
// it, for a value a chain bootstrapping from peers has yet to see put;
// one node never accepts an import before its export).
type SharedMemory struct {
	db      *storage.DB
	mem     *sharedmemory.Memory
	chain   ids.ID
	isChain func(avaids.ID) bool
}

// NewSharedMemory returns the shared memory of chain, kept in mem, whose
// namespaces are of db, the database of the chain's own database too.
// isChain tells the chains of the node's config, the only peers a request
// may name.
func NewSharedMemory(db *storage.DB, mem *sharedmemory.Memory, chain avaids.ID, isChain func(avaids.ID) bool) *SharedMemory {
	return &SharedMemory{db: db, mem: mem, chain: ids.ID(chain), isChain: isChain}
}

// Get returns the values peer put for the chain under keys; a key without
// one is an error matching database.ErrNotFound, as in avalanchego.
func (s *SharedMemory) Get(peer avaids.ID, keys [][]byte) ([][]byte, error) {
	values, err := s.mem.Get(s.chain, ids.ID(peer), keys)
	if errors.Is(err, host.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", database.ErrNotFound, err)
	}
	return values, err
}

// Indexed returns up to limit values peer put for the chain that have any
// of traits, ordered by trait then key, after (startTrait, startKey). A
// limit below 1 answers nothing, as in avalanchego; a value with several
// of the traits comes once per page of the host's (1024 values).
func (s *SharedMemory) Indexed(peer avaids.ID, traits [][]byte, startTrait, startKey []byte, limit int) ([][]byte, []byte, []byte, error) {
	var values [][]byte
	lastTrait, lastKey := startTrait, startKey
	for len(values) < limit {
		page := min(limit-len(values), maxPage)
		vs, lt, lk, err := s.mem.Indexed(s.chain, ids.ID(peer), traits, lastTrait, lastKey, page)
		if err != nil {
			return nil, nil, nil, err
		}
		values = append(values, vs...)
		lastTrait, lastKey = lt, lk
		if len(vs) < page {
			break
		}
	}
	return values, lastTrait, lastKey, nil
}

// Apply writes the chain's requests (per peer chain: puts for it, removes
// of what it put) and batches of the chain's database in one write of the
// host's database: all of it lands, or none. A refused request writes
// nothing and is an error that says "duplicate put" or "duplicate remove",
// as avalanchego's; a peer that is not a chain of the node, or a batch of
// another database, is an error.
func (s *SharedMemory) Apply(requests map[avaids.ID]*atomic.Requests, batches ...database.Batch) error {
	var removes, puts []host.SharedRequests
	for _, peer := range slices.SortedFunc(maps.Keys(requests), avaids.ID.Compare) {
		if !s.isChain(peer) {
			return fmt.Errorf("shared memory: apply: unknown peer chain %s (not a chain of this node)", peer)
		}
		r := requests[peer]
		if len(r.RemoveRequests) > 0 {
			removes = append(removes, host.SharedRequests{Peer: ids.ID(peer), Removes: r.RemoveRequests})
		}
		if len(r.PutRequests) > 0 {
			req := host.SharedRequests{Peer: ids.ID(peer)}
			for _, e := range r.PutRequests {
				req.Puts = append(req.Puts, host.SharedElement{Key: e.Key, Value: e.Value, Traits: e.Traits})
			}
			puts = append(puts, req)
		}
	}
	// Every write goes through a view of b bound to its own namespace
	// (the chain's, the shared memory's pairs): b's own is never written.
	b := s.db.Namespace("").NewBatch()
	for i, batch := range batches {
		cb, ok := batch.(*chaindb.Batch)
		if !ok {
			return fmt.Errorf("shared memory: apply: batch %d is a %T, not a batch of the chain's database", i, batch)
		}
		cb.AddTo(b)
	}
	s.mem.Lock()
	defer s.mem.Unlock()
	// Removes and puts touch different values (what peers put for the
	// chain, what the chain puts for them), so staging them apart tells
	// which kind a conflict is.
	if err := s.stage(b, removes, errDuplicateRemove); err != nil {
		return err
	}
	if err := s.stage(b, puts, errDuplicatePut); err != nil {
		return err
	}
	if err := s.db.Write(b, false); err != nil {
		return fmt.Errorf("shared memory: apply: %w", err)
	}
	return nil
}

// stage stages reqs into b; a conflict is also dup.
func (s *SharedMemory) stage(b *storage.Batch, reqs []host.SharedRequests, dup error) error {
	if len(reqs) == 0 {
		return nil
	}
	err := s.mem.Stage(b, s.chain, reqs)
	if errors.Is(err, host.ErrSharedMemoryConflict) {
		return fmt.Errorf("%w: %w", dup, err)
	}
	return err
}
