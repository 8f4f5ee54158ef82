package series

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	pblocks "github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
)

// blockKind is the index kind of every chain's accepted blocks.
const blockKind = "block"

// decoder reads a block's timestamp and transaction count from its bytes
// in a chain's block index.
type decoder func([]byte) (store.Block, error)

// decoders are the block formats the series read, by VM name: a chain of
// another VM has no throughput series.
var decoders = map[string]decoder{
	evmapi.VMName: evmBlock,
	xvmapi.VMName: xBlock,
	pvmapi.VMName: pBlock,
}

// evmBlock reads an EVM block: its RLP (docs/evm.md, "Storage and the
// index").
func evmBlock(b []byte) (store.Block, error) {
	var blk types.Block
	if err := rlp.DecodeBytes(b, &blk); err != nil {
		return store.Block{}, fmt.Errorf("decode an EVM block: %w", err)
	}
	return store.Block{Time: int64(blk.Time()), Txs: len(blk.Transactions())}, nil
}

// xBlock reads an X-Chain block (docs/xvm.md).
func xBlock(b []byte) (store.Block, error) {
	blk, err := blocks.ParseBlock(b)
	if err != nil {
		return store.Block{}, fmt.Errorf("decode an X-Chain block: %w", err)
	}
	return store.Block{Time: int64(blk.Time), Txs: len(blk.Txs)}, nil
}

// pBlock reads a P-Chain block (docs/pchain.md).
func pBlock(b []byte) (store.Block, error) {
	blk, err := pblocks.Parse(b)
	if err != nil {
		return store.Block{}, fmt.Errorf("decode a P-Chain block: %w", err)
	}
	return store.Block{Time: int64(blk.Time), Txs: len(blk.Txs)}, nil
}
