package storage

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/syndtr/goleveldb/leveldb"
	lverrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// DB is the host's database. It is safe for concurrent use, including
// Close while other operations are in flight.
type DB struct {
	ldb *leveldb.DB
	dir string

	mu       sync.Mutex // orders acquire against Close
	closed   atomic.Bool
	inflight sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating if needed) the database in dir, normally
// <data-dir>/db. It fails with ErrInUse when another process, or another
// DB in this process, holds the directory.
func Open(dir string) (*DB, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("open db %s: create dir: %w", dir, err)
	}
	ldb, err := leveldb.OpenFile(dir, &opt.Options{
		Filter:             filter.NewBloomFilter(10),
		BlockCacheCapacity: 32 * opt.MiB,
		// A large memtable (goleveldb holds up to two: 128 MiB) and 16 KiB
		// blocks: containers of about 1 KiB then cost a third less CPU to
		// write and compact (fewer, larger flushes; a write syscall per
		// block). docs/benchmarks.md, "Index (issue 4)".
		WriteBuffer:            64 * opt.MiB,
		BlockSize:              16 * opt.KiB,
		OpenFilesCacheCapacity: 500,
	})
	switch {
	case err == nil:
		return &DB{ldb: ldb, dir: dir}, nil
	case errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN):
		return nil, fmt.Errorf("open db %s: %w (%v)", dir, ErrInUse, err)
	case lverrors.IsCorrupted(err):
		return nil, fmt.Errorf("open db %s: database corrupted: %w", dir, err)
	default:
		return nil, fmt.Errorf("open db %s: %w", dir, err)
	}
}

// Close waits for operations in flight, then closes the database. An
// iteration in flight stops at its next key with ErrClosed; operations
// started after Close return ErrClosed. Close may be called more than once.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.mu.Lock()
		db.closed.Store(true)
		db.mu.Unlock()
		db.inflight.Wait()
		if err := db.ldb.Close(); err != nil {
			db.closeErr = fmt.Errorf("close db %s: %w", db.dir, err)
		}
	})
	return db.closeErr
}

// acquire registers an operation; it fails once Close has begun. Every
// successful acquire is paired with release.
func (db *DB) acquire() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed.Load() {
		return ErrClosed
	}
	db.inflight.Add(1)
	return nil
}

func (db *DB) release() { db.inflight.Done() }

// Write applies every operation of b atomically, across all the
// namespaces it touches. With sync the write is flushed to disk before
// Write returns; without it a crash of the process loses nothing, a crash
// of the machine may lose the latest writes.
func (db *DB) Write(b *Batch, sync bool) error {
	if b.data.db != db {
		return errors.New("write batch: batch belongs to another database")
	}
	if b.data.err != nil {
		return fmt.Errorf("write batch: %w", b.data.err)
	}
	if err := db.acquire(); err != nil {
		return err
	}
	defer db.release()
	if err := db.ldb.Write(&b.data.lb, &opt.WriteOptions{Sync: sync}); err != nil {
		return fmt.Errorf("write batch: %w", mapErr(err))
	}
	return nil
}

// Namespace returns the top-level namespace called prefix.
func (db *DB) Namespace(prefix string) *Namespace {
	return (&Namespace{db: db}).Namespace(prefix)
}

// mapErr turns goleveldb's sentinels into this package's.
func mapErr(err error) error {
	switch {
	case errors.Is(err, leveldb.ErrNotFound):
		return ErrNotFound
	case errors.Is(err, leveldb.ErrClosed):
		return ErrClosed
	default:
		return err
	}
}
