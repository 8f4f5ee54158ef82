package storage

import (
	"errors"

	"github.com/syndtr/goleveldb/leveldb"
)

// Batch collects puts and deletes that DB.Write applies atomically. A
// Batch is a view of the shared operations bound to one namespace; In
// returns a view bound to another, so one batch can write several
// namespaces. A Batch is not safe for concurrent use.
type Batch struct {
	ns   *Namespace
	data *batchData
}

// batchData is what the views of one batch share.
type batchData struct {
	db      *DB
	lb      leveldb.Batch
	size    int
	err     error
	scratch []byte // reused for prefixed keys; leveldb.Batch copies them
}

// fullKey returns ns's database key of key in the shared scratch buffer.
func (d *batchData) fullKey(ns *Namespace, key []byte) []byte {
	d.scratch = append(append(d.scratch[:0], ns.keys...), key...)
	return d.scratch
}

// NewBatch returns an empty batch whose Put and Delete write to n.
func (n *Namespace) NewBatch() *Batch {
	return &Batch{ns: n, data: &batchData{db: n.db}}
}

// In returns a view of the same batch whose Put and Delete write to ns.
func (b *Batch) In(ns *Namespace) *Batch {
	if ns.db != b.data.db && b.data.err == nil {
		b.data.err = errors.New("batch mixes namespaces of two databases")
	}
	return &Batch{ns: ns, data: b.data}
}

// Put records storing value under key in the view's namespace; key and
// value are copied.
func (b *Batch) Put(key, value []byte) *Batch {
	k := b.data.fullKey(b.ns, key)
	b.data.lb.Put(k, value)
	b.data.size += len(k) + len(value)
	return b
}

// Delete records removing key from the view's namespace.
func (b *Batch) Delete(key []byte) *Batch {
	k := b.data.fullKey(b.ns, key)
	b.data.lb.Delete(k)
	b.data.size += len(k)
	return b
}

// Len returns the number of operations in the whole batch.
func (b *Batch) Len() int { return b.data.lb.Len() }

// Size returns the bytes of keys (with namespace prefixes) and values in
// the whole batch.
func (b *Batch) Size() int { return b.data.size }

// Reset empties the whole batch so it can be reused.
func (b *Batch) Reset() {
	b.data.lb.Reset()
	b.data.size = 0
	b.data.err = nil
}
