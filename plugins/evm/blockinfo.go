package evm

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/sdk/blockinfo"
	"github.com/chainhost/chainhost/sdk/ids"
)

// GetBlockInfo serves blockinfo.Method on the indexer handler: the blocks
// reported to the index, position p holding block p+1 (containerAt). It
// reads each block's header and counts its transactions without decoding
// them.
func (api *blocksAPI) GetBlockInfo(ctx context.Context, a blockinfo.Args) ([]blockinfo.Block, error) {
	return blockinfo.Answer(ctx, a, api.reported(), func(_ context.Context, p uint64) (blockinfo.Block, error) {
		num := p + 1
		hash := rawdb.ReadCanonicalHash(api.db, num)
		header := rawdb.ReadHeader(api.db, hash, num)
		if hash == (common.Hash{}) || header == nil {
			return blockinfo.Block{}, fmt.Errorf("block %d is not in go-ethereum's database", num)
		}
		txs, err := countTxs(rawdb.ReadBodyRLP(api.db, hash, num))
		if err != nil {
			return blockinfo.Block{}, fmt.Errorf("block %d (%s): %w", num, hash, err)
		}
		return blockinfo.Block{ID: ids.ID(hash), Height: num, Time: int64(header.Time), Txs: txs}, nil
	})
}

// countTxs counts the transactions of a block body's RLP, its first list.
func countTxs(body []byte) (int, error) {
	fields, _, err := rlp.SplitList(body)
	if err != nil {
		return 0, fmt.Errorf("body: %w", err)
	}
	txs, _, err := rlp.SplitList(fields)
	if err != nil {
		return 0, fmt.Errorf("body's transactions: %w", err)
	}
	return rlp.CountValues(txs)
}
