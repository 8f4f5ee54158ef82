package storage

import (
	"bytes"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Iterator walks, in key order, over a snapshot of a namespace's keys
// taken when it was made. It holds the DB open until Release or until Next
// returns false, so every iterator must be released; once Close has begun,
// Next returns false and Error ErrClosed. An Iterator is not safe for
// concurrent use.
type Iterator struct {
	ns         *Namespace
	it         iterator.Iterator // nil once released
	key, value []byte
	err        error
}

// NewIterator returns an iterator over the keys of n that start with
// prefix and are not before start (nil start: from the first such key).
func (n *Namespace) NewIterator(prefix, start []byte) *Iterator {
	if err := n.db.acquire(); err != nil {
		return &Iterator{err: err}
	}
	r := util.BytesPrefix(n.key(prefix))
	if len(start) > 0 {
		if s := n.key(start); bytes.Compare(s, r.Start) > 0 {
			r.Start = s
		}
	}
	return &Iterator{ns: n, it: n.db.ldb.NewIterator(r, nil)}
}

// Next moves to the next key and reports whether there is one.
func (it *Iterator) Next() bool {
	it.key, it.value = nil, nil
	if it.it == nil {
		return false
	}
	if it.ns.db.closed.Load() {
		it.err = ErrClosed
		it.Release()
		return false
	}
	if !it.it.Next() {
		if err := it.it.Error(); err != nil {
			it.err = fmt.Errorf("iterate: %w", mapErr(err))
		}
		it.Release()
		return false
	}
	it.key = bytes.Clone(it.it.Key()[len(it.ns.keys):])
	it.value = bytes.Clone(it.it.Value())
	return true
}

// Key returns the current key without the namespace prefix, or nil when
// Next has returned false. It is a copy the caller may keep.
func (it *Iterator) Key() []byte { return it.key }

// Value returns the current value, or nil when Next has returned false. It
// is a copy the caller may keep.
func (it *Iterator) Value() []byte { return it.value }

// Error returns the error that ended the iteration, nil if it ran out of
// keys.
func (it *Iterator) Error() error { return it.err }

// Release lets the DB close; Next then returns false. Key and Value keep
// the current pair. Release may be called more than once.
func (it *Iterator) Release() {
	if it.it == nil {
		return
	}
	it.it.Release()
	it.it = nil
	it.ns.db.release()
}
