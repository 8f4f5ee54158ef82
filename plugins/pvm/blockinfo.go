package pvm

import (
	"context"

	"github.com/chainhost/chainhost/sdk/blockinfo"
)

// getBlockInfo serves blockinfo.Method on the indexer handler: the blocks
// at positions of P/block, position p holding height p+1 (GetAccepted).
func (vm *VM) getBlockInfo(ctx context.Context, a blockinfo.Args) ([]blockinfo.Block, error) {
	accepted, err := vm.AcceptedCount(ctx, kindBlock)
	if err != nil {
		return nil, err
	}
	return blockinfo.Answer(ctx, a, accepted, func(ctx context.Context, p uint64) (blockinfo.Block, error) {
		b, err := vm.db.block(ctx, p+1)
		if err != nil {
			return blockinfo.Block{}, err
		}
		return blockinfo.Block{ID: b.ID(), Height: b.Height, Time: int64(b.Time), Txs: len(b.Txs)}, nil
	})
}
