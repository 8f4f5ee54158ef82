package index

import (
	"errors"
	"fmt"
	"sync"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Sizing of an index's ID filter (docs/index.md, "Performance").
const (
	// filterFalsePositive is the false positive rate of a filter filled to
	// its capacity: about 9.6 bits and 7 hashes per ID of capacity.
	filterFalsePositive = 0.01
	// filterMinCapacity is the smallest capacity, in IDs (1.2 MiB).
	filterMinCapacity = 1 << 20
	// filterMaxCapacity is the largest capacity, in IDs (153 MiB). An
	// index that outgrows it keeps its filter, which then answers "maybe"
	// more often and so falls back to the database more often.
	filterMaxCapacity = 1 << 27
	// filterChunk is how many IDs the builder adds per hold of Index.mu.
	filterChunk = 4096
)

// filterParams sizes the ID filters of an Indexes. Tests shrink them.
type filterParams struct {
	minCapacity uint64
	maxCapacity uint64
	chunk       int
	// hook, when not nil, is called by the builder, without a lock, before
	// it reads the database (with 0) and after each chunk (with the IDs
	// read so far).
	hook func(read int)
}

// defaultFilterParams returns the sizes the host uses.
func defaultFilterParams() filterParams {
	return filterParams{minCapacity: filterMinCapacity, maxCapacity: filterMaxCapacity, chunk: filterChunk}
}

// capacity returns the capacity of a filter for an index of n IDs: twice
// n, within the bounds.
func (p filterParams) capacity(n uint64) uint64 {
	return min(max(2*n, p.minCapacity), p.maxCapacity)
}

// idFilter is the in-memory bloom filter of the container IDs an index
// holds. An append of an ID the ready filter has not seen skips the
// database lookup of its duplicate check; an ID the filter may have seen
// is looked up. The filter never forgets an ID, so it never lets a
// duplicate through: every ID the index holds is in ready (the invariant),
// which the builder and the appends keep as follows.
//
// A build starts under Index.mu: building is set from then on, and every
// append adds its IDs to it (and to ready, if any) under Index.mu before
// it writes them. The builder then iterates the ID keys of the index from
// a database iterator made after that moment, so it sees every ID appended
// before. It adds them in chunks under Index.mu, and installs building as
// ready when the iteration ends. An ID is thus either stored before the
// build starts (the builder reads it) or appended after (the append adds
// it), or both.
//
// Every field is guarded by Index.mu.
type idFilter struct {
	ready    *bloom.BloomFilter // holds every ID of the index; nil: none yet
	readyCap uint64             // the IDs ready is sized for
	building *bloom.BloomFilter // being filled by a builder; nil: none runs
	built    chan struct{}      // closed when the builder of building returns
	off      bool               // a build failed, or the owner or database closed: build no more
	err      error              // why a build failed, for tests
	lookups  uint64             // duplicate checks that read the database, for tests
}

// mayHoldLocked reports whether the index may hold id: false only when the
// ready filter proves it does not. ix.mu must be held.
func (ix *Index) mayHoldLocked(id ids.ID) bool {
	if f := ix.filter.ready; f != nil && !f.Test(id[:]) {
		return false
	}
	ix.filter.lookups++
	return true
}

// filterAddLocked adds the IDs of entries, about to be written, to the
// filters. ix.mu must be held.
func (ix *Index) filterAddLocked(entries []Entry) {
	for _, f := range []*bloom.BloomFilter{ix.filter.ready, ix.filter.building} {
		if f == nil {
			continue
		}
		for _, e := range entries {
			f.Add(e.ID[:])
		}
	}
}

// growFilterLocked starts building a filter when the index has none, or
// when size, the length the index is about to reach, outgrows the ready
// one. The ready filter, if any, stays in use meanwhile: it holds every ID
// even past its capacity, with more false positives. ix.mu must be held.
func (ix *Index) growFilterLocked(size uint64) {
	f := &ix.filter
	if f.building != nil || f.off {
		return
	}
	if f.ready != nil && (size <= f.readyCap || f.readyCap >= ix.params.maxCapacity) {
		return
	}
	capacity := ix.params.capacity(size)
	building := bloom.NewWithEstimates(uint(capacity), filterFalsePositive)
	built := make(chan struct{})
	ok := ix.work.start(func(stop <-chan struct{}) {
		defer close(built)
		ix.buildFilter(building, capacity, stop)
	})
	if !ok {
		f.off = true
		return
	}
	f.building, f.built = building, built
}

// errBuildStopped ends a build stopped by Indexes.Close.
var errBuildStopped = errors.New("stopped")

// buildFilter fills f with the IDs the index holds and installs it as the
// ready filter (see idFilter). It returns early, leaving the index without
// a new filter, when stop is closed or the database closes.
func (ix *Index) buildFilter(f *bloom.BloomFilter, capacity uint64, stop <-chan struct{}) {
	chunk := make([]ids.ID, 0, ix.params.chunk)
	read := 0
	flush := func() {
		ix.mu.Lock()
		for _, id := range chunk {
			f.Add(id[:])
		}
		ix.mu.Unlock()
		read += len(chunk)
		chunk = chunk[:0]
		if ix.params.hook != nil {
			ix.params.hook(read)
		}
	}
	if ix.params.hook != nil {
		ix.params.hook(0)
	}
	err := ix.ns.Iterate([]byte{prefixID}, nil, func(key, _ []byte) error {
		select {
		case <-stop:
			return errBuildStopped
		default:
		}
		if len(key) != 1+ids.Len {
			return fmt.Errorf("ID key %x: %w", key, errCorrupt)
		}
		chunk = append(chunk, ids.ID(key[1:]))
		if len(chunk) == cap(chunk) {
			flush()
		}
		return nil
	})
	if err == nil && len(chunk) > 0 {
		flush()
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.filter.building = nil
	switch {
	case err == nil:
		ix.filter.ready, ix.filter.readyCap = f, capacity
	case errors.Is(err, errBuildStopped) || errors.Is(err, storage.ErrClosed):
		ix.filter.off = true
	default:
		ix.filter.off = true
		ix.filter.err = fmt.Errorf("index %s: build ID filter: %w", ix, err)
	}
}

// workers owns the goroutines that build the ID filters of an Indexes.
type workers struct {
	mu     sync.Mutex
	closed bool
	stop   chan struct{} // closed by close
	wg     sync.WaitGroup
}

// start runs fn in a new goroutine, with the channel close closes, and
// reports true; after close it reports false.
func (w *workers) start(fn func(stop <-chan struct{})) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		fn(w.stop)
	}()
	return true
}

// close stops the goroutines and waits for them to return.
func (w *workers) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.stop)
	}
	w.mu.Unlock()
	w.wg.Wait()
}
