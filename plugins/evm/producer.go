package evm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/plugins/evm/atomicvm"
)

// errProducerStopped answers requests made after Shutdown.
var errProducerStopped = errors.New("block producer stopped")

// maxDrainBlocks bounds one run of automatic production, so that a stream
// of transactions cannot starve the producer's other requests.
const maxDrainBlocks = 64

// errNoProduction answers the requests for a block of a chain that builds
// none.
var errNoProduction = errors.New("this chain does not produce blocks (it serves an imported chain)")

// producer builds every block of the chain from one goroutine, which
// serialises all triggers: pending transactions (automatic mode), the
// interval timer, and the dev methods. go-ethereum's own mining is never
// started: the chain's builder makes the blocks.
type producer struct {
	chain   *core.BlockChain
	pool    *txpool.TxPool
	atomic  *atomicvm.VM // nil on a chain without atomic transactions
	builder *builder
	log     hclog.Logger

	reqs     chan func(*producerState)
	txSignal chan struct{}
	stop     chan struct{}
	done     chan struct{} // closed when loop returns
	watching sync.WaitGroup
}

// producerState is owned by the producer goroutine.
type producerState struct {
	mode     string
	interval time.Duration
	timer    *time.Timer
}

// newProducer starts the producer goroutine in mode. b is nil on a chain
// that never produces blocks (an imported chain), then every request
// fails.
func newProducer(chain *core.BlockChain, pool *txpool.TxPool, atomic *atomicvm.VM, b *builder, mode string, interval time.Duration, log hclog.Logger) *producer {
	p := &producer{
		chain:    chain,
		pool:     pool,
		atomic:   atomic,
		builder:  b,
		log:      log,
		reqs:     make(chan func(*producerState)),
		txSignal: make(chan struct{}, 1),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	st := &producerState{mode: mode, interval: interval}
	if b == nil {
		st.mode = produceManual
	}
	p.watching.Add(1)
	go p.watchTxs()
	go p.loop(st)
	return p
}

// watchTxs turns the pool's new-transaction events into one pending signal,
// draining the event channel on its own goroutine so that the pool never
// waits for the producer.
func (p *producer) watchTxs() {
	defer p.watching.Done()
	ch := make(chan core.NewTxsEvent, 256)
	sub := p.pool.SubscribeTransactions(ch, false)
	defer sub.Unsubscribe()
	for {
		select {
		case <-ch:
			p.wake()
		case <-sub.Err():
			return
		case <-p.stop:
			return
		}
	}
}

// wake tells the producer that transactions wait.
func (p *producer) wake() {
	select {
	case p.txSignal <- struct{}{}:
	default:
	}
}

// pending returns how many executable transactions wait, EVM and atomic.
func (p *producer) pending() int {
	n, _ := p.pool.Stats()
	if p.atomic != nil {
		n += p.atomic.Pending()
	}
	return n
}

func (p *producer) loop(st *producerState) {
	defer close(p.done)
	st.resetTimer()
	defer st.stopTimer()
	// Transactions may already wait (after a restart).
	if st.mode == produceAuto {
		p.drain()
	}
	for {
		var tick <-chan time.Time
		if st.timer != nil {
			tick = st.timer.C
		}
		select {
		case <-p.stop:
			return
		case <-p.txSignal:
			if st.mode == produceAuto {
				p.drain()
			}
		case <-tick:
			if _, err := p.seal(0); err != nil {
				p.log.Warn("interval block not produced", "err", err)
			}
			st.resetTimer()
		case fn := <-p.reqs:
			fn(st)
		}
	}
}

// do runs fn on the producer goroutine and waits for it.
func (p *producer) do(ctx context.Context, fn func(*producerState)) error {
	done := make(chan struct{})
	select {
	case p.reqs <- func(st *producerState) { fn(st); close(done) }:
	case <-p.done:
		return errProducerStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-p.done:
		return errProducerStopped
	}
}

// drain builds blocks while executable transactions are pending.
func (p *producer) drain() {
	for i := 0; i < maxDrainBlocks; i++ {
		// Wait for the pool to digest the last block, or it still counts
		// the transactions just included.
		if err := p.pool.Sync(); err != nil {
			p.log.Warn("transaction pool sync", "err", err)
			return
		}
		if p.pending() == 0 {
			return
		}
		blk, err := p.build(0)
		if err != nil {
			p.log.Warn("block not produced", "err", err)
			return
		}
		if len(blk.Transactions()) == 0 && !atomicvm.HasTxs(blk) {
			return // pending transactions that do not fit any block yet
		}
	}
	// More remain: come back after serving other requests.
	p.wake()
}

// seal builds, inserts and makes head one block with the pending
// transactions. With at not zero it builds an empty block with timestamp
// at instead, which needs a pool without executable transactions (they
// would wait behind a block that leaves them out).
func (p *producer) seal(at uint64) (*types.Block, error) {
	if p.builder == nil {
		return nil, errNoProduction
	}
	// The pool digests new transactions and the last block in the
	// background: wait for it, or it offers stale ones.
	if err := p.pool.Sync(); err != nil {
		return nil, fmt.Errorf("transaction pool sync: %w", err)
	}
	if at != 0 {
		if pending := p.pending(); pending != 0 {
			return nil, fmt.Errorf("cannot build an empty block at %d: the pools hold %d executable transactions", at, pending)
		}
	}
	return p.build(at)
}

// build is seal on a pool already synced.
func (p *producer) build(at uint64) (*types.Block, error) {
	if at != 0 {
		return p.builder.build(at, true)
	}
	return p.builder.build(uint64(time.Now().Unix()), false)
}

// mined returns the hash of a block a dev method built once the pool has
// taken it in, so that the caller's next transaction is checked against
// its state.
func (p *producer) mined(blk *types.Block, err error) (common.Hash, error) {
	if err != nil {
		return common.Hash{}, err
	}
	if err := p.pool.Sync(); err != nil {
		return common.Hash{}, fmt.Errorf("transaction pool sync: %w", err)
	}
	return blk.Hash(), nil
}

// Mine builds one block now, empty or not (evm_mine).
func (p *producer) Mine(ctx context.Context) (common.Hash, error) {
	var (
		hash common.Hash
		err  error
	)
	if e := p.do(ctx, func(*producerState) { hash, err = p.mined(p.seal(0)) }); e != nil {
		return common.Hash{}, e
	}
	return hash, err
}

// MineAt builds an empty block with timestamp ts, after the head's; the
// pool must hold no executable transaction. Later blocks are never earlier
// (evm_setNextBlockTimestamp, evm_increaseTime).
func (p *producer) MineAt(ctx context.Context, ts uint64) (common.Hash, error) {
	var (
		hash common.Hash
		err  error
	)
	if e := p.do(ctx, func(*producerState) {
		if head := p.chain.CurrentBlock(); ts <= head.Time {
			err = fmt.Errorf("timestamp %d is not after the head block's %d", ts, head.Time)
			return
		}
		hash, err = p.mined(p.seal(ts))
	}); e != nil {
		return common.Hash{}, e
	}
	return hash, err
}

// Rewind runs rewind (debug_setHead) with the builder on the producer
// goroutine, so that no block is built meanwhile, then waits for the pool
// to take in the new head and, in auto mode, builds the transactions
// still pending on it.
func (p *producer) Rewind(ctx context.Context, rewind func(*builder) error) error {
	if p.builder == nil {
		return errNoProduction
	}
	var err error
	if e := p.do(ctx, func(st *producerState) {
		if err = rewind(p.builder); err != nil {
			return
		}
		if err = p.pool.Sync(); err != nil {
			err = fmt.Errorf("transaction pool sync: %w", err)
			return
		}
		if st.mode == produceAuto {
			p.drain()
		}
	}); e != nil {
		return e
	}
	return err
}

// SetMode switches between auto, interval and manual production.
func (p *producer) SetMode(ctx context.Context, mode string, interval time.Duration) error {
	if p.builder == nil {
		return errNoProduction
	}
	return p.do(ctx, func(st *producerState) {
		st.mode = mode
		if interval > 0 {
			st.interval = interval
		}
		st.resetTimer()
		if mode == produceAuto {
			p.drain()
		}
	})
}

// Mode returns the current production mode and interval.
func (p *producer) Mode(ctx context.Context) (string, time.Duration, error) {
	var (
		mode     string
		interval time.Duration
	)
	err := p.do(ctx, func(st *producerState) { mode, interval = st.mode, st.interval })
	return mode, interval, err
}

// Stop ends the producer goroutines and waits for them.
func (p *producer) Stop() {
	close(p.stop)
	<-p.done
	p.watching.Wait()
}

func (st *producerState) resetTimer() {
	st.stopTimer()
	if st.mode == produceInterval && st.interval > 0 {
		st.timer = time.NewTimer(st.interval)
	}
}

func (st *producerState) stopTimer() {
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
}
