package chaindb

import (
	"github.com/ava-labs/avalanchego/database"

	"github.com/chainhost/chainhost/core/storage"
)

var _ database.Batch = (*Batch)(nil)

// Batch collects writes to a DB that Write applies atomically. It keeps
// the operations as the VM gave them, because Replay must give them back
// in order and without the namespace's prefix; they become a storage batch
// when written. A Batch is not safe for concurrent use.
type Batch struct {
	db  *DB
	ops database.BatchOps
}

// Put records storing value under key; key and value are copied.
func (b *Batch) Put(key, value []byte) error { return b.ops.Put(key, value) }

// Delete records removing key; key is copied.
func (b *Batch) Delete(key []byte) error { return b.ops.Delete(key) }

// Size returns the bytes of the keys and values recorded.
func (b *Batch) Size() int { return b.ops.Size() }

// Reset empties the batch so it can be reused.
func (b *Batch) Reset() { b.ops.Reset() }

// Replay gives the recorded operations, in order, to w.
func (b *Batch) Replay(w database.KeyValueWriterDeleter) error { return b.ops.Replay(w) }

// Inner returns b: it writes to the base database.
func (b *Batch) Inner() database.Batch { return b }

// Write applies the batch atomically, without waiting for the disk (see
// DB).
func (b *Batch) Write() error {
	if b.db.closed.Load() {
		return database.ErrClosed
	}
	sb := b.db.ns.NewBatch()
	b.AddTo(sb)
	return dbErr(b.db.ns.DB().Write(sb, false))
}

// AddTo records b's operations, in the chain's namespace, in sb, so that
// they are written atomically with sb's other writes: shared memory
// commits a VM's batch with its own in one storage.DB.Write. It does not
// write, nor change b; sb must belong to the same storage.DB, or its Write
// fails.
func (b *Batch) AddTo(sb *storage.Batch) {
	in := sb.In(b.db.ns)
	for _, op := range b.ops.Ops {
		if op.Delete {
			in.Delete(op.Key)
		} else {
			in.Put(op.Key, op.Value)
		}
	}
}
