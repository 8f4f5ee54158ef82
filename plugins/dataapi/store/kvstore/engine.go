package kvstore

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// The engines a Store can run on.
const (
	EnginePebble  = "pebble"
	EngineLevelDB = "leveldb"
)

// errMissing is an engine's answer to a get of a missing key.
var errMissing = errors.New("missing key")

// engine is the ordered key-value store under a Store: pebble or goleveldb.
type engine interface {
	reader
	newBatch() writeBatch
	snapshot() snapshot
	close() error
}

// reader reads keys: the engine's latest state, or a snapshot.
type reader interface {
	// get returns a copy of the value at key, or errMissing.
	get(key []byte) ([]byte, error)
	// iter returns an iterator over the keys in [lower, upper).
	iter(lower, upper []byte) iter
}

// snapshot is a consistent view of the engine, released after use.
type snapshot interface {
	reader
	release()
}

// writer puts and deletes keys.
type writer interface {
	put(key, value []byte)
	del(key []byte)
}

// writeBatch gathers writes that commit atomically.
type writeBatch interface {
	writer
	commit() error
}

// iter walks keys in order. Key and Value are valid until the next move.
type iter interface {
	First() bool
	Last() bool
	SeekGE(key []byte) bool
	SeekLT(key []byte) bool
	Next() bool
	Prev() bool
	Key() []byte
	Value() []byte
	Close() error
}

// openEngine opens the engine name in dir with a block cache of cacheMB.
func openEngine(name, dir string, cacheMB int) (engine, error) {
	switch name {
	case EnginePebble:
		return openPebble(filepath.Join(dir, "pebble"), cacheMB)
	case EngineLevelDB:
		return openLevelDB(filepath.Join(dir, "leveldb"), cacheMB)
	}
	return nil, fmt.Errorf("unknown store engine %q (want %s or %s)", name, EnginePebble, EngineLevelDB)
}

// pebbleEngine is pebble v2, the engine go-ethereum uses.
type pebbleEngine struct{ db *pebble.DB }

func openPebble(dir string, cacheMB int) (*pebbleEngine, error) {
	cache := pebble.NewCache(int64(cacheMB) << 20)
	defer cache.Unref()
	opts := &pebble.Options{
		Cache:        cache,
		MemTableSize: 64 << 20,
		Levels: [7]pebble.LevelOptions{
			{FilterPolicy: bloom.FilterPolicy(10)}, {FilterPolicy: bloom.FilterPolicy(10)},
			{FilterPolicy: bloom.FilterPolicy(10)}, {FilterPolicy: bloom.FilterPolicy(10)},
			{FilterPolicy: bloom.FilterPolicy(10)}, {FilterPolicy: bloom.FilterPolicy(10)}, {},
		},
		Logger: quietPebbleLogger{},
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open pebble %s: %w", dir, err)
	}
	return &pebbleEngine{db: db}, nil
}

// quietPebbleLogger drops pebble's informational logs; errors surface as
// returned errors.
type quietPebbleLogger struct{}

func (quietPebbleLogger) Infof(string, ...any)  {}
func (quietPebbleLogger) Errorf(string, ...any) {}
func (quietPebbleLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}

// getPebble returns a copy of the value at key, or errMissing.
func getPebble(get func([]byte) ([]byte, io.Closer, error), key []byte) ([]byte, error) {
	v, closer, err := get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, errMissing
	}
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), v...)
	return out, closer.Close()
}

func pebbleIter(newIter func(*pebble.IterOptions) (*pebble.Iterator, error), lower, upper []byte) iter {
	it, err := newIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return errIter{err}
	}
	return it
}

func (e *pebbleEngine) get(key []byte) ([]byte, error) { return getPebble(e.db.Get, key) }
func (e *pebbleEngine) iter(lower, upper []byte) iter  { return pebbleIter(e.db.NewIter, lower, upper) }
func (e *pebbleEngine) newBatch() writeBatch           { return pebbleBatch{e.db.NewBatch()} }
func (e *pebbleEngine) snapshot() snapshot             { return pebbleSnapshot{e.db.NewSnapshot()} }
func (e *pebbleEngine) close() error                   { return e.db.Close() }

type pebbleSnapshot struct{ s *pebble.Snapshot }

func (s pebbleSnapshot) get(key []byte) ([]byte, error) { return getPebble(s.s.Get, key) }
func (s pebbleSnapshot) iter(lower, upper []byte) iter  { return pebbleIter(s.s.NewIter, lower, upper) }
func (s pebbleSnapshot) release()                       { _ = s.s.Close() }

type pebbleBatch struct{ b *pebble.Batch }

func (b pebbleBatch) put(key, value []byte) { _ = b.b.Set(key, value, nil) }
func (b pebbleBatch) del(key []byte)        { _ = b.b.Delete(key, nil) }

// commit writes the batch without waiting for fsync: the write-ahead log
// keeps batches atomic, so a crash loses at most the last batches whole,
// and the indexer redoes them from the state it finds.
func (b pebbleBatch) commit() error {
	defer b.b.Close()
	return b.b.Commit(pebble.NoSync)
}

// levelDBEngine is goleveldb, the engine the host uses.
type levelDBEngine struct{ db *leveldb.DB }

func openLevelDB(dir string, cacheMB int) (*levelDBEngine, error) {
	db, err := leveldb.OpenFile(dir, &opt.Options{
		BlockCacheCapacity: cacheMB << 20,
		WriteBuffer:        64 << 20,
		BlockSize:          16 << 10,
		Filter:             filter.NewBloomFilter(10),
	})
	if err != nil {
		return nil, fmt.Errorf("open goleveldb %s: %w", dir, err)
	}
	return &levelDBEngine{db: db}, nil
}

func levelGet(v []byte, err error) ([]byte, error) {
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, errMissing
	}
	return v, err
}

func (e *levelDBEngine) get(key []byte) ([]byte, error) { return levelGet(e.db.Get(key, nil)) }
func (e *levelDBEngine) iter(lower, upper []byte) iter {
	return &levelIter{it: e.db.NewIterator(&util.Range{Start: lower, Limit: upper}, nil)}
}
func (e *levelDBEngine) newBatch() writeBatch { return levelBatch{db: e.db, b: new(leveldb.Batch)} }
func (e *levelDBEngine) snapshot() snapshot {
	s, err := e.db.GetSnapshot()
	if err != nil {
		return errSnapshot{err}
	}
	return levelSnapshot{s}
}
func (e *levelDBEngine) close() error { return e.db.Close() }

type levelSnapshot struct{ s *leveldb.Snapshot }

func (s levelSnapshot) get(key []byte) ([]byte, error) { return levelGet(s.s.Get(key, nil)) }
func (s levelSnapshot) iter(lower, upper []byte) iter {
	return &levelIter{it: s.s.NewIterator(&util.Range{Start: lower, Limit: upper}, nil)}
}
func (s levelSnapshot) release() { s.s.Release() }

type levelBatch struct {
	db *leveldb.DB
	b  *leveldb.Batch
}

func (b levelBatch) put(key, value []byte) { b.b.Put(key, value) }
func (b levelBatch) del(key []byte)        { b.b.Delete(key) }
func (b levelBatch) commit() error         { return b.db.Write(b.b, &opt.WriteOptions{Sync: false}) }

// levelIter gives a goleveldb iterator pebble's method names; SeekLT is a
// seek and a step back.
type levelIter struct{ it iterator.Iterator }

func (i *levelIter) First() bool            { return i.it.First() }
func (i *levelIter) Last() bool             { return i.it.Last() }
func (i *levelIter) SeekGE(key []byte) bool { return i.it.Seek(key) }
func (i *levelIter) SeekLT(key []byte) bool {
	if i.it.Seek(key) {
		return i.it.Prev()
	}
	return i.it.Last()
}
func (i *levelIter) Next() bool    { return i.it.Next() }
func (i *levelIter) Prev() bool    { return i.it.Prev() }
func (i *levelIter) Key() []byte   { return i.it.Key() }
func (i *levelIter) Value() []byte { return i.it.Value() }
func (i *levelIter) Close() error {
	i.it.Release()
	return i.it.Error()
}

// errIter is an iterator that could not be made: empty, and its Close
// returns why.
type errIter struct{ err error }

func (errIter) First() bool        { return false }
func (errIter) Last() bool         { return false }
func (errIter) SeekGE([]byte) bool { return false }
func (errIter) SeekLT([]byte) bool { return false }
func (errIter) Next() bool         { return false }
func (errIter) Prev() bool         { return false }
func (errIter) Key() []byte        { return nil }
func (errIter) Value() []byte      { return nil }
func (e errIter) Close() error     { return e.err }

// errSnapshot is a snapshot that could not be taken: its reads fail.
type errSnapshot struct{ err error }

func (e errSnapshot) get([]byte) ([]byte, error) { return nil, e.err }
func (e errSnapshot) iter([]byte, []byte) iter   { return errIter(e) }
func (errSnapshot) release()                     {}
