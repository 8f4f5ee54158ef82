package index

import (
	"encoding/binary"
	"fmt"
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
	next := ix.next.Load()
	ix.growFilterLocked(next + uint64(len(entries)))
	now := time.Time{}
	var seen map[ids.ID]uint64 // IDs of this batch, when it has several
	if len(entries) > 1 {
		seen = make(map[ids.ID]uint64, len(entries))
	}
	out := make([]Container, len(entries))
	b := ix.takeBatchLocked()
	defer ix.keepBatchLocked(b)
	var keyBuf [max(recordKeyLen, idKeyLen)]byte
	var valBuf [8]byte
	for k, e := range entries {
		if i, dup := seen[e.ID]; dup {
			return nil, &AlreadyIndexedError{ID: e.ID, Index: i}
		}
		if ix.mayHoldLocked(e.ID) {
			switch i, found, err := ix.lookup(e.ID); {
			case err != nil:
				return nil, fmt.Errorf("accept container %s: %w", e.ID, err)
			case found:
				return nil, &AlreadyIndexedError{ID: e.ID, Index: i}
			}
		}
		ts := e.Timestamp
		if ts.IsZero() {
			if now.IsZero() {
				now = ix.now()
			}
			ts = now
		}
		if ts.Before(minStamp) || ts.After(maxStamp) {
			return nil, fmt.Errorf("accept container %s: timestamp %s outside the years 1678 to 2262", e.ID, ts)
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
	if extra != nil {
		if err := extra(b); err != nil {
			return nil, fmt.Errorf("index %s: accept: extra writes: %w", ix, err)
		}
	}
	// Before the write: an ID that may be stored must be in the filters.
	ix.filterAddLocked(entries)
	if err := ix.db.Write(b, ix.sync); err != nil {
		return nil, fmt.Errorf("index %s: accept %d containers at %d: %w", ix, len(entries), next, err)
	}
	ix.publish(newNext)
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
