package utxovm

import (
	"context"
	"fmt"
	"time"

	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Issue checks tx, adds it to the mempool and waits for its acceptance:
// it returns nil once tx is accepted, or after the config's issue-wait
// with tx still processing.
func (c *Core[U, I]) Issue(ctx context.Context, tx *signedtx.Tx[U]) error {
	c.Mu.Lock()
	p, waiting := c.Pool.Get(tx.ID())
	if !waiting {
		var err error
		if p, err = c.admitLocked(ctx, tx); err != nil {
			c.Mu.Unlock()
			return err
		}
	}
	c.Mu.Unlock()
	timer := time.NewTimer(c.Config.IssueWait.D())
	defer timer.Stop()
	select {
	case <-p.done:
		return p.err
	case <-timer.C:
		return nil // still processing: getTxStatus follows it
	case <-ctx.Done():
		return ctx.Err()
	}
}

// admitLocked checks a new transaction and adds it to the mempool. Mu is
// held.
func (c *Core[U, I]) admitLocked(ctx context.Context, tx *signedtx.Tx[U]) (*Pending[U, I], error) {
	id := tx.ID()
	if accepted, err := c.Store.Has(ctx, TxKey(id)); err != nil {
		return nil, fmt.Errorf("read tx %s: %w", id, err)
	} else if accepted {
		return nil, Rejected(id, "it is accepted already")
	}
	if c.Pool.Len() >= c.Config.MempoolSize {
		return nil, fmt.Errorf("the mempool is full (%d transactions); try again", c.Config.MempoolSize)
	}
	p, err := c.rules.Check(ctx, tx)
	if err != nil {
		return nil, err
	}
	c.Pool.add(p)
	c.Signal()
	return p, nil
}

// Pooled reports whether the mempool holds a transaction.
func (c *Core[U, I]) Pooled(id ids.ID) bool {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	_, ok := c.Pool.Get(id)
	return ok
}
