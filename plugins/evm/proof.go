package evm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/rpc"
)

// pruningProofWindow is how many blocks before the last accepted one a
// pruning chain serves proofs for (docs/evm.md).
const pruningProofWindow = 32

// proofAPI wraps eth_getProof with the windows of docs/evm.md: an
// archival chain refuses blocks more than historical-proof-query-window
// blocks before the last accepted block (0 accepts any), a pruning chain
// refuses blocks more than 32 blocks before it.
type proofAPI struct {
	chain   *core.BlockChain
	inner   *rpc.Client
	pruning bool
	window  uint64
}

// GetProof is eth_getProof, checked against the window, then answered by
// go-ethereum; the block defaults to latest.
func (a proofAPI) GetProof(ctx context.Context, address common.Address, storageKeys []string, blockArg *rpc.BlockNumberOrHash) (json.RawMessage, error) {
	block := rpc.BlockNumberOrHashWithNumber(rpc.LatestBlockNumber)
	if blockArg != nil {
		block = *blockArg
	}
	if err := a.check(block); err != nil {
		return nil, err
	}
	if storageKeys == nil {
		storageKeys = []string{}
	}
	var out json.RawMessage
	if err := a.inner.CallContext(ctx, &out, "eth_getProof", address, storageKeys, block); err != nil {
		return nil, err
	}
	return out, nil
}

// check refuses a block outside the window.
func (a proofAPI) check(block rpc.BlockNumberOrHash) error {
	head := a.chain.CurrentBlock().Number.Uint64()
	var n uint64
	if h, ok := block.Hash(); ok {
		hdr := a.chain.GetHeaderByHash(h)
		if hdr == nil {
			return nil // go-ethereum answers "header not found"
		}
		n = hdr.Number.Uint64()
	} else if num, ok := block.Number(); ok {
		switch {
		case num == rpc.EarliestBlockNumber:
			n = 0
		case num < 0: // latest, pending, safe, finalized: within any window
			return nil
		default:
			n = uint64(num)
		}
	}
	if n >= head {
		return nil
	}
	age := head - n
	switch {
	case a.pruning && age > pruningProofWindow:
		return fmt.Errorf("cannot serve a proof for block %d: this chain prunes state (pruning-enabled) and serves proofs only for the last %d blocks before the last accepted block %d", n, pruningProofWindow, head)
	case !a.pruning && a.window > 0 && age > a.window:
		return fmt.Errorf("cannot serve a proof for block %d: it is %d blocks before the last accepted block %d, beyond the historical-proof-query-window of %d blocks", n, age, head, a.window)
	}
	return nil
}
