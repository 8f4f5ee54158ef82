package pvm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
)

// acceptTimeout bounds one host append.
const acceptTimeout = time.Minute

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
// block. vm.mu is held.
func (vm *VM) nowLocked() uint64 {
	t := vm.clock.Manual
	if vm.cfg.Clock == clockWall {
		t = uint64(max(vm.wall().Unix()+vm.clock.Offset, 0))
	}
	return max(t, vm.state.Time)
}

// setClockLocked moves the clock to t (not before now), persists it and
// builds the blocks of everything due by then. vm.mu is held.
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
	if err := vm.db.Write(ctx, []host.Op{jsonOp([]byte(keyClock), c)}, true); err != nil {
		return fmt.Errorf("store the clock: %w", err)
	}
	vm.clock = c
	vm.signal()
	return vm.buildDueLocked()
}

// signal wakes the builder.
func (vm *VM) signal() {
	select {
	case vm.wake <- struct{}{}:
	default:
	}
}

// buildLoop makes the blocks that are due each time it wakes: when a
// transaction arrives, when the next event's time comes (on a wall
// clock), or when the clock moves.
func (vm *VM) buildLoop() {
	defer vm.wg.Done()
	for {
		vm.mu.Lock()
		err := vm.buildDueLocked()
		if err != nil && !errors.Is(err, errShuttingDown) {
			vm.env.Logger.Warn("could not make a block; trying again", "error", err)
		}
		sleep := vm.sleepLocked(err)
		vm.mu.Unlock()
		timer := time.NewTimer(sleep)
		select {
		case <-vm.stop:
			timer.Stop()
			return
		case <-vm.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// sleepLocked is how long the builder may sleep: until the next event on a
// wall clock, a moment after a failure. vm.mu is held.
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

var errShuttingDown = errors.New("the chain is shutting down")

// current returns the chain's state once every block that is due is made.
// The state is never changed afterwards: the caller may read it unlocked.
func (vm *VM) current() (*chainState, uint64) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if err := vm.buildDueLocked(); err != nil && !errors.Is(err, errShuttingDown) {
		vm.env.Logger.Debug("the state may be behind the clock", "error", err)
	}
	return vm.state, vm.nowLocked()
}

// buildDueLocked makes a block at the time of each event due by now, in
// order, then blocks of the waiting transactions at now. vm.mu is held.
func (vm *VM) buildDueLocked() error {
	select {
	case <-vm.stop:
		return errShuttingDown
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), acceptTimeout)
	defer cancel()
	if vm.stale {
		s, _, err := loadState(ctx, vm.db)
		if err != nil {
			return err
		}
		vm.state, vm.stale = s, false
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
	for len(vm.pool.order) > 0 {
		batch := slices.Clone(vm.pool.order[:min(vm.cfg.MaxBlockTxs, len(vm.pool.order))])
		dropped, err := vm.acceptLocked(ctx, vm.nowLocked(), batch)
		if err != nil && retryable(err) {
			return err
		}
		vm.pool.remove(batch)
		for _, p := range batch {
			if err != nil {
				p.finish(err)
			} else {
				p.finish(dropped[p])
			}
		}
	}
	return nil
}

// retryable reports whether an append may succeed if tried again: not a
// refusal of what it holds.
func retryable(err error) bool {
	return !errors.Is(err, host.ErrAlreadyIndexed) && !errors.Is(err, host.ErrUnsupported)
}

// acceptLocked makes the block at time t of the transactions of batch
// that are still valid then, and has the host append it with the state it
// changes in one atomic write; it returns the transactions it left out and
// why. With no batch it makes the empty block of an event. When the
// host's answer is lost, the stored state says whether the write
// happened. vm.mu is held.
func (vm *VM) acceptLocked(ctx context.Context, t uint64, batch []*pending) (map[*pending]error, error) {
	d := newDiff(vm.state)
	d.Height++
	if err := d.advance(t, uint64(vm.cfg.L1FeeRate)); err != nil {
		return nil, err
	}
	dropped := map[*pending]error{}
	var list []*txs.Tx
	for _, p := range batch {
		if err := vm.execute(ctx, d, p.tx, nil); err != nil {
			dropped[p] = err
			continue
		}
		list = append(list, p.tx)
	}
	if len(batch) > 0 && len(list) == 0 {
		return dropped, nil // no block: nothing is due but these, and none is valid
	}
	blk := blocks.New(t, d.LastBlockID, d.Height, list)
	d.LastBlockID = blk.ID()
	ops, err := d.ops(ctx, vm.db)
	if err != nil {
		return nil, err
	}
	ops = append(ops,
		host.Op{Key: blockKey(blk.Height), Value: blk.Bytes()},
		host.Op{Key: blockIDKey(blk.ID()), Value: u64(blk.Height)},
		jsonOp([]byte(keyMeta), d.meta))
	_, err = vm.index.AcceptBatch(ctx, host.AcceptBatch{
		Containers: []host.NewContainer{{Kind: kindBlock, ID: blk.ID(), Bytes: blk.Bytes()}},
		State:      ops,
	})
	if err != nil {
		// The write may have happened with its answer lost: the stored
		// state says.
		stored, found, rerr := readMeta(ctx, vm.db)
		if rerr != nil || !found || stored.Height != d.Height || stored.LastBlockID != d.LastBlockID {
			vm.stale = true // start from the stored state next time
			return nil, fmt.Errorf("accept block %d: %w", d.Height, err)
		}
		vm.env.Logger.Info("the host's answer to an append was lost, but the append happened", "error", err)
	}
	vm.state = d.chainState
	vm.env.Logger.Debug("accepted", "height", blk.Height, "time", t, "txs", len(list))
	return dropped, nil
}
