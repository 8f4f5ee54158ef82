// Package series keeps the metrics module's series current: it finds the
// node's chains in the host's chain registry (also those that start
// later), follows the block index of each chain whose VM tells its blocks'
// times and transaction counts (sdk/blockinfo) from its first block, then
// live, and counts every block into its UTC day in the store, once, and
// every block of an EVM chain, read whole, into the buckets of its chain
// metrics in the same write; of a P-Chain it also stores, after each
// block, the staking totals of every subnet that changed, by hour. It counts the external EVM chains of the
// config the same way, reading their blocks from their nodes' JSON-RPC
// (docs/metrics-api.md, "How the series are computed", "External
// chains").
package series

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/blockinfo"
	"github.com/chainhost/chainhost/sdk/follow"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// blockKind is the index kind of every chain's accepted blocks.
const blockKind = "block"

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
	// starts over after a failure; 0: follow.DefaultRetryMin and
	// DefaultRetryMax.
	RetryMin, RetryMax time.Duration
	// External are the EVM chains of other nodes counted beside the
	// node's own, their limits defaulted (evmremote.Chain.WithDefaults).
	External []evmremote.Chain
	// Poll is how often an external chain's head is asked for; 0:
	// DefaultPoll.
	Poll time.Duration
}

// Chain is a chain the series cover, as the API and health see it.
type Chain struct {
	// Info is the chain as the registry describes it.
	Info host.ChainInfo
	// Followed is when the module began following the chain, at its own
	// start or the chain's (unix seconds, the module's clock): the start
	// of its current run over the chain.
	Followed int64
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
	// ValidationsRead is how many of a P-Chain's blocks its validations
	// were read from, ValidationsErr why their reading last stopped.
	ValidationsRead uint64
	ValidationsErr  error
	// External is the config of a chain read through its JSON-RPC: an
	// external chain (docs/metrics-api.md, "External chains"), or a chain
	// of the node whose VM is not chainhost's ("Chains of avalanchego VM
	// plugins", Node set); nil for the others.
	External *evmremote.Chain
	// Node is set for a chain of the node read through its JSON-RPC.
	Node bool
	// Trail is how far the counts of a chain read through its JSON-RPC
	// trail its head: "finalized", or a number of blocks.
	Trail any
}

// Follower follows the block index of every chain whose VM tells its
// blocks.
type Follower struct {
	opts  Options
	log   hclog.Logger
	watch *follow.Chains
	wg    sync.WaitGroup // the readings
	// stopExternal ends the readings of the external chains.
	stopExternal context.CancelFunc

	mu     sync.RWMutex
	chains map[ids.ID]*chain
	// probed holds the running chains of the node probed for eth_chainId
	// since they started (nodechains.go).
	probed map[ids.ID]bool
}

// chain is one followed chain.
type chain struct {
	id       ids.ID // never changes; info does, under the follower's lock
	vm       string // the VM's name, which never changes: read without the lock
	name     string // primary alias, for logs
	followed int64  // Chain.Followed
	info     host.ChainInfo
	// unread is set when the chain's VM turns out not to serve
	// blockinfo.Method: the chain has no series.
	unread  atomic.Bool
	counted atomic.Uint64
	seen    atomic.Uint64
	err     atomic.Pointer[error]
	staking *reader // of a P-Chain only
	// validations reads a P-Chain's validations; of a P-Chain only.
	validations *reader
	ext         *external // of an external chain only
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
	return &Follower{opts: opts, log: opts.Logger, watch: &follow.Chains{Registry: opts.Host.Chains, Logger: opts.Logger}, chains: map[ids.ID]*chain{}, probed: map[ids.ID]bool{}}
}

// Start follows the external chains and the chains of the registry, and
// watches the registry for more, until Stop.
func (f *Follower) Start(ctx context.Context) error {
	extCtx, stop := context.WithCancel(context.Background())
	f.stopExternal = stop
	if err := f.startExternal(extCtx); err != nil {
		return err
	}
	return f.watch.Start(ctx, f.see)
}

// Stop stops following.
func (f *Follower) Stop() {
	f.watch.Stop()
	if f.stopExternal != nil {
		f.stopExternal()
	}
	f.wg.Wait()
}

// see records a chain of the registry and starts following it when it is
// new and has a block index and the internal handler its blocks are read
// from.
func (f *Follower) see(ctx context.Context, info host.ChainInfo) {
	if !slices.Contains(info.IndexKinds, blockKind) || !slices.Contains(info.InternalHandlers, blockinfo.Handler) {
		f.seeRPC(ctx, info)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, known := f.chains[info.ID]; known {
		if c.ext != nil {
			f.log.Warn("a chain of the node has the blockchain ID of an external chain: only the external chain is counted", "chain", alias(info), "external", c.name)
			return
		}
		c.info = info
		return
	}
	c := &chain{id: info.ID, vm: info.VMName, name: alias(info), followed: f.opts.Clock().Unix(), info: info}
	f.chains[info.ID] = c
	f.wg.Go(func() { f.run(ctx, c, "counting", &c.err, f.follow) })
	if info.VMName == pvmapi.VMName {
		c.staking, c.validations = &reader{}, &reader{}
		f.wg.Go(func() { f.run(ctx, c, "staking totals", &c.staking.err, f.followStaking) })
		f.wg.Go(func() { f.run(ctx, c, "validations", &c.validations.err, f.followValidations) })
	}
}

// Chains returns the followed chains, by primary alias.
func (f *Follower) Chains() []Chain {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]Chain, 0, len(f.chains))
	for _, c := range f.chains {
		if c.unread.Load() {
			continue
		}
		ch := Chain{Info: c.info, Followed: c.followed, Counted: c.counted.Load(), Seen: c.seen.Load()}
		if e := c.err.Load(); e != nil {
			ch.Err = *e
		}
		if c.ext != nil {
			cfg := c.ext.cfg
			ch.External, ch.Node, ch.Trail = &cfg, c.ext.node, c.ext.trailing()
		}
		if c.staking != nil {
			ch.Staking, ch.StakingRead = true, c.staking.read.Load()
			if e := c.staking.err.Load(); e != nil {
				ch.StakingErr = *e
			}
			ch.ValidationsRead = c.validations.read.Load()
			if e := c.validations.err.Load(); e != nil {
				ch.ValidationsErr = *e
			}
		}
		out = append(out, ch)
	}
	sort.Slice(out, func(i, j int) bool { return alias(out[i].Info) < alias(out[j].Info) })
	return out
}

// Health is the error of the chain watch, if it is down.
func (f *Follower) Health() error { return f.watch.Err() }

// alias is a chain's primary alias, or its ID.
func alias(c host.ChainInfo) string {
	if len(c.Aliases) > 0 {
		return c.Aliases[0]
	}
	return c.ID.String()
}

// run reads a chain with read until ctx ends or read returns nil,
// starting over after a failure (with a growing pause) from the progress
// in the store; errp keeps the last failure.
func (f *Follower) run(ctx context.Context, c *chain, what string, errp *atomic.Pointer[error], read func(context.Context, *chain) error) {
	retry := follow.Retry{Min: f.opts.RetryMin, Max: f.opts.RetryMax}
	retry.Run(ctx, func(ctx context.Context) error { return read(ctx, c) }, func(err error, pause time.Duration) {
		errp.Store(&err)
		f.log.Warn("reading a chain's blocks stopped; starting over", "chain", c.name, "for", what, "error", err, "retry_in", pause)
	})
}

// blocks follows c's block index, reading its positions with read.
func blocks[T any](f *Follower, c *chain, read follow.Read[T]) follow.Blocks[T] {
	return follow.Blocks[T]{
		Index: f.opts.Host.Index, Chain: c.id.String(), Kind: blockKind, Read: read, Batch: f.opts.Batch,
		Accepted: func(n uint64) { storeMax(&c.seen, n) },
	}
}

// follow counts the chain's blocks from the stored progress on, live,
// reading their times and transaction counts from the chain's VM, and of
// an EVM chain the whole blocks its chain metrics count. A chain whose VM
// does not tell them has no series: follow returns nil.
func (f *Follower) follow(ctx context.Context, c *chain) error {
	p, err := f.progress(c.id, c.vm == evmapi.VMName)
	if err != nil {
		return err
	}
	c.counted.Store(p.Next)
	storeMax(&c.seen, p.Next)
	read := f.readCounts(c)
	err = blocks(f, c, read).Run(ctx, p.Next, func(_ uint64, counts []store.Block) error {
		if p, err = f.opts.Store.Add(c.id, p, counts, f.opts.Clock()); err != nil {
			return err
		}
		c.counted.Store(p.Next)
		c.err.Store(nil)
		return nil
	})
	if errors.Is(err, blockinfo.ErrNotServed) {
		f.log.Info("the chain's VM does not tell its blocks: no series", "chain", c.name, "vm", c.vm)
		c.unread.Store(true)
		return nil
	}
	return err
}

// progress returns how far a chain is counted. An EVM chain counted
// before the module kept the chain metrics is counted again from its
// first block, once (docs/metrics-api.md, "Storage").
func (f *Follower) progress(id ids.ID, evm bool) (store.Progress, error) {
	p, err := f.opts.Store.Progress(id)
	if err != nil || !evm || p.Next == 0 {
		return p, err
	}
	has, err := f.opts.Store.HasChainMetrics(id)
	if err != nil || has {
		return p, err
	}
	f.log.Info("counting the chain again from its first block, for its chain metrics", "chain", id, "counted", p.Next)
	if err := f.opts.Store.ResetCounts(id); err != nil {
		return p, err
	}
	return store.Progress{EVMChainID: p.EVMChainID}, nil
}

// readCounts returns the reading of a chain's blocks at positions of its
// index: an EVM chain's whole blocks (position p holds block p+1), the
// light read of the others' (blockinfo).
func (f *Follower) readCounts(c *chain) follow.Read[store.Block] {
	if c.vm == evmapi.VMName {
		return func(ctx context.Context, from uint64, count int) ([]store.Block, error) {
			got, err := getEVMBlocks(ctx, f.opts.Host.Calls, c.id.String(), from+1, count)
			if err != nil {
				return nil, err
			}
			out := make([]store.Block, len(got))
			for i := range got {
				out[i] = evmCounts(&got[i])
			}
			return out, nil
		}
	}
	return func(ctx context.Context, from uint64, count int) ([]store.Block, error) {
		got, err := blockinfo.Get(ctx, f.opts.Host.Calls, c.id.String(), from, count)
		if err != nil {
			return nil, err
		}
		out := make([]store.Block, len(got))
		for i, b := range got {
			out[i] = store.Block{Time: b.Time, Txs: b.Txs}
		}
		return out, nil
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
