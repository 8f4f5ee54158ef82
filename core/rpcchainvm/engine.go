package rpcchainvm

import (
	"context"
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/snow/consensus/snowman"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/snow/engine/snowman/block"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm"
	"github.com/hashicorp/go-hclog"
)

// engine drives a VM as avalanchego's snowman engine does on a network of
// one validator: every block the VM builds is verified, preferred and
// accepted at once, since the only vote is the node's own
// (docs/rpcchainvm.md, "One-node consensus").
type engine struct {
	vm         *rpcchainvm.VMClient
	validators validators.State
	accepted   func(ctx context.Context, id [32]byte, bytes []byte) error
	log        hclog.Logger
}

// eventRetry is the pause before the VM is asked again for its next event
// after the call failed (while the supervisor sees whether it exited).
const eventRetry = 250 * time.Millisecond

// startEngine runs the engine on p's VM until shutdown stops it.
func (p *process) startEngine(opts Options) {
	ctx, cancel := context.WithCancel(context.Background())
	p.engineStop, p.engineDone = cancel, make(chan struct{})
	e := engine{vm: p.vm, validators: opts.ValidatorState, log: opts.Log,
		accepted: func(ctx context.Context, id [32]byte, b []byte) error { return opts.Accepted(ctx, id, b) }}
	go func() {
		defer close(p.engineDone)
		e.run(ctx)
	}()
}

// run waits for the VM to have transactions to build on, then builds and
// accepts a block, until ctx ends.
func (e *engine) run(ctx context.Context) {
	for {
		msg, err := e.vm.WaitForEvent(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			e.log.Debug("waiting for the VM's next event", "error", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(eventRetry):
			}
			continue
		}
		if msg != common.PendingTxs {
			continue
		}
		if err := e.buildAndAccept(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("no block accepted", "error", err)
		}
	}
}

// buildAndAccept builds a block on the preferred (last accepted) block,
// verifies it, prefers it, accepts it and has the host index it.
func (e *engine) buildAndAccept(ctx context.Context) error {
	blk, blockCtx, err := e.build(ctx)
	if err != nil {
		return fmt.Errorf("build block: %w", err)
	}
	if err := verify(ctx, blk, blockCtx); err != nil {
		if rerr := blk.Reject(ctx); rerr != nil {
			e.log.Warn("reject block", "block", blk.ID(), "error", rerr)
		}
		if last, lerr := e.vm.LastAccepted(ctx); lerr == nil {
			_ = e.vm.SetPreference(ctx, last)
		}
		return fmt.Errorf("verify block %s at height %d: %w", blk.ID(), blk.Height(), err)
	}
	if err := e.vm.SetPreference(ctx, blk.ID()); err != nil {
		return fmt.Errorf("prefer block %s: %w", blk.ID(), err)
	}
	if err := blk.Accept(ctx); err != nil {
		return fmt.Errorf("accept block %s at height %d: %w", blk.ID(), blk.Height(), err)
	}
	if err := e.accepted(ctx, blk.ID(), blk.Bytes()); err != nil {
		// The VM has it: the next start's backfill indexes it.
		e.log.Error("index the accepted block", "block", blk.ID(), "height", blk.Height(), "error", err)
	}
	return nil
}

// build builds a block with the P-Chain's height as its context, as
// avalanchego's proposervm builds one; on a node without a P-Chain,
// without a context, as a VM run without proposervm builds.
func (e *engine) build(ctx context.Context) (snowman.Block, *block.Context, error) {
	pHeight, err := e.validators.GetCurrentHeight(ctx)
	if err != nil {
		e.log.Debug("no P-Chain height: building without a block context", "error", err)
		blk, err := e.vm.BuildBlock(ctx)
		return blk, nil, err
	}
	blockCtx := &block.Context{PChainHeight: pHeight}
	blk, err := e.vm.BuildBlockWithContext(ctx, blockCtx)
	return blk, blockCtx, err
}

// verify verifies blk as the engine does: with the block context when the
// block asks for it and there is one.
func verify(ctx context.Context, blk snowman.Block, blockCtx *block.Context) error {
	if b, ok := blk.(block.WithVerifyContext); ok && blockCtx != nil {
		use, err := b.ShouldVerifyWithContext(ctx)
		if err != nil {
			return err
		}
		if use {
			return b.VerifyWithContext(ctx, blockCtx)
		}
	}
	return blk.Verify(ctx)
}

// replay gives the VM again, as avalanchego's bootstrapping gives a node
// the blocks of its peers, the blocks the host indexed above the VM's last
// accepted one: a VM whose own database does not survive its process's
// crash (subnet-evm's pebble writes without sync) loses accepted blocks,
// and the chain goes on from the last block the host acknowledged
// (docs/rpcchainvm.md, "Life").
func replay(ctx context.Context, vm *rpcchainvm.VMClient, opts Options) error {
	if opts.Indexed == nil {
		return nil
	}
	last, err := vm.LastAccepted(ctx)
	if err != nil {
		return fmt.Errorf("last accepted block: %w", err)
	}
	blk, err := vm.GetBlock(ctx, last)
	if err != nil {
		return fmt.Errorf("last accepted block %s: %w", last, err)
	}
	height, replayed := blk.Height(), 0
	err = opts.Indexed(ctx, height, func(b []byte) error {
		blk, err := vm.ParseBlock(ctx, b)
		if err != nil {
			return fmt.Errorf("parse indexed block at height %d: %w", height+1, err)
		}
		if blk.Height() != height+1 {
			return fmt.Errorf("indexed block %s has height %d, want %d", blk.ID(), blk.Height(), height+1)
		}
		if err := verify(ctx, blk, nil); err != nil {
			return fmt.Errorf("verify indexed block %s at height %d: %w", blk.ID(), blk.Height(), err)
		}
		if err := blk.Accept(ctx); err != nil {
			return fmt.Errorf("accept indexed block %s at height %d: %w", blk.ID(), blk.Height(), err)
		}
		height++
		replayed++
		return nil
	})
	if err != nil {
		return fmt.Errorf("replay the indexed blocks the VM lost: %w", err)
	}
	if replayed > 0 {
		opts.Log.Warn("the VM had lost accepted blocks; replayed them from the index", "blocks", replayed, "height", height)
	}
	return nil
}
