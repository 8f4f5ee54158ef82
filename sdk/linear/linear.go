// Package linear keeps the bookkeeping of a linear chain, one block on top
// of the last, so that a VM author writes the state transition alone: the
// height and parent of the next block, its accept into the host's index in
// one atomic write with the VM's state, the ContainerSource answers the
// host asks at start, the re-read after an accept that failed without
// saying whether the host committed it (the cut-accept rule), and the
// replay of the blocks the host's index holds but the VM's database lacks.
// docs/writing-a-vm.md walks through it.
package linear

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// DefaultKind is the index kind of a Chain whose Options name none.
const DefaultKind = "block"

// DefaultPrefix starts the Chain's keys when Options.Prefix is empty.
const DefaultPrefix = "linear/"

// Options configures a Chain.
type Options struct {
	// Kind is the index kind the blocks are accepted as; DefaultKind when
	// empty.
	Kind string
	// Prefix starts the keys the Chain keeps in the VM's database
	// namespace (its height, and each block's ID and bytes); DefaultPrefix
	// when empty. No key of the VM's own may start with it.
	Prefix []byte
	// Replay returns the state writes of block b at height: those its
	// build returned when it was accepted. Open and the re-read after a
	// failed accept call it, in order, for each block the host's index
	// holds above the VM's height (the VM's database lost them). When nil,
	// such blocks are an error.
	Replay func(ctx context.Context, height uint64, b []byte) ([]host.Op, error)
}

// Tip is where the next block goes.
type Tip struct {
	// Height is the next block's height: the number of accepted blocks.
	Height uint64
	// Parent is the ID of the last accepted block; zero before the first.
	Parent ids.ID
}

// Block is what a build makes of a Tip.
type Block struct {
	// ID is the block's container ID: unique in the chain's index of the
	// kind (the host refuses an ID it holds with host.ErrAlreadyIndexed).
	ID ids.ID
	// Bytes is the block's encoding, as the index and GetAccepted keep it.
	Bytes []byte
	// State is the block's writes to the VM's database namespace,
	// committed with the index entry or not at all.
	State []host.Op
}

// Accepted is a block that Next accepted.
type Accepted struct {
	// Height and ID are the block's.
	Height uint64
	ID     ids.ID
	// Index and Timestamp are where and when the host indexed it.
	host.Accepted
}

// Chain is a linear chain over the host services of one VM instance. It is
// the VM's sdk.ContainerSource for its one kind.
type Chain struct {
	db     host.Database
	ix     host.Index
	kind   string
	prefix []byte
	replay func(ctx context.Context, height uint64, b []byte) ([]host.Op, error)

	mu    sync.Mutex // held by Next while it builds and accepts
	tip   Tip
	stale bool // an accept failed: read the tip back before the next build
}

// Open reads the chain's tip back from the VM's database and replays the
// blocks the host's index holds above it; call it from Initialize.
func Open(ctx context.Context, svc host.Services, opts Options) (*Chain, error) {
	c := &Chain{db: svc.DB, ix: svc.Index, kind: opts.Kind, prefix: opts.Prefix, replay: opts.Replay}
	if c.kind == "" {
		c.kind = DefaultKind
	}
	if len(c.prefix) == 0 {
		c.prefix = []byte(DefaultPrefix)
	}
	if err := c.syncLocked(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Tip returns where the next block goes.
func (c *Chain) Tip() Tip {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tip
}

// Next builds the next block with build, given the tip, and accepts it
// into the host's index with its state, one block at a time. When an
// accept fails, the host may have committed it all the same (the call was
// cut after the commit): the next Next reads the tip back from the host
// first, so that it never builds a second block at one height.
func (c *Chain) Next(ctx context.Context, build func(Tip) (Block, error)) (Accepted, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stale {
		if err := c.syncLocked(ctx); err != nil {
			return Accepted{}, fmt.Errorf("read the tip back after a failed accept: %w", err)
		}
		c.stale = false
	}
	tip := c.tip
	blk, err := build(tip)
	if err != nil {
		return Accepted{}, err
	}
	state := append(slices.Clip(blk.State), c.recordOps(tip.Height, blk.ID, blk.Bytes)...)
	acc, err := c.ix.Accept(ctx, c.kind, blk.ID, blk.Bytes, state)
	if err != nil {
		c.stale = true
		return Accepted{}, fmt.Errorf("accept block %d (%s): %w", tip.Height, blk.ID, err)
	}
	c.tip = Tip{Height: tip.Height + 1, Parent: blk.ID}
	return Accepted{Height: tip.Height, ID: blk.ID, Accepted: acc}, nil
}

// IndexKinds is the one kind of the chain's blocks.
func (c *Chain) IndexKinds() []string { return []string{c.kind} }

// AcceptedCount is the number of accepted blocks, as committed.
func (c *Chain) AcceptedCount(ctx context.Context, kind string) (uint64, error) {
	if kind != c.kind {
		return 0, fmt.Errorf("index kind %q: %w", kind, host.ErrNotFound)
	}
	return c.height(ctx)
}

// GetAccepted returns the block at a height, or an error matching
// host.ErrNotFound.
func (c *Chain) GetAccepted(ctx context.Context, kind string, height uint64) (host.Container, error) {
	if kind != c.kind {
		return host.Container{}, fmt.Errorf("index kind %q: %w", kind, host.ErrNotFound)
	}
	v, err := c.db.Get(ctx, c.blockKey(height))
	if err != nil {
		return host.Container{}, fmt.Errorf("block %d: %w", height, err)
	}
	if len(v) < ids.Len {
		return host.Container{}, fmt.Errorf("block %d: record of %d bytes, shorter than its ID", height, len(v))
	}
	return host.Container{ID: ids.ID(v[:ids.Len]), Bytes: v[ids.Len:]}, nil
}

// syncLocked reads the tip back from the VM's database, then replays the
// blocks the host's index holds above it: the index is the truth of what
// was accepted. A node without an index leaves the database the truth.
// c.mu is held, or c is not shared yet.
func (c *Chain) syncLocked(ctx context.Context) error {
	n, err := c.height(ctx)
	if err != nil {
		return err
	}
	tip := Tip{Height: n}
	if n > 0 {
		last, err := c.GetAccepted(ctx, c.kind, n-1)
		if err != nil {
			return err
		}
		tip.Parent = last.ID
	}
	err = c.ix.Feed(ctx, "", c.kind, n, false, func(ct host.Container) error {
		if c.replay == nil {
			return fmt.Errorf("the host's index holds block %d, which the VM's database lacks, and linear.Options.Replay is nil", tip.Height)
		}
		state, err := c.replay(ctx, tip.Height, ct.Bytes)
		if err != nil {
			return fmt.Errorf("replay block %d (%s): %w", tip.Height, ct.ID, err)
		}
		state = append(slices.Clip(state), c.recordOps(tip.Height, ct.ID, ct.Bytes)...)
		if err := c.db.Write(ctx, state, false); err != nil {
			return fmt.Errorf("write replayed block %d: %w", tip.Height, err)
		}
		tip = Tip{Height: tip.Height + 1, Parent: ct.ID}
		return nil
	})
	if err != nil && !errors.Is(err, host.ErrNoIndex) {
		return fmt.Errorf("read the host's index of %q above height %d: %w", c.kind, tip.Height, err)
	}
	c.tip = tip
	return nil
}

// height reads the number of accepted blocks from the VM's database.
func (c *Chain) height(ctx context.Context) (uint64, error) {
	v, err := c.db.Get(ctx, c.heightKey())
	if errors.Is(err, host.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the chain's height: %w", err)
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("read the chain's height: %d bytes, want 8", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// recordOps are the writes that make the block at height accepted in the
// VM's database: its record and the new height.
func (c *Chain) recordOps(height uint64, id ids.ID, b []byte) []host.Op {
	return []host.Op{
		{Key: c.blockKey(height), Value: append(id[:len(id):len(id)], b...)},
		{Key: c.heightKey(), Value: binary.BigEndian.AppendUint64(nil, height+1)},
	}
}

func (c *Chain) heightKey() []byte { return append(slices.Clip(c.prefix), "height"...) }

func (c *Chain) blockKey(height uint64) []byte {
	return binary.BigEndian.AppendUint64(append(slices.Clip(c.prefix), "b/"...), height)
}
