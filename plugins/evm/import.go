package evm

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// importBatch is how many blocks are inserted at once.
const importBatch = 2500

// importChain inserts the blocks of an RLP chain file (consecutive RLP
// blocks, as `geth export` writes) that the chain lacks, then makes head
// (when not zero) the head, safe and finalized block. It returns how many
// blocks were inserted.
func importChain(chain *core.BlockChain, path string, head common.Hash) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open chain file: %w", err)
	}
	defer f.Close()
	stream := rlp.NewStream(f, 0)
	inserted := 0
	var batch types.Blocks
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var missing types.Blocks
		for _, b := range batch {
			if !chain.HasBlock(b.Hash(), b.NumberU64()) {
				missing = append(missing, b)
			}
		}
		batch = batch[:0]
		if len(missing) == 0 {
			return nil
		}
		if n, err := chain.InsertChain(missing); err != nil {
			return fmt.Errorf("insert block %d: %w", missing[n].NumberU64(), err)
		}
		inserted += len(missing)
		return nil
	}
	for {
		var b types.Block
		if err := stream.Decode(&b); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return inserted, fmt.Errorf("decode block %d of %s: %w", inserted+len(batch), path, err)
		}
		if b.NumberU64() == 0 {
			continue // the genesis block
		}
		batch = append(batch, &b)
		if len(batch) == importBatch {
			if err := flush(); err != nil {
				return inserted, err
			}
		}
	}
	if err := flush(); err != nil {
		return inserted, err
	}
	if head == (common.Hash{}) {
		return inserted, nil
	}
	blk := chain.GetBlockByHash(head)
	if blk == nil {
		return inserted, fmt.Errorf("import head %s is not in the chain", head)
	}
	if chain.CurrentBlock().Hash() != head {
		if _, err := chain.SetCanonical(blk); err != nil {
			return inserted, fmt.Errorf("set head %s: %w", head, err)
		}
	}
	chain.SetSafe(blk.Header())
	chain.SetFinalized(blk.Header())
	return inserted, nil
}
