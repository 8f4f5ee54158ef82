package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// Key layout. A namespace path n1/n2/... is encoded as
//
//	0x01 uvarint(len(n1)) n1  0x01 uvarint(len(n2)) n2 ...
//
// and a key k stored in that namespace as path 0x00 k. The length makes
// sibling names prefix-free ("a" never sees "ab"), and the tag byte keeps a
// namespace's own keys apart from those of its nested namespaces.
const (
	tagKey  = 0x00
	tagName = 0x01
)

// Namespace is an isolated key space in a DB. It is safe for concurrent
// use; a namespace of a closed DB returns ErrClosed.
type Namespace struct {
	db   *DB
	path []byte // encoded namespace path, without the key tag
	keys []byte // path + tagKey: prefix of this namespace's own keys
}

// Namespace returns the namespace called sub nested in n. Its keys are
// not visible in n.
func (n *Namespace) Namespace(sub string) *Namespace {
	path := make([]byte, 0, len(n.path)+1+binary.MaxVarintLen64+len(sub))
	path = append(path, n.path...)
	path = append(path, tagName)
	path = binary.AppendUvarint(path, uint64(len(sub)))
	path = append(path, sub...)
	keys := append(path[:len(path):len(path)], tagKey)
	return &Namespace{db: n.db, path: path, keys: keys}
}

// Prefix returns the raw database prefix of the namespace's own keys.
func (n *Namespace) Prefix() []byte { return bytes.Clone(n.keys) }

// key returns the database key of key in n.
func (n *Namespace) key(key []byte) []byte {
	k := make([]byte, len(n.keys)+len(key))
	copy(k, n.keys)
	copy(k[len(n.keys):], key)
	return k
}

// Get returns the value of key, or ErrNotFound. The value is a copy.
func (n *Namespace) Get(key []byte) ([]byte, error) {
	if err := n.db.acquire(); err != nil {
		return nil, err
	}
	defer n.db.release()
	v, err := n.db.ldb.Get(n.key(key), nil)
	if err != nil {
		if err = mapErr(err); err == ErrNotFound {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("get: %w", err)
	}
	return v, nil
}

// Has reports whether key is present.
func (n *Namespace) Has(key []byte) (bool, error) {
	if err := n.db.acquire(); err != nil {
		return false, err
	}
	defer n.db.release()
	ok, err := n.db.ldb.Has(n.key(key), nil)
	if err != nil {
		return false, fmt.Errorf("has: %w", mapErr(err))
	}
	return ok, nil
}

// Put stores value under key, without waiting for the disk.
func (n *Namespace) Put(key, value []byte) error {
	if err := n.db.acquire(); err != nil {
		return err
	}
	defer n.db.release()
	if err := n.db.ldb.Put(n.key(key), value, nil); err != nil {
		return fmt.Errorf("put: %w", mapErr(err))
	}
	return nil
}

// Delete removes key; removing an absent key is not an error.
func (n *Namespace) Delete(key []byte) error {
	if err := n.db.acquire(); err != nil {
		return err
	}
	defer n.db.release()
	if err := n.db.ldb.Delete(n.key(key), nil); err != nil {
		return fmt.Errorf("delete: %w", mapErr(err))
	}
	return nil
}

// Iterate calls fn, in key order, for every key of n that starts with
// prefix and is not before start (nil start: from the first such key).
// Keys are given without the namespace prefix; key and value are copies fn
// may keep. fn returning ErrStopIteration ends the iteration with a nil
// error; any other error ends it and is returned as is.
func (n *Namespace) Iterate(prefix, start []byte, fn func(key, value []byte) error) error {
	it := n.NewIterator(prefix, start)
	defer it.Release()
	for it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			if errors.Is(err, ErrStopIteration) {
				return nil
			}
			return err
		}
	}
	return it.Error()
}

// Compact rewrites the stored keys of n from start up to, not including,
// limit (nil start: from the first key; nil limit: through the last),
// discarding deleted and overwritten versions.
func (n *Namespace) Compact(start, limit []byte) error {
	if err := n.db.acquire(); err != nil {
		return err
	}
	defer n.db.release()
	r := util.BytesPrefix(n.keys)
	if start != nil {
		r.Start = n.key(start)
	}
	if limit != nil {
		r.Limit = n.key(limit)
	}
	if err := n.db.ldb.CompactRange(*r); err != nil {
		return fmt.Errorf("compact: %w", mapErr(err))
	}
	return nil
}

// DB returns the database n belongs to, which writes its batches.
func (n *Namespace) DB() *DB { return n.db }

// Names returns, sorted, the names of the namespaces nested in n that
// hold keys, skipping over each one's keys rather than reading them.
func (n *Namespace) Names() ([]string, error) {
	if err := n.db.acquire(); err != nil {
		return nil, err
	}
	defer n.db.release()

	children := append(bytes.Clone(n.path), tagName)
	it := n.db.ldb.NewIterator(util.BytesPrefix(children), nil)
	defer it.Release()
	var names []string
	for ok := it.First(); ok; {
		rest := it.Key()[len(children):]
		size, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < size {
			return nil, fmt.Errorf("names: malformed key %x", it.Key())
		}
		names = append(names, string(rest[w:w+int(size)]))
		// Every key of that namespace is its path and a tag byte, at most
		// tagName: seek past them all.
		end := len(children) + w + int(size)
		ok = it.Seek(append(it.Key()[:end:end], tagName+1))
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("names: %w", mapErr(err))
	}
	slices.Sort(names) // the keys order them by length first
	return names, nil
}
