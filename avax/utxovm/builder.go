package utxovm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/chainhost/chainhost/sdk/host"
)

// ErrShuttingDown is the answer of a block made while the VM stops.
var ErrShuttingDown = errors.New("the chain is shutting down")

// Retryable reports whether an append may succeed if tried again: not a
// refusal of what it holds.
func Retryable(err error) bool {
	return !errors.Is(err, host.ErrSharedMemoryConflict) && !errors.Is(err, host.ErrAlreadyIndexed) &&
		!errors.Is(err, host.ErrUnsupported) && !errors.Is(err, ErrShuttingDown)
}

// UntilWoken is the builder's sleep when nothing is due until a
// transaction arrives.
const UntilWoken = time.Duration(math.MaxInt64)

// AcceptTimeout bounds one round of the builder.
const AcceptTimeout = time.Minute

// Start starts the block builder.
func (c *Core[U, I]) Start() {
	c.wake = make(chan struct{}, 1)
	c.stop = make(chan struct{})
	c.wg.Add(1)
	go c.buildLoop()
}

// buildLoop runs the VM's Build each time the builder wakes: when a
// transaction arrives, or when Build's sleep ends, until the VM stops.
func (c *Core[U, I]) buildLoop() {
	defer c.wg.Done()
	for {
		timer := time.NewTimer(c.rules.Build())
		select {
		case <-c.stop:
			timer.Stop()
			return
		case <-c.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// Signal wakes the builder.
func (c *Core[U, I]) Signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Stopping returns ErrShuttingDown once the VM stops.
func (c *Core[U, I]) Stopping() error {
	select {
	case <-c.stop:
		return ErrShuttingDown
	default:
		return nil
	}
}

// Sleep waits for d, and reports false if the VM stops first.
func (c *Core[U, I]) Sleep(d time.Duration) bool {
	select {
	case <-c.stop:
		return false
	case <-time.After(d):
		return true
	}
}

// Shutdown stops the builder; transactions still waiting fail.
func (c *Core[U, I]) Shutdown(context.Context) error {
	if c.stop == nil {
		return nil
	}
	close(c.stop)
	c.wg.Wait()
	c.Mu.Lock()
	defer c.Mu.Unlock()
	c.Pool.Finish(c.Pool.Batch(c.Pool.Len()), errors.New("the chain is shutting down; issue the transaction again"))
	return nil
}

// AppendLocked has the host append ab: a block, its transactions and the
// state they change, in one atomic write. When the host answers with an
// error, the write may have happened all the same, its answer lost:
// happened reads the stored state to say. An append that did not happen,
// or whose outcome is unknown, leaves the state Stale. Mu is held.
func (c *Core[U, I]) AppendLocked(ctx context.Context, ab host.AcceptBatch, happened func(context.Context) (bool, error)) error {
	_, err := c.Index.AcceptBatch(ctx, ab)
	if err == nil {
		return nil
	}
	if ok, rerr := happened(ctx); rerr != nil || !ok {
		c.Stale = true // start from the stored state next time
		return err
	}
	c.Env.Logger.Info("the host's answer to an append was lost, but the append happened", "error", err)
	return nil
}

// Block returns the block at a height.
func (c *Core[U, I]) Block(ctx context.Context, height uint64) (*Block[U], error) {
	b, err := c.Store.Get(ctx, Key(prefixBlock, U64(height)))
	if err != nil {
		return nil, fmt.Errorf("block at height %d: %w", height, err)
	}
	return c.Blocks.Parse(b)
}

// AcceptedBlock returns the indexed block at a position: the block at
// height position+1 (the first block, height 0, is not indexed).
func (c *Core[U, I]) AcceptedBlock(ctx context.Context, pos uint64) (host.Container, error) {
	b, err := c.Block(ctx, pos+1)
	if err != nil {
		return host.Container{}, err
	}
	return host.Container{ID: b.ID(), Bytes: b.Bytes()}, nil
}
