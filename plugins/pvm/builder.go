package pvm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
)

// retryDelay is how long the builder waits after an append failed before
// it tries again.
const retryDelay = 250 * time.Millisecond

// maxSleep bounds the builder's sleep, so that a wall clock that jumps is
// noticed.
const maxSleep = time.Minute

// clockState is the clock's persisted part: the offset added to wall time
// (its dev methods move it), or the time of a manual clock.
type clockState struct {
	Offset int64  `json:"offset"`
	Manual uint64 `json:"manual"`
}

// nowLocked is the chain's time: the clock, but never before the last
// block. Mu is held.
func (vm *VM) nowLocked() uint64 {
	t := vm.clock.Manual
	if vm.cfg.Clock == clockWall {
		t = uint64(max(vm.wall().Unix()+vm.clock.Offset, 0))
	}
	return max(t, vm.state.Time)
}

// setClockLocked moves the clock to t (not before now), persists it and
// builds the blocks of everything due by then. Mu is held.
func (vm *VM) setClockLocked(ctx context.Context, t uint64) error {
	now := vm.nowLocked()
	if t < now {
		return fmt.Errorf("the clock cannot go back: %d is before the chain's time %d", t, now)
	}
	c := vm.clock
	if vm.cfg.Clock == clockWall {
		c.Offset += int64(t - now)
	} else {
		c.Manual = t
	}
	if err := vm.Store.Write(ctx, []host.Op{utxovm.JSONOp([]byte(keyClock), c)}, true); err != nil {
		return fmt.Errorf("store the clock: %w", err)
	}
	vm.clock = c
	vm.Signal()
	return vm.buildDueLocked()
}

// build makes the blocks that are due, and returns how long the builder
// may sleep: it wakes when a transaction arrives, when the next event's
// time comes (on a wall clock), or when the clock moves.
func (vm *VM) build() time.Duration {
	vm.Mu.Lock()
	defer vm.Mu.Unlock()
	err := vm.buildDueLocked()
	if err != nil && !errors.Is(err, utxovm.ErrShuttingDown) {
		vm.Env.Logger.Warn("could not make a block; trying again", "error", err)
	}
	return vm.sleepLocked(err)
}

// sleepLocked is how long the builder may sleep: until the next event on a
// wall clock, a moment after a failure. Mu is held.
func (vm *VM) sleepLocked(err error) time.Duration {
	if err != nil {
		return retryDelay
	}
	next, ok := vm.state.nextEvent(uint64(vm.cfg.L1FeeRate))
	if !ok || vm.cfg.Clock == clockManual {
		return maxSleep
	}
	at := time.Unix(int64(next)-vm.clock.Offset, 0)
	return min(max(at.Sub(vm.wall()), 0), maxSleep)
}

// current returns the chain's state once every block that is due is made.
// The state is never changed afterwards: the caller may read it unlocked.
func (vm *VM) current() (*chainState, uint64) {
	vm.Mu.Lock()
	defer vm.Mu.Unlock()
	if err := vm.buildDueLocked(); err != nil && !errors.Is(err, utxovm.ErrShuttingDown) {
		vm.Env.Logger.Debug("the state may be behind the clock", "error", err)
	}
	return vm.state, vm.nowLocked()
}

// buildDueLocked makes a block at the time of each event due by now, in
// order, then blocks of the waiting transactions at now. Mu is held.
func (vm *VM) buildDueLocked() error {
	if err := vm.Stopping(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), utxovm.AcceptTimeout)
	defer cancel()
	if vm.Stale {
		s, _, err := loadState(ctx, vm.Store)
		if err != nil {
			return err
		}
		vm.state, vm.Stale = s, false
	}
	rate := uint64(vm.cfg.L1FeeRate)
	for {
		next, ok := vm.state.nextEvent(rate)
		if !ok || next > vm.nowLocked() {
			break
		}
		if _, err := vm.acceptLocked(ctx, next, nil); err != nil {
			return err
		}
	}
	for vm.Pool.Len() > 0 {
		batch := vm.Pool.Batch(vm.cfg.MaxBlockTxs)
		dropped, err := vm.acceptLocked(ctx, vm.nowLocked(), batch)
		switch {
		case err != nil && utxovm.Retryable(err):
			return err
		case err != nil:
			vm.Pool.Finish(batch, err)
		default:
			vm.Pool.Remove(batch)
			for _, p := range batch {
				p.Finish(dropped[p])
			}
		}
	}
	return nil
}

// acceptLocked makes the block at time t of the transactions of batch
// that are still valid then, and has the host append it with the state it
// changes in one atomic write; it returns the transactions it left out and
// why. With no batch it makes the empty block of an event. When the
// host's answer is lost, the stored state says whether the write
// happened. Mu is held.
func (vm *VM) acceptLocked(ctx context.Context, t uint64, batch []*pending) (map[*pending]error, error) {
	d := newDiff(vm.state)
	d.Height++
	if err := d.advance(t, uint64(vm.cfg.L1FeeRate)); err != nil {
		return nil, err
	}
	dropped := map[*pending]error{}
	var list []*txs.Tx
	for _, p := range batch {
		if err := vm.execute(ctx, d, p.Tx, nil); err != nil {
			dropped[p] = err
			continue
		}
		list = append(list, p.Tx)
	}
	if len(batch) > 0 && len(list) == 0 {
		return dropped, nil // no block: nothing is due but these, and none is valid
	}
	blk := blocks.New(t, d.LastBlockID, d.Height, list)
	d.LastBlockID = blk.ID()
	ops, err := d.ops(ctx, vm.Store)
	if err != nil {
		return nil, err
	}
	ops = append(append(ops, utxovm.BlockOps(blk.ID(), blk.Height, blk.Bytes())...), utxovm.JSONOp([]byte(utxovm.KeyMeta), d.meta))
	ab := host.AcceptBatch{Containers: []host.NewContainer{{Kind: kindBlock, ID: blk.ID(), Bytes: blk.Bytes()}}, State: ops,
		SharedMemory: d.shared.Requests()}
	err = vm.AppendLocked(ctx, ab, func(ctx context.Context) (bool, error) {
		var stored meta
		found, err := vm.Store.ReadMeta(ctx, &stored)
		return found && stored.Height == d.Height && stored.LastBlockID == d.LastBlockID, err
	})
	if err != nil {
		return nil, fmt.Errorf("accept block %d: %w", d.Height, err)
	}
	vm.state = d.chainState
	vm.Env.Logger.Debug("accepted", "height", blk.Height, "time", t, "txs", len(list))
	return dropped, nil
}
