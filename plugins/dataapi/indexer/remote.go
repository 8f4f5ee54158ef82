package indexer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/follow"
	"github.com/chainhost/chainhost/sdk/host"
)

// remote is what a follower of an external chain (one another node runs,
// reached by its JSON-RPC URL) keeps beside the common follower
// (docs/data-api.md, "Indexing a chain of another node").
type remote struct {
	cfg    evmremote.Chain
	client *evmremote.Client
	head   atomic.Uint64 // the upstream's latest block seen

	mu    sync.Mutex
	state string // the upstream's state last logged: "" while it answers
}

// where names the upstream in messages: its URL, or the chain of the node.
func (r *remote) where() string {
	if r.cfg.RPCURL != "" {
		return r.cfg.RPCURL
	}
	return "chain " + r.cfg.Name + " of the node"
}

// errRefused marks a failure that starting over does not mend: the
// configured chain is not the one the upstream or the store holds.
type errRefused struct{ err error }

func (e *errRefused) Error() string { return e.err.Error() }
func (e *errRefused) Unwrap() error { return e.err }

// forkError says the upstream no longer has the indexed block At: the
// chain reorganised at or below it.
type forkError struct{ At uint64 }

func (e *forkError) Error() string {
	return fmt.Sprintf("the upstream's block %d is not the one indexed: the chain reorganised", e.At)
}

// externalInfo is the registry entry an external chain is shown with: its
// name is its alias; it runs while the upstream answers.
func externalInfo(c evmremote.Chain) host.ChainInfo {
	id, _ := c.ID() // checked by ValidateList
	return host.ChainInfo{ID: id, VMName: evmapi.VMName, Aliases: []string{c.Name}, Handlers: wsHandlers(c)}
}

// wsHandlers lists "ws" for a chain that has a WebSocket URL to advertise.
func wsHandlers(c evmremote.Chain) []string {
	if c.WSURL != "" || c.PublicWSURL != "" {
		return []string{"rpc", "ws"}
	}
	return []string{"rpc"}
}

// followRemote indexes an external chain from the store's state until
// ctx ends or something fails; a fork is rolled back and following goes
// on.
func (f *follower) followRemote(ctx context.Context) error {
	r := f.remote
	state, err := f.x.store.State(ctx, f.chain)
	if err != nil {
		return err
	}
	if state.EVMChainID != 0 && state.EVMChainID != r.cfg.ChainID {
		return &errRefused{fmt.Errorf("the store holds a chain named %q with EVM chain ID %d, the config says chain-id %d: "+
			"refusing to index another chain under the same name (give it another name)", r.cfg.Name, state.EVMChainID, r.cfg.ChainID)}
	}
	got, err := r.client.ChainID(ctx)
	if err != nil {
		return err
	}
	if got != r.cfg.ChainID {
		return &errRefused{fmt.Errorf("%s answers eth_chainId %d, the config says chain-id %d: refusing to index it",
			r.where(), got, r.cfg.ChainID)}
	}
	state.EVMChainID = r.cfg.ChainID
	f.x.setProgress(f.chain, state)
	f.x.setRunning(f.chain, true)
	for {
		err := f.readRemote(ctx, &state)
		var fork *forkError
		if !errors.As(err, &fork) {
			return err
		}
		if state, err = f.rollback(ctx, fork.At); err != nil {
			return err
		}
	}
}

// readRemote reads and indexes the blocks after state as the upstream's
// head grows, updating state, until something fails.
func (f *follower) readRemote(ctx context.Context, state *store.ChainState) error {
	r := f.remote
	next := max(state.Next, r.cfg.StartBlock)
	blocks := follow.Blocks[evmapi.Block]{
		Chain: f.name, Kind: blockKind, Batch: r.cfg.BlocksPerRequest, InFlight: r.cfg.RequestsInFlight,
		Read: func(ctx context.Context, from uint64, count int) ([]evmapi.Block, error) {
			begin := time.Now()
			bs, err := r.client.Blocks(ctx, from, count)
			f.x.metrics.fetchSeconds.WithLabelValues(f.name).Observe(time.Since(begin).Seconds())
			return bs, err
		},
		Feed: func(ctx context.Context, raise func(uint64)) error { return f.watchHead(ctx, raise) },
		// Position n of the feed is block n: n positions end at block n-1.
		Accepted: func(n uint64) { f.x.setAccepted(f.chain, n-1) },
	}
	return blocks.Run(ctx, next, func(from uint64, bs []evmapi.Block) error {
		if h, ok := state.Height(); ok && h+1 == from {
			prev, err := f.x.store.Block(ctx, f.chain, h)
			if err != nil {
				return fmt.Errorf("read indexed block %d: %w", h, err)
			}
			if bs[0].ParentHash != prev.Hash {
				return &forkError{At: h}
			}
		}
		var err error
		*state, err = f.index(ctx, *state, bs)
		if err == nil {
			f.answered()
		}
		return err
	})
}

// undo sets what b keeps to roll its blocks back: the blocks the upstream
// may still abandon (within max-reorg-depth of its head) keep their undo
// records, and the records of blocks below that depth are dropped.
func (r *remote) undo(b *store.Batch) {
	head, depth := r.head.Load(), r.cfg.MaxReorgDepth
	if n := len(b.Blocks); n > 0 && b.Blocks[n-1].Number+depth >= head {
		b.Undo = true
	}
	if head > depth {
		b.PruneUndoBelow = head - depth
	}
}

// watchHead raises the count of blocks to index as the upstream's head
// grows (by subscription when the chain has a WebSocket URL, polling
// otherwise), and fails with a forkError when the upstream no longer has
// the last block indexed.
func (f *follower) watchHead(ctx context.Context, raise func(uint64)) error {
	r := f.remote
	check := func() error {
		head, target, err := f.target(ctx)
		if err != nil {
			return err
		}
		r.head.Store(head.Number)
		if err := f.checkTip(ctx, head); err != nil {
			return err
		}
		if target+1 > r.cfg.StartBlock {
			raise(target + 1)
		}
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	var heads <-chan *types.Header
	var subErr <-chan error
	if r.cfg.WSURL != "" {
		ws, err := ethclient.DialContext(ctx, r.cfg.WSURL)
		if err != nil {
			return fmt.Errorf("connect to %s: %w", r.cfg.WSURL, err)
		}
		defer ws.Close()
		ch := make(chan *types.Header, 16)
		sub, err := ws.SubscribeNewHead(ctx, ch)
		if err != nil {
			return fmt.Errorf("subscribe to new heads at %s: %w", r.cfg.WSURL, err)
		}
		defer sub.Unsubscribe()
		heads, subErr = ch, sub.Err()
	}
	// With a subscription, the poll is a safety net only.
	poll := follow.PollInterval
	if heads != nil {
		poll = wsSafetyPoll
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-subErr:
			return fmt.Errorf("new heads subscription at %s: %w", r.cfg.WSURL, err)
		case <-heads:
		case <-time.After(poll):
		}
		if err := check(); err != nil {
			return err
		}
	}
}

// wsSafetyPoll is how often a chain followed by subscription is polled
// all the same, in case a notification is lost.
const wsSafetyPoll = 10 * time.Second

// target returns the upstream's latest header and the last block to
// index: the head, confirmations below it, or the finalized block.
func (f *follower) target(ctx context.Context) (evmremote.Header, uint64, error) {
	r := f.remote
	head, err := r.client.Head(ctx, "latest")
	if err != nil {
		return head, 0, err
	}
	switch {
	case r.cfg.Finalized:
		fin, err := r.client.Head(ctx, "finalized")
		if err != nil {
			return head, 0, fmt.Errorf("read the finalized block (finalized: true): %w", err)
		}
		return head, fin.Number, nil
	case head.Number < r.cfg.Confirmations:
		return head, 0, nil
	}
	return head, head.Number - r.cfg.Confirmations, nil
}

// checkTip compares the last block indexed, or the upstream's head when
// that is lower, with the upstream's block of the same number.
func (f *follower) checkTip(ctx context.Context, head evmremote.Header) error {
	height, ok := f.x.height(f.chain)
	if !ok {
		return nil
	}
	n := min(height, head.Number)
	stored, err := f.x.store.Block(ctx, f.chain, n)
	if errors.Is(err, store.ErrNotFound) {
		return nil // below start-block
	}
	if err != nil {
		return fmt.Errorf("read indexed block %d: %w", n, err)
	}
	up := head
	if n != head.Number {
		hs, err := f.remote.client.Headers(ctx, n, 1)
		if err != nil {
			return err
		}
		if len(hs) == 0 {
			return nil // the upstream is behind: wait
		}
		up = hs[0]
	}
	if up.Hash != stored.Hash {
		return &forkError{At: n}
	}
	return nil
}

// rollback finds where the indexed chain and the upstream's part, at or
// below block at, and removes what was indexed from there on, in one
// write of the store; it returns the new state.
func (f *follower) rollback(ctx context.Context, at uint64) (store.ChainState, error) {
	r := f.remote
	// The depth counts from the last block indexed: the fork's common
	// block is floor or above.
	old, _ := f.x.height(f.chain)
	floor := r.cfg.StartBlock
	if old > r.cfg.MaxReorgDepth {
		floor = max(floor, old-r.cfg.MaxReorgDepth)
	}
	// fork is the lowest block seen to differ; at+1 while none does (the
	// upstream went back to the indexed branch meanwhile).
	fork, found := at+1, false
	for hi := at + 1; hi > floor && !found; {
		lo := max(floor, hi-min(hi-floor, uint64(r.cfg.BlocksPerRequest)))
		hs, err := r.client.Headers(ctx, lo, int(hi-lo))
		if err != nil {
			return store.ChainState{}, err
		}
		for i := len(hs) - 1; i >= 0; i-- {
			stored, err := f.x.store.Block(ctx, f.chain, hs[i].Number)
			if err != nil {
				return store.ChainState{}, fmt.Errorf("read indexed block %d: %w", hs[i].Number, err)
			}
			if stored.Hash == hs[i].Hash {
				found = true
				break
			}
			fork = hs[i].Number
		}
		hi = lo
	}
	switch {
	case !found && fork == at+1:
		// Nothing compared: the upstream's chain ends below floor for now.
		return store.ChainState{}, fmt.Errorf("the upstream's head is below block %d, which is indexed: waiting for it to grow", floor)
	case !found && fork > r.cfg.StartBlock:
		return store.ChainState{}, &errRefused{fmt.Errorf("the chain reorganised below block %d, deeper than max-reorg-depth (%d): "+
			"give the chain another name, or remove the module's store, to index it afresh (docs/data-api.md, \"Indexing a chain of another node\")", fork, r.cfg.MaxReorgDepth)}
	}
	if fork > old {
		return f.x.store.State(ctx, f.chain)
	}
	state, err := f.x.store.Rollback(ctx, f.chain, fork)
	if errors.Is(err, store.ErrNoUndo) {
		return store.ChainState{}, &errRefused{fmt.Errorf("roll back from block %d: %w; "+
			"give the chain another name, or remove the module's store, to index it afresh (docs/data-api.md, \"Indexing a chain of another node\")", fork, err)}
	}
	if err != nil {
		return store.ChainState{}, fmt.Errorf("roll back from block %d: %w", fork, err)
	}
	// Metadata first read in an abandoned block is read again where the
	// new branch first shows it.
	clear(f.tokenCache)
	clear(f.nftCache)
	f.x.metrics.reorgs.WithLabelValues(f.name).Inc()
	f.x.log.Warn("the chain reorganised: rolled back the abandoned blocks", "chain", f.name, "from", fork, "blocks", old+1-fork)
	f.x.setProgress(f.chain, state)
	return state, nil
}

// failed records a failure of an external chain's follower and logs it
// when the upstream's state changed.
func (f *follower) failedRemote(err error, pause time.Duration) {
	r := f.remote
	state := evmremote.Classify(err)
	var refused *errRefused
	if errors.As(err, &refused) {
		state = "refused"
	}
	f.x.update(f.chain, func(c *Chain) { c.Info.Running, c.Upstream = false, state })
	r.mu.Lock()
	changed := state != r.state
	r.state = state
	r.mu.Unlock()
	if changed {
		f.x.log.Warn("the upstream of an external chain fails: serving what is indexed, trying again with backoff",
			"chain", f.name, "state", state, "error", err, "retry_in", pause.Round(time.Millisecond).String())
	}
}

// answered notes that the upstream answers again after a failure.
func (f *follower) answered() {
	r := f.remote
	r.mu.Lock()
	was := r.state
	r.state = ""
	r.mu.Unlock()
	if was != "" {
		f.x.update(f.chain, func(c *Chain) { c.Info.Running, c.Upstream = true, "" })
		f.x.log.Info("the upstream of an external chain answers again", "chain", f.name, "was", was)
	}
}
