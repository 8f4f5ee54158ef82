package index

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The timestamps a record can hold: those whose unix nanoseconds fit an
// int64.
var (
	minStamp = time.Unix(0, -1<<63)
	maxStamp = time.Unix(0, 1<<63-1)
)

// maxKept is the largest batch, and record buffer, in bytes, that an
// index keeps for its next append.
const maxKept = 1 << 20

// Entry is a container to append.
type Entry struct {
	ID        ids.ID    // container ID, not yet in the index
	Bytes     []byte    // the container's bytes
	Timestamp time.Time // acceptance time; zero means now
}

// Accept appends container id with its bytes at the next index, stamped ts
// (zero means now), in one atomic batch. extra, if not nil, adds the
// caller's own writes to that batch so that they commit with the index
// entry or not at all; it must write through b.In(its own namespace), as b
// itself writes the index's namespace, and must not keep b or its views
// past the call (the index reuses the batch). An error from extra aborts
// the append. An ID the index already holds is refused with an
// *AlreadyIndexedError and nothing is written.
func (ix *Index) Accept(id ids.ID, bytes []byte, ts time.Time, extra func(b *storage.Batch) error) (Container, error) {
	out, err := ix.AcceptMany([]Entry{{ID: id, Bytes: bytes, Timestamp: ts}}, extra)
	if err != nil {
		return Container{}, err
	}
	return out[0], nil
}

// AcceptMany appends entries, in order, at the next indexes in one atomic
// batch, with extra's writes as in Accept. Any ID already indexed, or given
// twice, refuses the whole batch and nothing is written. It returns the
// appended containers.
func (ix *Index) AcceptMany(entries []Entry, extra func(b *storage.Batch) error) ([]Container, error) {
	if len(entries) == 0 {
		return nil, fmt.Errorf("index %s: accept: no containers", ix)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.loadLocked(); err != nil {
		return nil, err
	}
	b := ix.takeBatchLocked()
	defer ix.keepBatchLocked(b)
	out, newNext, err := ix.stageLocked(b, entries, nowIfNeeded(ix.now, entries))
	if err != nil {
		return nil, err
	}
	if extra != nil {
		if err := extra(b); err != nil {
			return nil, fmt.Errorf("index %s: accept: extra writes: %w", ix, err)
		}
	}
	// Before the write: an ID that may be stored must be in the filters.
	ix.filterAddLocked(entries)
	if err := ix.db.Write(b, ix.sync); err != nil {
		return nil, fmt.Errorf("index %s: accept %d containers at %d: %w", ix, len(entries), out[0].Index, err)
	}
	ix.publish(newNext)
	return out, nil
}

// nowIfNeeded returns now() when an entry has no timestamp of its own,
// else the zero time.
func nowIfNeeded(now func() time.Time, entries []Entry) time.Time {
	for _, e := range entries {
		if e.Timestamp.IsZero() {
			return now()
		}
	}
	return time.Time{}
}

// stageLocked adds to b the writes that append entries at the next
// indexes: each record, each ID's entry and the new counter. Entries
// without a timestamp are stamped now. It returns the containers and the
// new length; an ID already indexed, or given twice, is an
// *AlreadyIndexedError. ix.mu must be held and the counter loaded.
func (ix *Index) stageLocked(b *storage.Batch, entries []Entry, now time.Time) ([]Container, uint64, error) {
	next := ix.next.Load()
	ix.growFilterLocked(next + uint64(len(entries)))
	var seen map[ids.ID]uint64 // IDs of this batch, when it has several
	if len(entries) > 1 {
		seen = make(map[ids.ID]uint64, len(entries))
	}
	out := make([]Container, len(entries))
	var keyBuf [max(recordKeyLen, idKeyLen)]byte
	var valBuf [8]byte
	for k, e := range entries {
		if i, dup := seen[e.ID]; dup {
			return nil, 0, &AlreadyIndexedError{ID: e.ID, Index: i}
		}
		if ix.mayHoldLocked(e.ID) {
			switch i, found, err := ix.lookup(e.ID); {
			case err != nil:
				return nil, 0, fmt.Errorf("accept container %s: %w", e.ID, err)
			case found:
				return nil, 0, &AlreadyIndexedError{ID: e.ID, Index: i}
			}
		}
		ts := e.Timestamp
		if ts.IsZero() {
			ts = now
		}
		if ts.Before(minStamp) || ts.After(maxStamp) {
			return nil, 0, fmt.Errorf("accept container %s: timestamp %s outside the years 1678 to 2262", e.ID, ts)
		}
		i := next + uint64(k)
		if seen != nil {
			seen[e.ID] = i
		}
		nanos := ts.UnixNano()
		// The batch copies keys and values: their buffers are reused.
		ix.record = appendRecord(ix.record[:0], e.ID, e.Bytes, nanos)
		b.Put(appendRecordKey(keyBuf[:0], i), ix.record)
		b.Put(appendIDKey(keyBuf[:0], e.ID), binary.BigEndian.AppendUint64(valBuf[:0], i))
		out[k] = Container{ID: e.ID, Bytes: e.Bytes, Index: i, Timestamp: stamp(nanos)}
	}
	newNext := next + uint64(len(entries))
	b.Put(keyNext, binary.BigEndian.AppendUint64(valBuf[:0], newNext))
	return out, newNext, nil
}

// KindEntry is a container to append to a chain's index of Kind.
type KindEntry struct {
	Kind string
	Entry
}

// AcceptAcross appends entries to chain's indexes of their kinds (one or
// several), each in order at the next indexes of its kind, in one atomic
// batch with extra's writes (as in Accept: through b.In of the caller's
// namespace). Any ID already in its kind's index, or given twice for one
// kind, refuses the whole batch and nothing is written. It returns the
// appended containers in the order of entries.
func (x *Indexes) AcceptAcross(chain ids.ID, entries []KindEntry, extra func(b *storage.Batch) error) ([]Container, error) {
	if len(entries) == 0 {
		return nil, fmt.Errorf("index %s: accept: no containers", chain)
	}
	// Group the entries by kind; lock the indexes in the order of their
	// kinds, so that two batches never wait for each other.
	groups := map[string][]int{}
	var kinds []string
	for i, e := range entries {
		if _, ok := groups[e.Kind]; !ok {
			kinds = append(kinds, e.Kind)
		}
		groups[e.Kind] = append(groups[e.Kind], i)
	}
	slices.Sort(kinds)
	ixs := make([]*Index, len(kinds))
	for k, kind := range kinds {
		ix := x.Index(chain, kind)
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if err := ix.loadLocked(); err != nil {
			return nil, err
		}
		ixs[k] = ix
	}
	b := x.opts.NS.NewBatch()
	out := make([]Container, len(entries))
	grouped := make([][]Entry, len(kinds))
	nexts := make([]uint64, len(kinds))
	now := time.Time{}
	for _, e := range entries {
		if e.Timestamp.IsZero() {
			now = x.opts.Now()
			break
		}
	}
	for k, ix := range ixs {
		group := make([]Entry, len(groups[kinds[k]]))
		for j, i := range groups[kinds[k]] {
			group[j] = entries[i].Entry
		}
		staged, next, err := ix.stageLocked(b.In(ix.ns), group, now)
		if err != nil {
			return nil, fmt.Errorf("index %s: accept: %w", ix, err)
		}
		for j, i := range groups[kinds[k]] {
			out[i] = staged[j]
		}
		grouped[k], nexts[k] = group, next
	}
	if extra != nil {
		if err := extra(b); err != nil {
			return nil, fmt.Errorf("index %s: accept: extra writes: %w", chain, err)
		}
	}
	for k, ix := range ixs {
		ix.filterAddLocked(grouped[k])
	}
	if err := x.opts.DB.Write(b, x.opts.Sync); err != nil {
		return nil, fmt.Errorf("index %s: accept %d containers: %w", chain, len(entries), err)
	}
	for k, ix := range ixs {
		ix.publish(nexts[k])
	}
	return out, nil
}

// publish makes next visible and wakes the subscribers.
func (ix *Index) publish(next uint64) {
	ix.notifyMu.Lock()
	defer ix.notifyMu.Unlock()
	ix.next.Store(next)
	close(ix.notify)
	ix.notify = make(chan struct{})
}

// watch returns the current length and a channel closed by the next append.
func (ix *Index) watch() (uint64, <-chan struct{}) {
	ix.notifyMu.Lock()
	defer ix.notifyMu.Unlock()
	return ix.next.Load(), ix.notify
}

// takeBatchLocked returns an empty batch of the index's namespace: the one
// the last append kept, if any. ix.mu must be held.
func (ix *Index) takeBatchLocked() *storage.Batch {
	if b := ix.batch; b != nil {
		ix.batch = nil
		return b
	}
	return ix.ns.NewBatch()
}

// keepBatchLocked empties b and keeps it, and the record buffer, for the
// next append, unless they grew large. Reusing them saves allocating and
// growing their memory on every append. ix.mu must be held.
func (ix *Index) keepBatchLocked(b *storage.Batch) {
	if cap(ix.record) > maxKept {
		ix.record = nil
	}
	if b.Size() <= maxKept {
		b.Reset()
		ix.batch = b
	}
}
