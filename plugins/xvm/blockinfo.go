package xvm

import (
	"context"

	"github.com/chainhost/chainhost/sdk/blockinfo"
)

// getBlockInfo serves blockinfo.Method on the indexer handler, over the
// blocks of X/block.
func (vm *VM) getBlockInfo(ctx context.Context, a blockinfo.Args) ([]blockinfo.Block, error) {
	accepted, err := vm.AcceptedCount(ctx, KindBlock)
	if err != nil {
		return nil, err
	}
	return vm.BlockInfo(ctx, a, accepted)
}
