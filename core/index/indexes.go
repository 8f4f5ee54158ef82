package index

import (
	"errors"
	"sync"
	"time"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Options configures New.
type Options struct {
	// NS is the namespace that holds every index, e.g. db.Namespace("index").
	// Only one Indexes may use it at a time.
	NS *storage.Namespace
	// DB is the database of NS; appends are written through it.
	DB *storage.DB
	// Now stamps containers appended without a timestamp; nil means
	// time.Now.
	Now func() time.Time
	// Sync flushes every append to disk before it returns. Without it a
	// crash of the process loses nothing, a crash of the machine may lose
	// the latest appends (together with the VM state written with them).
	Sync bool
}

// Indexes holds the container indexes of every (chain, kind) pair. It is
// safe for concurrent use.
type Indexes struct {
	opts   Options
	params filterParams // sizes the indexes' ID filters
	work   *workers     // builds the indexes' ID filters

	mu      sync.Mutex
	indexes map[indexKey]*Index
}

// indexKey names one index.
type indexKey struct {
	chain ids.ID
	kind  string
}

// New returns the indexes stored in opts.NS.
func New(opts Options) (*Indexes, error) {
	if opts.NS == nil || opts.DB == nil {
		return nil, errors.New("new indexes: a namespace and its database are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Indexes{
		opts:    opts,
		params:  defaultFilterParams(),
		work:    &workers{stop: make(chan struct{})},
		indexes: make(map[indexKey]*Index),
	}, nil
}

// Close stops the background work of the indexes, the building of their
// in-memory ID filters, and waits for it to return. The indexes stay
// usable: an append checks its IDs in the database where no filter is
// ready. Closing the database also stops that work; Close is for a caller
// that must know it has returned. Close may be called more than once.
func (x *Indexes) Close() {
	x.work.close()
}

// Index returns the index of containers of the given kind (such as "block",
// "tx" or "vtx") accepted by chain, creating it on first use. Every call
// with the same pair returns the same *Index.
func (x *Indexes) Index(chain ids.ID, kind string) *Index {
	key := indexKey{chain: chain, kind: kind}
	x.mu.Lock()
	defer x.mu.Unlock()
	if ix, ok := x.indexes[key]; ok {
		return ix
	}
	ix := &Index{
		chain:  chain,
		kind:   kind,
		ns:     x.opts.NS.Namespace(string(chain[:])).Namespace(kind),
		db:     x.opts.DB,
		now:    x.opts.Now,
		sync:   x.opts.Sync,
		params: x.params,
		work:   x.work,
		notify: make(chan struct{}),
	}
	x.indexes[key] = ix
	return ix
}
