// Package chaindb is the database an avalanchego VM plugin keeps its state
// in: avalanchego's database.Database over the chain's namespace of the
// host's storage, which the host serves to the plugin over rpcdb.
package chaindb

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ava-labs/avalanchego/database"

	"github.com/chainhost/chainhost/core/storage"
)

var _ database.Database = (*DB)(nil)

// DB is one chain's view of the host's storage. It is safe for concurrent
// use. Closing it ends only this view: the host's storage.DB stays open.
//
// Writes do not wait for the disk: goleveldb journals each write before it
// returns, so a crash of the process loses nothing the VM was told is
// written; only a crash of the machine may lose the latest writes, as with
// the host's own unsynced writes (storage.DB.Write).
type DB struct {
	ns     *storage.Namespace
	closed atomic.Bool

	mu    sync.Mutex // orders NewIterator against Close
	iters map[*iterator]struct{}
}

// New returns the database of the chain whose namespace is ns.
func New(ns *storage.Namespace) *DB {
	return &DB{ns: ns, iters: map[*iterator]struct{}{}}
}

// Has reports whether key is present.
func (db *DB) Has(key []byte) (bool, error) {
	if db.closed.Load() {
		return false, database.ErrClosed
	}
	ok, err := db.ns.Has(key)
	return ok, dbErr(err)
}

// Get returns the value of key, or database.ErrNotFound.
func (db *DB) Get(key []byte) ([]byte, error) {
	if db.closed.Load() {
		return nil, database.ErrClosed
	}
	v, err := db.ns.Get(key)
	return v, dbErr(err)
}

// Put stores value under key.
func (db *DB) Put(key, value []byte) error {
	if db.closed.Load() {
		return database.ErrClosed
	}
	return dbErr(db.ns.Put(key, value))
}

// Delete removes key; removing an absent key is not an error.
func (db *DB) Delete(key []byte) error {
	if db.closed.Load() {
		return database.ErrClosed
	}
	return dbErr(db.ns.Delete(key))
}

// NewBatch returns an empty *Batch of writes to this database.
func (db *DB) NewBatch() database.Batch { return &Batch{db: db} }

// NewIterator iterates over every key of the database.
func (db *DB) NewIterator() database.Iterator { return db.newIterator(nil, nil) }

// NewIteratorWithStart iterates over the keys from start on.
func (db *DB) NewIteratorWithStart(start []byte) database.Iterator {
	return db.newIterator(nil, start)
}

// NewIteratorWithPrefix iterates over the keys that start with prefix.
func (db *DB) NewIteratorWithPrefix(prefix []byte) database.Iterator {
	return db.newIterator(prefix, nil)
}

// NewIteratorWithStartAndPrefix iterates over the keys that start with
// prefix, from start on.
func (db *DB) NewIteratorWithStartAndPrefix(start, prefix []byte) database.Iterator {
	return db.newIterator(prefix, start)
}

// Compact compacts the chain's keys from start up to, not including, limit
// (nil: from the first, through the last).
func (db *DB) Compact(start, limit []byte) error {
	if db.closed.Load() {
		return database.ErrClosed
	}
	return dbErr(db.ns.Compact(start, limit))
}

// Close ends this view; later calls return database.ErrClosed. It releases
// the iterators still open, so that a VM which never released one (a
// plugin that crashed mid-iteration) cannot keep the host's storage from
// closing.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed.Swap(true) {
		db.mu.Unlock()
		return database.ErrClosed
	}
	iters := db.iters
	db.iters = nil
	db.mu.Unlock()
	for it := range iters {
		it.release()
	}
	return nil
}

// HealthCheck fails once this view or the host's storage is closed.
func (db *DB) HealthCheck(context.Context) (any, error) {
	if _, err := db.Has(nil); err != nil {
		return nil, err
	}
	return nil, nil
}

// dbErr turns storage's sentinels into avalanchego's, which rpcdb sends
// to the plugin by value.
func dbErr(err error) error {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return database.ErrNotFound
	case errors.Is(err, storage.ErrClosed):
		return database.ErrClosed
	default:
		return err
	}
}
