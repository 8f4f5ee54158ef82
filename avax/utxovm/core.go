// Package utxovm is the core the UTXO chains' VMs are built on, the
// X-Chain's (docs/xvm.md) and the P-Chain's (docs/pchain.md): the mempool
// of pending transactions and the issue that waits for acceptance, the
// block builder's loop and Shutdown, the atomic append whose lost answer
// the stored state settles, the standard block's frame, the stored state's
// keys and records, the config's common keys, the genesis' reading, and
// the API methods every UTXO chain answers alike. A VM embeds Core and
// brings its Rules: its transactions' checks, its blocks' making and its
// JSON forms.
package utxovm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// ErrRejected is matched by the error of a transaction the chain refuses.
var ErrRejected = errors.New("tx rejected")

// Rejected returns an error matching ErrRejected that says why.
func Rejected(id ids.ID, format string, args ...any) error {
	return fmt.Errorf("%w: tx %s: %s", ErrRejected, id, fmt.Sprintf(format, args...))
}

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

// Rules are what a VM brings to the core: what is its own.
type Rules[U signedtx.Unsigned, I any] struct {
	// ParseTx reads a transaction's bytes.
	ParseTx func([]byte) (*signedtx.Tx[U], error)
	// Check verifies a new transaction against the state it will be
	// accepted on and the mempool, and returns it as it waits. Mu is held.
	Check func(context.Context, *signedtx.Tx[U]) (*Pending[U, I], error)
	// Build makes the blocks that are due and returns how long the builder
	// may sleep before it looks again (UntilWoken: until a transaction
	// arrives). Mu is not held.
	Build func() time.Duration
	// StoredTx returns an accepted transaction.
	StoredTx func(context.Context, ids.ID) (*signedtx.Tx[U], bool, error)
	// LastHeight is the last accepted block's height, or why there is
	// none.
	LastHeight func() (uint64, error)
	// SourceChain reads getUTXOs' sourceChain param (never ""): the
	// chain whose exports to this one the addresses' UTXOs are read from,
	// or this chain.
	SourceChain func(context.Context, string) (ids.ID, error)
	// TxJSON and BlockJSON are the JSON forms of getTx and getBlock.
	TxJSON    func(*signedtx.Tx[U]) any
	BlockJSON func(*Block[U]) any
	// Accepted is getTxStatus's word for an accepted transaction.
	Accepted string
}

// Core is the part of a UTXO VM every such VM shares. The VM embeds it,
// and Init fills it.
type Core[U signedtx.Unsigned, I any] struct {
	Env    *sdk.Env
	Config Config
	Store  Store
	Index  host.BatchIndex
	HRP    string // the network's
	Blocks BlockFormat[U]
	rules  Rules[U, I]

	// Mu guards the mempool and the VM's state, and serialises
	// verification with acceptance, so that a transaction is checked
	// against the state it will be accepted on.
	Mu   sync.Mutex
	Pool *Mempool[U, I]
	// Stale is set when the VM's state may be behind the stored state (an
	// append's outcome is unknown): the VM reads it again before the next
	// block.
	Stale bool

	wake chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
}

// Init fills the core of the VM named vm whose chain is env's, after
// checking that the host appends atomic batches.
func (c *Core[U, I]) Init(vm string, env *sdk.Env, cfg Config, blocks BlockFormat[U], rules Rules[U, I]) error {
	bi, ok := env.Host.Index.(host.BatchIndex)
	if !ok {
		return fmt.Errorf("%s needs a host with atomic batches", vm)
	}
	c.Env, c.Config, c.Store, c.Index, c.HRP = env, cfg, Store{env.Host.DB}, bi, avax.HRP(env.NetworkID)
	c.Blocks, c.rules = blocks, rules
	c.Pool = NewMempool[U, I]()
	return nil
}

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

// APIChain is what the API's params are read against: this chain, on its
// network.
func (c *Core[U, I]) APIChain() utxoapi.Chain { return utxoapi.Chain{Env: c.Env, HRP: c.HRP} }

// FormatAddress returns an address as this chain shows it:
// "<alias>-<hrp>1...".
func (c *Core[U, I]) FormatAddress(a avax.ShortID) string {
	s, err := avax.FormatAddress(c.Env.Name, c.HRP, a)
	if err != nil {
		return a.String()
	}
	return s
}

// FormatAddresses writes addresses as this chain shows them.
func (c *Core[U, I]) FormatAddresses(list []avax.ShortID) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = c.FormatAddress(a)
	}
	return out
}
