// Package series keeps the metrics module's series current: it finds the
// node's chains in the host's chain registry (also those that start
// later), follows the block index of each chain whose block format it
// reads from its first block, then live, and counts every block into its
// UTC day in the store, once; of a P-Chain it also stores, after each
// block, the staking totals of every subnet that changed, by hour
// (docs/metrics-api.md, "How the series are computed").
package series

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Options configures a Follower.
type Options struct {
	// Host is where the chains are found and their indexes read.
	Host host.Services
	// Store receives the counts.
	Store *store.Store
	// Clock is the module's clock (lastRun); nil is time.Now.
	Clock func() time.Time
	// Logger; nil discards.
	Logger hclog.Logger
	// Batch is the most blocks counted in one write; 0: 256.
	Batch int
	// RetryMin and RetryMax bound the pause before a chain's reading
	// starts over after a failure; 0: 500ms and 30s.
	RetryMin, RetryMax time.Duration
}

// Chain is a chain the series cover, as the API and health see it.
type Chain struct {
	// Info is the chain as the registry describes it.
	Info host.ChainInfo
	// Counted is how many of its blocks are counted; Seen how many its
	// index holds, as far as the feed has shown.
	Counted, Seen uint64
	// Err is why reading last stopped; nil while it runs.
	Err error
	// Staking is true for a P-Chain, whose staking series are kept;
	// StakingRead is how many of its blocks they have read, StakingErr
	// why their reading last stopped.
	Staking     bool
	StakingRead uint64
	StakingErr  error
}

// Follower follows the block index of every chain with a known block
// format.
type Follower struct {
	opts Options
	log  hclog.Logger

	stop context.CancelFunc
	wg   sync.WaitGroup

	mu       sync.RWMutex
	chains   map[ids.ID]*chain
	watchErr error
}

// chain is one followed chain.
type chain struct {
	id      ids.ID // never changes; info does, under the follower's lock
	name    string // primary alias, for logs
	info    host.ChainInfo
	decode  decoder
	counted atomic.Uint64
	seen    atomic.Uint64
	err     atomic.Pointer[error]
	staking *reader // of a P-Chain only
}

// reader is the state of one reading of a chain's index.
type reader struct {
	read atomic.Uint64 // blocks read
	err  atomic.Pointer[error]
}

// New returns a follower; Start starts it.
func New(opts Options) *Follower {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	if opts.RetryMin <= 0 {
		opts.RetryMin = 500 * time.Millisecond
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 30 * time.Second
	}
	return &Follower{opts: opts, log: opts.Logger, chains: map[ids.ID]*chain{}}
}

// Start follows the chains of the registry and watches it for more,
// until Stop.
func (f *Follower) Start(ctx context.Context) error {
	list, err := f.opts.Host.Chains.List(ctx)
	if err != nil {
		return fmt.Errorf("list chains: %w", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	f.stop = stop
	for _, c := range list {
		f.see(runCtx, c)
	}
	f.wg.Go(func() { f.watch(runCtx) })
	return nil
}

// Stop stops following.
func (f *Follower) Stop() {
	if f.stop != nil {
		f.stop()
	}
	f.wg.Wait()
}

// watchRetry is the pause before the chain watch starts again.
const watchRetry = time.Second

// watch keeps the chain list current until ctx ends.
func (f *Follower) watch(ctx context.Context) {
	for ctx.Err() == nil {
		err := f.opts.Host.Chains.Watch(ctx, func(ev host.ChainEvent) error {
			f.see(ctx, ev.Chain)
			f.mu.Lock()
			f.watchErr = nil
			f.mu.Unlock()
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		f.watchErr = err
		f.mu.Unlock()
		f.log.Warn("chain watch ended; watching again", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(watchRetry):
		}
	}
}

// see records a chain of the registry and starts following it when it is
// new and its blocks can be read.
func (f *Follower) see(ctx context.Context, info host.ChainInfo) {
	dec, ok := decoders[info.VMName]
	if !ok || !slices.Contains(info.IndexKinds, blockKind) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, known := f.chains[info.ID]; known {
		c.info = info
		return
	}
	c := &chain{id: info.ID, name: alias(info), info: info, decode: dec}
	f.chains[info.ID] = c
	f.wg.Go(func() { f.run(ctx, c, "counting", &c.err, f.follow) })
	if info.VMName == pvmapi.VMName {
		c.staking = &reader{}
		f.wg.Go(func() { f.run(ctx, c, "staking totals", &c.staking.err, f.followStaking) })
	}
}

// Chains returns the followed chains, by primary alias.
func (f *Follower) Chains() []Chain {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]Chain, 0, len(f.chains))
	for _, c := range f.chains {
		ch := Chain{Info: c.info, Counted: c.counted.Load(), Seen: c.seen.Load()}
		if e := c.err.Load(); e != nil {
			ch.Err = *e
		}
		if c.staking != nil {
			ch.Staking, ch.StakingRead = true, c.staking.read.Load()
			if e := c.staking.err.Load(); e != nil {
				ch.StakingErr = *e
			}
		}
		out = append(out, ch)
	}
	sort.Slice(out, func(i, j int) bool { return alias(out[i].Info) < alias(out[j].Info) })
	return out
}

// Health is the error of the chain watch, if it is down.
func (f *Follower) Health() error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.watchErr != nil {
		return fmt.Errorf("chain watch: %w", f.watchErr)
	}
	return nil
}

// alias is a chain's primary alias, or its ID.
func alias(c host.ChainInfo) string {
	if len(c.Aliases) > 0 {
		return c.Aliases[0]
	}
	return c.ID.String()
}

// run reads a chain with follow until ctx ends, starting over after a
// failure (with a growing pause) from the progress in the store; errp
// keeps the last failure.
func (f *Follower) run(ctx context.Context, c *chain, what string, errp *atomic.Pointer[error], follow func(context.Context, *chain) error) {
	pause := f.opts.RetryMin
	for ctx.Err() == nil {
		started := time.Now()
		err := follow(ctx, c)
		if ctx.Err() != nil {
			return
		}
		errp.Store(&err)
		f.log.Warn("reading a chain's blocks stopped; starting over", "chain", c.name, "for", what, "error", err, "retry_in", pause)
		if time.Since(started) > f.opts.RetryMax {
			pause = f.opts.RetryMin
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, f.opts.RetryMax)
	}
}

// follow counts the chain's blocks from the stored progress on, live.
func (f *Follower) follow(ctx context.Context, c *chain) error {
	p, err := f.opts.Store.Progress(c.id)
	if err != nil {
		return err
	}
	c.counted.Store(p.Next)
	blocks := make([]store.Block, 0, f.opts.Batch)
	return f.feed(ctx, c, p.Next, func(batch []host.Container) error {
		blocks = blocks[:0]
		for _, ct := range batch {
			b, err := c.decode(ct.Bytes)
			if err != nil {
				return fmt.Errorf("block at index %d (%s): %w", ct.Index, ct.ID, err)
			}
			blocks = append(blocks, b)
		}
		if p, err = f.opts.Store.Add(c.id, p, blocks, f.opts.Clock()); err != nil {
			return err
		}
		c.counted.Store(p.Next)
		c.err.Store(nil)
		return nil
	})
}

// feed reads the chain's block index from position from on, live, and
// hands the blocks to use in order. The feed runs ahead of use by up to a
// batch, so that use takes batches while catching up and single blocks
// when live.
func (f *Follower) feed(ctx context.Context, c *chain, from uint64, use func([]host.Container) error) error {
	storeMax(&c.seen, from)
	containers := make(chan host.Container, f.opts.Batch)
	feedErr := make(chan error, 1)
	// The feed ends before feed returns: cancel, then wait.
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() {
		feedErr <- f.opts.Host.Index.Feed(ctx, c.id.String(), blockKind, from, true, func(ct host.Container) error {
			storeMax(&c.seen, ct.Index+1)
			select {
			case containers <- ct:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	})
	batch := make([]host.Container, 0, f.opts.Batch)
	next := from
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-feedErr:
			if err == nil || errors.Is(err, context.Canceled) {
				return ctx.Err()
			}
			return fmt.Errorf("index feed: %w", err)
		case ct := <-containers:
			batch = append(batch[:0], ct)
		}
		// Take what else is waiting, up to a batch.
	more:
		for len(batch) < f.opts.Batch {
			select {
			case ct := <-containers:
				batch = append(batch, ct)
			default:
				break more
			}
		}
		for _, ct := range batch {
			if ct.Index != next {
				return fmt.Errorf("index feed: position %d, want %d", ct.Index, next)
			}
			next++
		}
		if err := use(batch); err != nil {
			return err
		}
	}
}

// storeMax raises a to v.
func storeMax(a *atomic.Uint64, v uint64) {
	for {
		old := a.Load()
		if old >= v || a.CompareAndSwap(old, v) {
			return
		}
	}
}
