package evm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/hashicorp/go-hclog"
)

// errProducerStopped answers requests made after Shutdown.
var errProducerStopped = errors.New("block producer stopped")

// maxDrainBlocks bounds one run of automatic production, so that a stream
// of transactions cannot starve the producer's other requests.
const maxDrainBlocks = 64

// producer builds every block of the chain from one goroutine, which
// serialises all triggers: pending transactions (automatic mode), the
// interval timer, and the dev methods. go-ethereum's own dev-mode mining
// deadlocks when anything else also triggers a block, so it is never
// started; blocks are sealed through the simulated beacon's engine-API
// round trip instead.
type producer struct {
	eth    *eth.Ethereum
	beacon *catalyst.SimulatedBeacon
	log    hclog.Logger

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

// newProducer starts the producer goroutine in mode. beacon is nil on a
// chain that never produces blocks (an imported chain), then every
// request fails.
func newProducer(backend *eth.Ethereum, beacon *catalyst.SimulatedBeacon, mode string, interval time.Duration, log hclog.Logger) *producer {
	p := &producer{
		eth:      backend,
		beacon:   beacon,
		log:      log,
		reqs:     make(chan func(*producerState)),
		txSignal: make(chan struct{}, 1),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	st := &producerState{mode: mode, interval: interval}
	if beacon == nil {
		st.mode = ProduceManual
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
	sub := p.eth.TxPool().SubscribeTransactions(ch, false)
	defer sub.Unsubscribe()
	for {
		select {
		case <-ch:
			select {
			case p.txSignal <- struct{}{}:
			default:
			}
		case <-sub.Err():
			return
		case <-p.stop:
			return
		}
	}
}

func (p *producer) loop(st *producerState) {
	defer close(p.done)
	st.resetTimer()
	defer st.stopTimer()
	// Transactions may already wait (after a restart).
	if st.mode == ProduceAuto {
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
			if st.mode == ProduceAuto {
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
		if err := p.eth.TxPool().Sync(); err != nil {
			p.log.Warn("transaction pool sync", "err", err)
			return
		}
		if pending, _ := p.eth.TxPool().Stats(); pending == 0 {
			return
		}
		n, err := p.seal(0)
		if err != nil {
			p.log.Warn("block not produced", "err", err)
			return
		}
		if n == 0 {
			return // pending transactions that do not fit any block yet
		}
	}
	// More remain: come back after serving other requests.
	select {
	case p.txSignal <- struct{}{}:
	default:
	}
}

// seal builds, inserts and makes head one block with the pending
// transactions, and returns how many it holds. With at not zero it builds
// an empty block with timestamp at instead, which needs an empty pool.
func (p *producer) seal(at uint64) (int, error) {
	if p.beacon == nil {
		return 0, errors.New("this chain does not produce blocks (it serves an imported chain)")
	}
	chain := p.eth.BlockChain()
	parent := chain.CurrentBlock()
	if at != 0 {
		// The simulated beacon seals an empty block at parent time plus
		// the adjustment.
		if err := p.beacon.AdjustTime(time.Duration(at-parent.Time) * time.Second); err != nil {
			return 0, err
		}
	} else {
		p.beacon.Commit()
	}
	head := chain.CurrentBlock()
	if head.Hash() == parent.Hash() {
		return 0, fmt.Errorf("no block was built on %d (see the log)", parent.Number)
	}
	blk := chain.GetBlock(head.Hash(), head.Number.Uint64())
	if blk == nil {
		return 0, fmt.Errorf("block %s missing after sealing", head.Hash())
	}
	return len(blk.Transactions()), nil
}

// Mine builds one block now, empty or not (evm_mine).
func (p *producer) Mine(ctx context.Context) (common.Hash, error) {
	var (
		hash common.Hash
		err  error
	)
	if e := p.do(ctx, func(*producerState) {
		if _, err = p.seal(0); err == nil {
			hash = p.eth.BlockChain().CurrentBlock().Hash()
		}
	}); e != nil {
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
		if head := p.eth.BlockChain().CurrentBlock(); ts <= head.Time {
			err = fmt.Errorf("timestamp %d is not after the head block's %d", ts, head.Time)
			return
		}
		if _, err = p.seal(ts); err == nil {
			hash = p.eth.BlockChain().CurrentBlock().Hash()
		}
	}); e != nil {
		return common.Hash{}, e
	}
	return hash, err
}

// SetMode switches between auto, interval and manual production.
func (p *producer) SetMode(ctx context.Context, mode string, interval time.Duration) error {
	if p.beacon == nil {
		return errors.New("this chain does not produce blocks (it serves an imported chain)")
	}
	return p.do(ctx, func(st *producerState) {
		st.mode = mode
		if interval > 0 {
			st.interval = interval
		}
		st.resetTimer()
		if mode == ProduceAuto {
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
	if st.mode == ProduceInterval && st.interval > 0 {
		st.timer = time.NewTimer(st.interval)
	}
}

func (st *producerState) stopTimer() {
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
}
