package evm

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/hashicorp/go-hclog"
)

// What the tests of package evm_test reach inside the VM.

// DeleteFrames deletes the recorded call frames of a block, as if they had
// never been recorded.
func (vm *VM) DeleteFrames(hash common.Hash) error { return vm.frames.delete(hash) }

// HasFrames reports whether the call frames of a block were recorded.
func (vm *VM) HasFrames(hash common.Hash) (bool, error) {
	rec, err := vm.frames.get(hash)
	return rec != nil, err
}

// ImportChainFile inserts the blocks of an RLP chain file, as the chain
// config's import-chain-file does at start.
func (vm *VM) ImportChainFile(path string) (int, error) {
	return importChain(vm.backend.BlockChain(), path, common.Hash{})
}

// OpenFrameDB opens a goleveldb as the VM opens its frame store.
func OpenFrameDB(dir string) (ethdb.KeyValueStore, error) { return openFrameDB(dir) }

// FrameRecorderHooks returns the live tracer hooks of a frame recorder
// that writes to db, for benchmarks of block insertion.
func FrameRecorderHooks(db ethdb.KeyValueStore) *tracing.Hooks {
	s := &frameStore{db: db}
	s.rec = &frameRecorder{store: s, log: hclog.NewNullLogger()}
	return s.rec.hooks()
}

// GetBlocks calls indexer_getBlocks in-process, without JSON-RPC.
func (vm *VM) GetBlocks(ctx context.Context, from, count uint64) ([]byte, error) {
	return vm.blocks.GetBlocks(ctx, hexutil.Uint64(from), hexutil.Uint64(count))
}
