package host

import (
	"context"

	"github.com/chainhost/chainhost/sdk/ids"
)

const (
	// ErrSharedMemoryConflict is AcceptBatch's refusal of shared-memory
	// requests that contradict shared memory: a remove of a value that is
	// not there (never put, or consumed already) or a put of a key that
	// exists or was consumed. Nothing of the batch is written
	// (docs/shared-memory.md).
	ErrSharedMemoryConflict = Error("shared memory conflict")
	// ErrUnsupported is the answer of a host built before a service or
	// call existed.
	ErrUnsupported = Error("not supported by this host")
)

// NewContainer is a container to append to this chain's index of Kind.
type NewContainer struct {
	// Kind is the index kind ("block", "tx", "vtx").
	Kind string
	// ID is the container ID, not yet in that index.
	ID ids.ID
	// Bytes is the container's encoding.
	Bytes []byte
}

// SharedElement is a value in shared memory: Key finds it, and so does each
// of its Traits (for a UTXO: the addresses that own it).
type SharedElement struct {
	Key    []byte
	Value  []byte
	Traits [][]byte
}

// SharedRequests are this chain's requests on its shared memory with the
// chain Peer: Puts are values for Peer to import; Removes are keys of
// values Peer put for this chain, which this chain consumes (imports).
type SharedRequests struct {
	Peer    ids.ID
	Puts    []SharedElement
	Removes [][]byte
}

// AcceptBatch is one atomic acceptance: containers appended to one or
// several kinds of this chain's index, the writes to the plugin's database
// namespace, and the chain's shared-memory requests. The host applies all
// of it in one database write, or none of it.
type AcceptBatch struct {
	// Containers are appended in order; at least one.
	Containers []NewContainer
	// State are the plugin's own writes.
	State []Op
	// SharedMemory are the puts and removes, per peer chain.
	SharedMemory []SharedRequests
}

// BatchIndex is an Index that also appends atomic batches. The Index a
// chainhost host gives a VM implements it: assert env.Host.Index to it.
type BatchIndex interface {
	Index
	// AcceptBatch applies b atomically and returns where each container
	// went, in order. An ID already indexed refuses the whole batch with an
	// error matching ErrAlreadyIndexed; contradicting shared-memory requests
	// refuse it with one matching ErrSharedMemoryConflict. A host built
	// before AcceptBatch answers ErrUnsupported.
	AcceptBatch(ctx context.Context, b AcceptBatch) ([]Accepted, error)
}

// SharedMemory reads the values other chains put in shared memory for this
// chain (docs/shared-memory.md). Writes travel with BatchIndex.AcceptBatch.
type SharedMemory interface {
	// Get returns the values peer put for this chain under keys, in order.
	// A key with no value (never put, or consumed) is an error matching
	// ErrNotFound.
	Get(ctx context.Context, peer ids.ID, keys [][]byte) ([][]byte, error)
	// Indexed returns at most limit values that peer put for this chain and
	// that have any of traits, ordered by trait, then key; a value with
	// several of the traits comes once per page (a later page may repeat
	// it under another trait). The page starts after (startTrait,
	// startKey); both empty start at the beginning. lastTrait and lastKey
	// say where it ended: pass them back for the next page. A page shorter
	// than limit is the last.
	Indexed(ctx context.Context, peer ids.ID, traits [][]byte, startTrait, startKey []byte, limit int) (values [][]byte, lastTrait, lastKey []byte, err error)
}
