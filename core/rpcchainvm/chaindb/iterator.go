package chaindb

import (
	"sync"

	"github.com/ava-labs/avalanchego/database"

	"github.com/chainhost/chainhost/core/storage"
)

// iterator is a storage iterator in avalanchego's terms. Its lock orders
// the VM's calls against DB.Close releasing it from another goroutine.
type iterator struct {
	db *DB

	mu         sync.Mutex
	it         *storage.Iterator
	key, value []byte
	err        error
}

// newIterator returns an iterator over the keys starting with prefix,
// from start on, registered so that Close can release it.
func (db *DB) newIterator(prefix, start []byte) database.Iterator {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed.Load() {
		return &database.IteratorError{Err: database.ErrClosed}
	}
	it := &iterator{db: db, it: db.ns.NewIterator(prefix, start)}
	db.iters[it] = struct{}{}
	return it
}

// Next moves to the next pair; after the DB closes it returns false and
// Error database.ErrClosed.
func (it *iterator) Next() bool {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.key, it.value = nil, nil
	if it.err != nil {
		return false
	}
	if it.db.closed.Load() {
		it.err = database.ErrClosed
		return false
	}
	if !it.it.Next() {
		it.err = dbErr(it.it.Error())
		return false
	}
	it.key, it.value = it.it.Key(), it.it.Value()
	return true
}

// Key returns the current key, a copy the caller may keep.
func (it *iterator) Key() []byte { return it.key }

// Value returns the current value, a copy the caller may keep.
func (it *iterator) Value() []byte { return it.value }

// Error returns what ended the iteration, nil if it ran out of keys.
func (it *iterator) Error() error { return it.err }

// Release frees the iterator; it may be called more than once.
func (it *iterator) Release() {
	it.release()
	it.db.mu.Lock()
	delete(it.db.iters, it)
	it.db.mu.Unlock()
}

// release lets the storage close; the current pair stays readable.
func (it *iterator) release() {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.it.Release()
}
