package evm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/plugins/evm/atomicvm"
	"github.com/chainhost/chainhost/sdk/host"
)

// errSetHeadIndexed answers debug_setHead on a node that keeps an index.
var errSetHeadIndexed = errors.New("method refused: this node keeps an index (--index-enabled), " +
	"where a block's position never changes meaning, so the chain cannot rewind; " + setHeadRule)

// setHeadAPI is debug_setHead on a chain with the dev API on: it rewinds
// the chain to a block, so that the blocks built next make a reorg, for
// tests of the clients that follow a chain (docs/evm.md, Rewinding the
// chain). It runs only where no index holds the blocks it abandons.
type setHeadAPI struct {
	chain *core.BlockChain
	db    ethdb.KeyValueWriter // go-ethereum's chain database
	p     *producer
	r     *reporter
	index host.Index
	log   hclog.Logger
}

// SetHead is debug_setHead: block number becomes the head.
func (a setHeadAPI) SetHead(ctx context.Context, number quantity) error {
	if err := a.indexOff(ctx); err != nil {
		return err
	}
	return a.p.Rewind(ctx, func(b *builder) error { return a.rewind(ctx, b, uint64(number)) })
}

// indexOff returns nil on a node that keeps no index: its feed of the
// chain's own index answers host.ErrNoIndex. A feed from past the end
// reads nothing where an index is kept.
func (a setHeadAPI) indexOff(ctx context.Context) error {
	err := a.index.Feed(ctx, "", Kind, math.MaxUint64, false, func(host.Container) error { return host.ErrStop })
	switch {
	case isIndexingDisabled(err):
		return nil
	case err != nil:
		return fmt.Errorf("debug_setHead: ask the host whether it keeps an index: %w", err)
	default:
		return errSetHeadIndexed
	}
}

// rewind makes block target the head, on the producer goroutine: the safe
// and finalized blocks come down to it, the reported height goes down with
// the head (reporter.rewind), and the abandoned transactions lose their
// lookup entries, which go-ethereum's rewind leaves, so that a lookup
// finds no block for them instead of a block that lacks them.
func (a setHeadAPI) rewind(ctx context.Context, b *builder, target uint64) error {
	head := a.chain.CurrentBlock()
	to, abandoned, err := rewindTarget(a.chain, head, target)
	if err != nil {
		return err
	}
	b.lowerMarkers(to)
	err = a.r.rewind(ctx, target, func() error {
		if err := a.chain.SetHead(target); err != nil {
			return err
		}
		rawdb.DeleteTxLookupEntries(a.db, abandoned)
		return nil
	})
	if err != nil {
		return fmt.Errorf("rewind to block %d: %w", target, err)
	}
	if now := a.chain.CurrentBlock(); now.Hash() != to.Hash() {
		return fmt.Errorf("rewind to block %d %s: the head is %d %s afterwards", target, to.Hash(), now.Number, now.Hash())
	}
	a.log.Info("chain rewound (debug_setHead)", "from", head.Number, "fromHash", head.Hash(), "to", target, "hash", to.Hash(),
		"abandonedTxs", len(abandoned))
	return nil
}

// rewindTarget returns the header of block target, which the chain at head
// may rewind to, and the hashes of the transactions of the blocks above
// it. The target is below the head, no block above it holds atomic
// transactions (their shared-memory operations, made when the block was
// reported, cannot be undone), and its state is kept.
func rewindTarget(chain *core.BlockChain, head *types.Header, target uint64) (*types.Header, []common.Hash, error) {
	if target >= head.Number.Uint64() {
		return nil, nil, fmt.Errorf("block %d is not below the head %d: debug_setHead only rewinds", target, head.Number)
	}
	var abandoned []common.Hash
	for n := head.Number.Uint64(); n > target; n-- {
		blk := chain.GetBlockByNumber(n)
		if blk == nil {
			return nil, nil, fmt.Errorf("block %d missing below the head %d", n, head.Number)
		}
		if atomicvm.HasTxs(blk) {
			return nil, nil, fmt.Errorf("cannot rewind to block %d: block %d holds atomic transactions (imports or exports), "+
				"whose shared-memory operations cannot be undone; rewind to block %d or above", target, n, n)
		}
		for _, tx := range blk.Transactions() {
			abandoned = append(abandoned, tx.Hash())
		}
	}
	to := chain.GetHeaderByNumber(target)
	if to == nil {
		return nil, nil, fmt.Errorf("block %d missing below the head %d", target, head.Number)
	}
	if !chain.HasState(to.Root) && !chain.StateRecoverable(to.Root) {
		return nil, nil, fmt.Errorf("cannot rewind to block %d: its state is no longer kept (the chain prunes state, pruning-enabled); rewind to a later block", target)
	}
	return to, abandoned, nil
}
