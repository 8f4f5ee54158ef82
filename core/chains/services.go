package chains

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chainhost/chainhost/core/index"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// database is host.Database on the chain's storage namespace.
type database struct {
	db *storage.DB
	ns *storage.Namespace
}

func mapNotFound(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return host.ErrNotFound
	}
	return err
}

func (d database) Get(_ context.Context, key []byte) ([]byte, error) {
	v, err := d.ns.Get(key)
	return v, mapNotFound(err)
}

func (d database) Has(_ context.Context, key []byte) (bool, error) { return d.ns.Has(key) }

func (d database) Put(_ context.Context, key, value []byte) error { return d.ns.Put(key, value) }

func (d database) Delete(_ context.Context, key []byte) error { return d.ns.Delete(key) }

func (d database) Write(_ context.Context, ops []host.Op, sync bool) error {
	b := d.ns.NewBatch()
	addOps(b, ops)
	return d.db.Write(b, sync)
}

func addOps(b *storage.Batch, ops []host.Op) {
	for _, op := range ops {
		if op.Delete {
			b.Delete(op.Key)
		} else {
			b.Put(op.Key, op.Value)
		}
	}
}

func (d database) Iterate(ctx context.Context, prefix, start []byte, fn func(key, value []byte) error) error {
	return d.ns.Iterate(prefix, start, func(k, v []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(k, v)
	})
}

// chainIndex is host.Index for one chain.
type chainIndex struct {
	m     *Manager
	chain *Chain
	state *storage.Namespace
}

// Accept appends a container, with the VM's state writes, to the chain's
// index of kind. A legacy kind is refused. So is an append made while the
// host backfills the chain's index, with an error saying to retry: it would
// land before containers the VM accepted earlier. It is refused rather
// than held, because a VM may hold a lock that the backfill's calls to it
// need.
func (x chainIndex) Accept(_ context.Context, kind string, id ids.ID, bytes []byte, state []host.Op) (host.Accepted, error) {
	if x.chain.IsLegacyIndexKind(kind) {
		return host.Accepted{}, fmt.Errorf("chain %s: index kind %q is legacy (legacy-index-kinds in the chain config): "+
			"it is read-only and receives no new containers", x.chain.Alias, kind)
	}
	inst, _ := x.chain.Instance()
	if inst != nil && !slices.Contains(inst.IndexKinds(), kind) {
		return host.Accepted{}, fmt.Errorf("chain %s does not declare index kind %q", x.chain.Alias, kind)
	}
	x.chain.indexMu.RLock()
	defer x.chain.indexMu.RUnlock()
	if x.chain.backfilling {
		return host.Accepted{}, fmt.Errorf("chain %s: the host is backfilling the index from the VM's accepted history; "+
			"retry the append when it is done", x.chain.Alias)
	}
	now := time.Now()
	if x.m.opts.Indexes == nil {
		// Indexing is off: the VM's state writes still land.
		b := x.state.NewBatch()
		addOps(b, state)
		return host.Accepted{Timestamp: now}, x.m.opts.DB.Write(b, false)
	}
	c, err := x.m.opts.Indexes.Index(x.chain.ID, kind).Accept(id, bytes, now, func(b *storage.Batch) error {
		addOps(b.In(x.state), state)
		return nil
	})
	var dup *index.AlreadyIndexedError
	if errors.As(err, &dup) {
		return host.Accepted{}, fmt.Errorf("%w: %w", host.ErrAlreadyIndexed, err)
	}
	if err != nil {
		return host.Accepted{}, err
	}
	return host.Accepted{Index: c.Index, Timestamp: c.Timestamp}, nil
}

// AcceptBatch appends the batch's containers to the chain's indexes of
// their kinds, with the VM's state writes and the chain's shared-memory
// requests, in one atomic write (docs/shared-memory.md). It refuses as
// Accept does (legacy or undeclared kinds, a backfill in progress), and
// refuses shared-memory requests naming an unknown peer chain or
// contradicting shared memory; nothing is then written. With indexing off
// the state and shared-memory writes still land.
func (x chainIndex) AcceptBatch(_ context.Context, ab host.AcceptBatch) ([]host.Accepted, error) {
	if len(ab.Containers) == 0 {
		return nil, fmt.Errorf("chain %s: accept batch: no containers", x.chain.Alias)
	}
	inst, _ := x.chain.Instance()
	for _, ct := range ab.Containers {
		if x.chain.IsLegacyIndexKind(ct.Kind) {
			return nil, fmt.Errorf("chain %s: index kind %q is legacy (legacy-index-kinds in the chain config): "+
				"it is read-only and receives no new containers", x.chain.Alias, ct.Kind)
		}
		if inst != nil && !slices.Contains(inst.IndexKinds(), ct.Kind) {
			return nil, fmt.Errorf("chain %s does not declare index kind %q", x.chain.Alias, ct.Kind)
		}
	}
	for _, r := range ab.SharedMemory {
		if r.Peer == x.chain.ID {
			return nil, fmt.Errorf("chain %s: shared memory: the chain names itself as the peer", x.chain.Alias)
		}
		if _, ok := x.m.byID[r.Peer]; !ok {
			return nil, fmt.Errorf("chain %s: shared memory: unknown peer chain %s (not a chain of this node)", x.chain.Alias, r.Peer)
		}
	}
	sm := x.m.opts.SharedMemory
	if len(ab.SharedMemory) > 0 {
		if sm == nil {
			return nil, fmt.Errorf("chain %s: shared memory: %w", x.chain.Alias, host.ErrUnsupported)
		}
		// Held until the batch is written: two batches never both consume
		// one value.
		sm.Lock()
		defer sm.Unlock()
	}
	extra := func(b *storage.Batch) error {
		addOps(b.In(x.state), ab.State)
		if len(ab.SharedMemory) > 0 {
			if err := sm.Stage(b, x.chain.ID, ab.SharedMemory); err != nil {
				return fmt.Errorf("chain %s: %w", x.chain.Alias, err)
			}
		}
		return nil
	}
	x.chain.indexMu.RLock()
	defer x.chain.indexMu.RUnlock()
	if x.chain.backfilling {
		return nil, fmt.Errorf("chain %s: the host is backfilling the index from the VM's accepted history; "+
			"retry the append when it is done", x.chain.Alias)
	}
	now := time.Now()
	out := make([]host.Accepted, len(ab.Containers))
	if x.m.opts.Indexes == nil {
		// Indexing is off: the VM's state and shared memory still land.
		b := x.state.NewBatch()
		if err := extra(b); err != nil {
			return nil, err
		}
		for i := range out {
			out[i].Timestamp = now
		}
		return out, x.m.opts.DB.Write(b, false)
	}
	entries := make([]index.KindEntry, len(ab.Containers))
	for i, ct := range ab.Containers {
		entries[i] = index.KindEntry{Kind: ct.Kind, Entry: index.Entry{ID: ct.ID, Bytes: ct.Bytes, Timestamp: now}}
	}
	cs, err := x.m.opts.Indexes.AcceptAcross(x.chain.ID, entries, extra)
	var dup *index.AlreadyIndexedError
	if errors.As(err, &dup) {
		return nil, fmt.Errorf("%w: %w", host.ErrAlreadyIndexed, err)
	}
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		out[i] = host.Accepted{Index: c.Index, Timestamp: c.Timestamp}
	}
	return out, nil
}

func (x chainIndex) Feed(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(host.Container) error) error {
	target := x.chain
	if chain != "" {
		c, ok := x.m.Resolve(chain)
		if !ok {
			return notFound{fmt.Errorf("feed: unknown chain %q", chain)}
		}
		target = c
	}
	return x.m.feed(ctx, target, kind, start, follow, fn)
}

// feed streams c's index of kind from start; with follow it then waits for
// new containers until ctx ends.
func (m *Manager) feed(ctx context.Context, c *Chain, kind string, start uint64, follow bool, fn func(host.Container) error) error {
	ix, err := m.index(c, kind)
	if err != nil {
		return err
	}
	send := func(c index.Container) error {
		return fn(host.Container{ID: c.ID, Bytes: c.Bytes, Index: c.Index, Timestamp: c.Timestamp})
	}
	if follow {
		return ix.Subscribe(ctx, start, send)
	}
	n, err := ix.Len()
	if err != nil {
		return err
	}
	for i := start; i < n; i++ {
		c, err := ix.GetByIndex(i)
		if err != nil {
			return err
		}
		if err := send(c); err != nil {
			return err
		}
	}
	return nil
}

// feedPositions streams the positions of c's index of kind from start,
// reading no container; with follow it then waits for new ones until ctx
// ends.
func (m *Manager) feedPositions(ctx context.Context, c *Chain, kind string, start uint64, follow bool, fn func(uint64) error) error {
	ix, err := m.index(c, kind)
	if err != nil {
		return err
	}
	if follow {
		return ix.SubscribePositions(ctx, start, fn)
	}
	n, err := ix.Len()
	for i := start; err == nil && i < n; i++ {
		err = fn(i)
	}
	return err
}

// index returns c's index of kind, host.ErrNoIndex on a node without one.
func (m *Manager) index(c *Chain, kind string) (*index.Index, error) {
	if m.opts.Indexes == nil {
		return nil, fmt.Errorf("%w: indexing is disabled on this node (--index-enabled=false)", host.ErrNoIndex)
	}
	return m.opts.Indexes.Index(c.ID, kind), nil
}

// readerIndex is host.Index for a plugin that reads chains but belongs to
// none (a REST module): it feeds any chain's index, also positions alone
// (host.PositionIndex), and appends to none.
type readerIndex struct {
	m    *Manager
	name string
}

// Accept refuses: only a chain's VM appends to its own index.
func (x readerIndex) Accept(_ context.Context, kind string, id ids.ID, _ []byte, _ []host.Op) (host.Accepted, error) {
	return host.Accepted{}, fmt.Errorf("module %s: accept %s container %s: %w", x.name, kind, id, host.ErrReadOnly)
}

func (x readerIndex) Feed(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(host.Container) error) error {
	c, err := x.target(chain)
	if err != nil {
		return err
	}
	return x.m.feed(ctx, c, kind, start, follow, fn)
}

func (x readerIndex) FeedPositions(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(uint64) error) error {
	c, err := x.target(chain)
	if err != nil {
		return err
	}
	return x.m.feedPositions(ctx, c, kind, start, follow, fn)
}

// target is the chain a feed names; a module has none of its own.
func (x readerIndex) target(chain string) (*Chain, error) {
	if chain == "" {
		return nil, notFound{fmt.Errorf("module %s: feed: name the chain (a module has none of its own)", x.name)}
	}
	c, ok := x.m.Resolve(chain)
	if !ok {
		return nil, notFound{fmt.Errorf("feed: unknown chain %q", chain)}
	}
	return c, nil
}

// ReaderServices returns the host services of a plugin that reads the
// node's chains but runs none, a REST module called name: its database
// namespace ns, a feed of any chain's index (appends are refused), the
// chain registry and chain calls.
func (m *Manager) ReaderServices(name string, ns *storage.Namespace) host.Services {
	return host.Services{
		DB:     database{db: m.opts.DB, ns: ns},
		Index:  readerIndex{m: m, name: name},
		Chains: registry{m: m},
		Calls:  caller{m: m},
	}
}

// registry is host.ChainRegistry over the manager.
type registry struct{ m *Manager }

func (r registry) List(context.Context) ([]host.ChainInfo, error) { return r.m.infos(), nil }

func (r registry) Resolve(_ context.Context, alias string) (host.ChainInfo, error) {
	c, ok := r.m.Resolve(alias)
	if !ok {
		return host.ChainInfo{}, notFound{fmt.Errorf("unknown chain %q", alias)}
	}
	return r.m.info(c), nil
}

func (r registry) Watch(ctx context.Context, fn func(host.ChainEvent) error) error {
	return r.m.events.Watch(ctx, r.m.infos, fn)
}

// caller is host.ChainCaller: a JSON-RPC POST to a chain's handler, public
// or internal, served in-process through the same proxy the router uses.
type caller struct{ m *Manager }

func (c caller) Call(ctx context.Context, chain, handlerPath string, body []byte) (int, []byte, error) {
	target, ok := c.m.Resolve(chain)
	if !ok {
		return 0, nil, notFound{fmt.Errorf("unknown chain %q", chain)}
	}
	handler, path := host.SplitHandlerPath(handlerPath)
	return callHandler(ctx, target, handler, path, body)
}

// chainSharedMemory is host.SharedMemory for one chain: the values other
// chains put for it.
type chainSharedMemory struct {
	m     *Manager
	chain *Chain
}

func (s chainSharedMemory) Get(_ context.Context, peer ids.ID, keys [][]byte) ([][]byte, error) {
	return s.m.opts.SharedMemory.Get(s.chain.ID, peer, keys)
}

func (s chainSharedMemory) Indexed(_ context.Context, peer ids.ID, traits [][]byte, startTrait, startKey []byte, limit int) ([][]byte, []byte, []byte, error) {
	return s.m.opts.SharedMemory.Indexed(s.chain.ID, peer, traits, startTrait, startKey, limit)
}
