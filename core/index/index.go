package index

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Container is one indexed container.
type Container struct {
	ID        ids.ID    // container ID
	Bytes     []byte    // the container's bytes
	Index     uint64    // containers accepted in this index before this one
	Timestamp time.Time // when the node accepted it, in UTC
}

// Index is the append-only list of one chain's accepted containers of one
// kind. It is safe for concurrent use; appends are serialised.
type Index struct {
	chain ids.ID
	kind  string
	ns    *storage.Namespace
	db    *storage.DB
	now   func() time.Time
	sync  bool

	params filterParams // sizes the ID filter
	work   *workers     // runs the ID filter's builder

	mu     sync.Mutex  // serialises appends and the first load
	loaded atomic.Bool // next holds the stored counter
	next   atomic.Uint64
	filter idFilter       // the IDs the index holds, guarded by mu
	batch  *storage.Batch // reused by appends, guarded by mu
	record []byte         // reused to encode records, guarded by mu

	notifyMu sync.Mutex    // orders next with notify for Subscribe
	notify   chan struct{} // closed and replaced after every append
}

// String names the index for messages, as "<chain>/<kind>".
func (ix *Index) String() string {
	return ix.chain.String() + "/" + ix.kind
}

// load reads the stored counter on first use.
func (ix *Index) load() error {
	if ix.loaded.Load() {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.loadLocked()
}

// loadLocked is load with ix.mu held.
func (ix *Index) loadLocked() error {
	if ix.loaded.Load() {
		return nil
	}
	v, err := ix.ns.Get(keyNext)
	var next uint64
	switch {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return fmt.Errorf("load index %s: %w", ix, err)
	default:
		if next, err = decodeUint64(v); err != nil {
			return fmt.Errorf("load index %s: counter: %w: %v", ix, errCorrupt, err)
		}
	}
	ix.next.Store(next)
	ix.loaded.Store(true)
	return nil
}

// Len returns the number of containers in the index, which is also the
// index the next container gets.
func (ix *Index) Len() (uint64, error) {
	if err := ix.load(); err != nil {
		return 0, err
	}
	return ix.next.Load(), nil
}

// GetByIndex returns the container at position i; an error matching
// ErrNotFound if there is none.
func (ix *Index) GetByIndex(i uint64) (Container, error) {
	n, err := ix.Len()
	if err != nil {
		return Container{}, err
	}
	if i >= n {
		return Container{}, notFound("no container at index %d", i)
	}
	return ix.read(i)
}

// read returns the stored container at i, which must be below the counter.
func (ix *Index) read(i uint64) (Container, error) {
	rec, err := ix.ns.Get(recordKey(i))
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return Container{}, fmt.Errorf("index %s: record %d missing: %w", ix, i, errCorrupt)
	case err != nil:
		return Container{}, fmt.Errorf("index %s: read container %d: %w", ix, i, err)
	}
	c, err := decodeRecord(i, rec)
	if err != nil {
		return Container{}, fmt.Errorf("index %s: %w: %v", ix, errCorrupt, err)
	}
	return c, nil
}

// IndexOf returns the position of container id; an error matching
// ErrNotFound if the index does not hold it.
func (ix *Index) IndexOf(id ids.ID) (uint64, error) {
	if err := ix.load(); err != nil {
		return 0, err
	}
	return ix.indexOf(id)
}

// indexOf looks id up in the store.
func (ix *Index) indexOf(id ids.ID) (uint64, error) {
	i, found, err := ix.lookup(id)
	switch {
	case err != nil:
		return 0, err
	case !found:
		return 0, notFound("no container with ID %s", id)
	}
	return i, nil
}

// lookup looks id up in the store; found is false when the index does not
// hold it. Unlike indexOf it makes no error for a miss, which is what every
// append looks for.
func (ix *Index) lookup(id ids.ID) (i uint64, found bool, err error) {
	v, err := ix.ns.Get(idKey(id))
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("index %s: look up %s: %w", ix, id, err)
	}
	if i, err = decodeUint64(v); err != nil {
		return 0, false, fmt.Errorf("index %s: entry of %s: %w: %v", ix, id, errCorrupt, err)
	}
	return i, true, nil
}

// GetByID returns container id; an error matching ErrNotFound if the index
// does not hold it.
func (ix *Index) GetByID(id ids.ID) (Container, error) {
	i, err := ix.IndexOf(id)
	if err != nil {
		return Container{}, err
	}
	c, err := ix.read(i)
	if err != nil {
		return Container{}, err
	}
	if c.ID != id {
		return Container{}, fmt.Errorf("index %s: %s maps to %d, which holds %s: %w", ix, id, i, c.ID, errCorrupt)
	}
	return c, nil
}

// Last returns the most recently appended container; an error matching
// ErrNotFound when the index is empty.
func (ix *Index) Last() (Container, error) {
	n, err := ix.Len()
	if err != nil {
		return Container{}, err
	}
	if n == 0 {
		return Container{}, errNoneAccepted
	}
	return ix.read(n - 1)
}

// Range returns the containers at positions start to start+n-1, or fewer
// when the index ends earlier (none when start is at or past its end).
func (ix *Index) Range(start, n uint64) ([]Container, error) {
	size, err := ix.Len()
	if err != nil {
		return nil, err
	}
	if start >= size || n == 0 {
		return []Container{}, nil
	}
	n = min(n, size-start)
	out := make([]Container, 0, n)
	err = ix.ns.Iterate([]byte{prefixRecord}, recordKey(start), func(key, rec []byte) error {
		i := start + uint64(len(out))
		if got, err := decodeUint64(key[1:]); err != nil || got != i {
			return fmt.Errorf("index %s: record key %x where %d belongs: %w", ix, key, i, errCorrupt)
		}
		c, err := decodeRecord(i, rec)
		if err != nil {
			return fmt.Errorf("index %s: %w: %v", ix, errCorrupt, err)
		}
		out = append(out, c)
		if uint64(len(out)) == n {
			return storage.ErrStopIteration
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index %s: range %d+%d: %w", ix, start, n, err)
	}
	if uint64(len(out)) != n {
		return nil, fmt.Errorf("index %s: range %d+%d: found %d records: %w", ix, start, n, len(out), errCorrupt)
	}
	return out, nil
}
