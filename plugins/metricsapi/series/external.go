package series

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/follow"
	"github.com/chainhost/chainhost/sdk/host"
)

// headerSource reads an external chain's blocks through the standard
// JSON-RPC of the node that runs it.
type headerSource interface {
	// ChainID is the node's eth_chainId.
	ChainID(ctx context.Context) (uint64, error)
	// Head is the number of the block a tag names: "latest" or
	// "finalized".
	Head(ctx context.Context, tag string) (uint64, error)
	// Blocks are the blocks from to from+count-1, in order, whole: their
	// transactions, receipts and call frames (as far as the node traces).
	Blocks(ctx context.Context, from uint64, count int) ([]evmapi.Block, error)
	// Close releases the connection.
	Close()
}

// DefaultPoll is how often an external chain's head is asked for.
const DefaultPoll = time.Second

// errWrongChain is the refusal of a node that runs another chain than the
// config names.
var errWrongChain = errors.New("refused: not the configured chain")

// external is what the follower keeps of an external chain.
type external struct {
	cfg evmremote.Chain
	src headerSource
	// tag is the block followed ("latest", or "finalized"), trail how many
	// blocks below it the counts stop (docs/metrics-api.md, "External
	// chains").
	tag   string
	trail uint64
	// node is set for a chain of the node, reached through chain calls;
	// wake, of such a chain only, ends a pause before the next attempt
	// when its plugin starts again.
	node bool
	wake chan struct{}
}

// newExternal returns the external chain of cfg (its limits defaulted).
func newExternal(cfg evmremote.Chain, src headerSource) *external {
	e := &external{cfg: cfg, src: src, tag: "latest", trail: cfg.Confirmations}
	switch {
	case cfg.Finalized:
		e.tag, e.trail = "finalized", 0
	case cfg.Confirmations == 0:
		e.trail = cfg.MaxReorgDepth
	}
	return e
}

// newNodeExternal returns a chain of the node read through its JSON-RPC
// (docs/metrics-api.md, "Chains of avalanchego VM plugins"): its latest
// block is one the node accepted, which it never abandons, so the counts
// trail nothing.
func newNodeExternal(cfg evmremote.Chain, src headerSource) *external {
	return &external{cfg: cfg, src: src, tag: "latest", node: true, wake: make(chan struct{}, 1)}
}

// trailing describes how far the counts trail the chain's head:
// "finalized", or a number of blocks.
func (e *external) trailing() any {
	if e.tag == "finalized" {
		return e.tag
	}
	return e.trail
}

// startExternal adds the external chains and starts counting them until
// ctx ends.
func (f *Follower) startExternal(ctx context.Context) error {
	for _, cfg := range f.opts.External {
		id, err := cfg.ID()
		if err != nil {
			return fmt.Errorf("external chain %s: %w", cfg.Name, err)
		}
		src, err := dialRPC(ctx, cfg)
		if err != nil {
			return err
		}
		info := host.ChainInfo{ID: id, Aliases: []string{cfg.Name}, Running: true}
		c := &chain{id: id, vm: info.VMName, name: cfg.Name, followed: f.opts.Clock().Unix(), info: info, ext: newExternal(cfg, src)}
		f.mu.Lock()
		f.chains[id] = c
		f.mu.Unlock()
		f.wg.Go(func() {
			defer src.Close()
			f.runExternal(ctx, c)
		})
	}
	return nil
}

// where names an external chain's upstream in logs: its URL, or the
// chain of the node.
func (e *external) where() string {
	if e.node {
		return "chain calls"
	}
	return e.cfg.RPCURL
}

// runExternal counts an external chain until ctx ends, starting over after
// a failure with a pause that doubles from RetryMin to RetryMax, each
// drawn between its half and itself so that many modules do not retry in
// step. It logs when the chain starts failing and when it answers again,
// not every attempt.
func (f *Follower) runExternal(ctx context.Context, c *chain) {
	lo, hi := f.opts.RetryMin, f.opts.RetryMax
	if lo <= 0 {
		lo = follow.DefaultRetryMin
	}
	if hi <= 0 {
		hi = follow.DefaultRetryMax
	}
	pause, failing := lo, false
	answered := func() {
		if failing {
			f.log.Info("external chain answers again", "chain", c.name, "url", c.ext.where())
			failing, pause = false, lo
		}
		c.err.Store(nil)
	}
	for {
		err := f.followExternal(ctx, c, answered)
		if ctx.Err() != nil {
			return
		}
		c.err.Store(&err)
		if !failing {
			failing = true
			log := f.log.Warn
			if errors.Is(err, errWrongChain) {
				log = f.log.Error
			}
			log("reading an external chain failed; its series stop until it answers, retrying with backoff", "chain", c.name, "url", c.ext.where(), "error", err)
		} else {
			f.log.Debug("reading an external chain failed again", "chain", c.name, "error", err, "retry_in", pause)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause/2 + rand.N(pause/2+1)):
		case <-c.ext.wake:
		}
		pause = min(2*pause, hi)
	}
}

// followExternal checks that the node runs the configured chain, then
// counts its blocks from the stored progress on, up to its tag's block
// less the trail, polling for more; answered is called each time it has
// counted up to there. It returns only on an error.
//
// An external chain's positions are as the node's own EVM chains': p
// holds block p+1, so that counted and accepted are block numbers and the
// genesis, whose timestamp is often 0, is never counted.
func (f *Follower) followExternal(ctx context.Context, c *chain, answered func()) error {
	e := c.ext
	got, err := e.src.ChainID(ctx)
	if err != nil {
		return err
	}
	if got != e.cfg.ChainID {
		return fmt.Errorf("%w: the node answers eth_chainId %d, the config's chain-id is %d", errWrongChain, got, e.cfg.ChainID)
	}
	p, err := f.progress(c.id, true)
	if err != nil {
		return err
	}
	if p.EVMChainID != 0 && p.EVMChainID != e.cfg.ChainID {
		return fmt.Errorf("%w: its blocks were counted as EVM chain ID %d, the config's chain-id is now %d; give the chain another name or delete the module's store",
			errWrongChain, p.EVMChainID, e.cfg.ChainID)
	}
	p.EVMChainID = e.cfg.ChainID
	if p.LastRun == 0 {
		p.Next = max(e.cfg.StartBlock, 1) - 1
	}
	c.counted.Store(p.Next)
	poll := f.opts.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	counts := make([]store.Block, 0, e.cfg.BlocksPerRequest)
	for {
		head, err := e.src.Head(ctx, e.tag)
		if err != nil {
			return err
		}
		target := head - min(head, e.trail)
		storeMax(&c.seen, target)
		for p.Next < target {
			from, count := p.Next+1, min(uint64(e.cfg.BlocksPerRequest), target-p.Next)
			got, err := e.src.Blocks(ctx, from, int(count))
			if err != nil {
				return err
			}
			if len(got) != int(count) {
				return fmt.Errorf("asked for %d blocks from %d, the node answered %d", count, from, len(got))
			}
			counts = counts[:0]
			for i := range got {
				if uint64(got[i].Number) != from+uint64(i) {
					return fmt.Errorf("asked for block %d, the node answered block %d", from+uint64(i), got[i].Number)
				}
				counts = append(counts, evmCounts(&got[i]))
			}
			if p, err = f.opts.Store.Add(c.id, p, counts, f.opts.Clock()); err != nil {
				return err
			}
			c.counted.Store(p.Next)
		}
		answered()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}
