package evm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// nsIndexer is the namespace of the indexer handler's own methods
// (evmapi.GetBlocksMethod).
const nsIndexer = "indexer"

// invalidParamsError is a JSON-RPC -32602 error.
type invalidParamsError struct{ msg string }

func (e *invalidParamsError) Error() string  { return e.msg }
func (e *invalidParamsError) ErrorCode() int { return -32602 }

// blocksAPI serves evmapi.GetBlocksMethod on the indexer handler: the
// accepted blocks with their transactions, receipts and call frames in one
// answer, read in bulk (a block's body, receipts and frame record are one
// database read each) and encoded once (appendBlocks). docs/evm.md
// describes the method.
type blocksAPI struct {
	db     ethdb.Reader // go-ethereum's chain database
	frames *frameStore
	// reported is the height of the last block reported to the index: no
	// block above it is answered.
	reported func() uint64
	// inner is the unfiltered in-process JSON-RPC server, whose tracers
	// re-execute a block whose frames were not recorded.
	inner      *rpc.Client
	reexecuted prometheus.Counter
	log        hclog.Logger
}

// GetBlocks is evmapi.GetBlocksMethod: params [from, count]. The answer
// is its JSON, encoded once: go-ethereum's server writes a result that is
// a json.Marshaler as it is, without another pass over it.
func (api *blocksAPI) GetBlocks(ctx context.Context, from, count hexutil.Uint64) (json.RawMessage, error) {
	if count == 0 {
		return nil, &invalidParamsError{"invalid argument 1: count must be at least 1"}
	}
	blocks, size, err := api.read(ctx, uint64(from), uint64(count))
	if err != nil && len(blocks) == 0 {
		return nil, err
	}
	// The blocks before a block that cannot be answered are answered; the
	// next request, from that block, gets the error.
	return appendBlocks(make([]byte, 0, size), blocks), nil
}

// read returns the blocks of a GetBlocks answer and about the size of
// their JSON. On an error it returns the blocks before the one that failed.
func (api *blocksAPI) read(ctx context.Context, from, count uint64) ([]evmapi.Block, int, error) {
	head := api.reported()
	if from > head {
		return []evmapi.Block{}, 0, nil
	}
	last := head
	if n := min(count, evmapi.MaxBlocks); n-1 < head-from {
		last = from + n - 1
	}
	out := make([]evmapi.Block, 0, last-from+1)
	txs, size := 0, 2
	for num := from; ; num++ {
		if err := ctx.Err(); err != nil {
			return out, size, err
		}
		b, err := api.block(ctx, num)
		if err != nil {
			return out, size, err
		}
		out = append(out, b)
		txs += len(b.Transactions)
		size += jsonSize(&b)
		if num == last || txs >= evmapi.MaxTransactions {
			return out, size, nil
		}
	}
}

// jsonSize is a little more than the size of a block's JSON, so that the
// answer is written into one buffer, never grown.
func jsonSize(b *evmapi.Block) int {
	n := 400
	for i := range b.Transactions {
		tx := &b.Transactions[i]
		n += 800 + 2*len(tx.Input) + 230*len(tx.Calls)
		for j := range tx.Logs {
			n += 150 + 70*len(tx.Logs[j].Topics) + 2*len(tx.Logs[j].Data)
		}
	}
	return n
}

// block reads the canonical block num with its receipts and frames.
func (api *blocksAPI) block(ctx context.Context, num uint64) (evmapi.Block, error) {
	hash := rawdb.ReadCanonicalHash(api.db, num)
	if hash == (common.Hash{}) {
		return evmapi.Block{}, fmt.Errorf("block %d is not in go-ethereum's database", num)
	}
	blk := rawdb.ReadBlock(api.db, hash, num)
	if blk == nil {
		return evmapi.Block{}, fmt.Errorf("block %d (%s) is not in go-ethereum's database", num, hash)
	}
	baseFee := blk.BaseFee()
	b := evmapi.Block{
		Number:     hexutil.Uint64(num),
		Hash:       hash,
		ParentHash: blk.ParentHash(),
		Timestamp:  hexutil.Uint64(blk.Time()),
		GasLimit:   hexutil.Uint64(blk.GasLimit()),
		GasUsed:    hexutil.Uint64(blk.GasUsed()),
		BaseFee:    (*hexutil.Big)(baseFee),
	}
	txs := blk.Transactions()
	b.Transactions = make([]evmapi.Transaction, len(txs))
	if len(txs) == 0 {
		return b, nil
	}
	raw := rawdb.ReadReceiptsRLP(api.db, hash, num)
	if len(raw) == 0 {
		return evmapi.Block{}, fmt.Errorf("block %d (%s): no receipts in go-ethereum's database", num, hash)
	}
	receipts, err := decodeReceipts(raw)
	if err != nil {
		return evmapi.Block{}, fmt.Errorf("block %d (%s): %w", num, hash, err)
	}
	if len(receipts) != len(txs) {
		return evmapi.Block{}, fmt.Errorf("block %d (%s): %d receipts for %d transactions", num, hash, len(receipts), len(txs))
	}
	frames, err := api.blockFrames(ctx, hash, blk)
	if err != nil {
		return evmapi.Block{}, err
	}
	var prevGas uint64
	logIndex := 0
	for i, tx := range txs {
		r := &receipts[i]
		calls := frames.tx(i)
		t := &b.Transactions[i]
		t.Hash = frames.hashes[i]
		t.Index = hexutil.Uint64(i)
		t.Type = hexutil.Uint64(tx.Type())
		t.From = calls[0].From // the top-level call's caller is the sender
		t.To = tx.To()
		t.Value = (*hexutil.Big)(tx.Value())
		t.Input = tx.Data()
		t.Nonce = hexutil.Uint64(tx.Nonce())
		t.Gas = hexutil.Uint64(tx.Gas())
		feeCap, tip := tx.GasFeeCap(), tx.GasTipCap() // copies, as is the value
		t.GasPrice = (*hexutil.Big)(evmapi.EffectiveGasPrice(feeCap, tip, baseFee))
		if tx.Type() >= types.DynamicFeeTxType {
			t.MaxFeePerGas, t.MaxPriorityFeePerGas = (*hexutil.Big)(feeCap), (*hexutil.Big)(tip)
		}
		t.Status = hexutil.Uint64(r.status)
		t.GasUsed = hexutil.Uint64(r.cumGas - prevGas)
		prevGas = r.cumGas
		t.ContractAddress = evmapi.ContractAddress(t.From, tx.Nonce(), t.To, r.status)
		t.Logs = r.logs
		for j := range t.Logs {
			t.Logs[j].Index = hexutil.Uint64(logIndex + j)
		}
		logIndex += len(t.Logs)
		t.Calls = calls
	}
	return b, nil
}

// blockFrames returns the call frames of a block with transactions: its
// record in the frame store, or, when there is none, those of
// go-ethereum's call tracer re-executing the block. (A block read in the
// instant between its insertion and its record's write is re-executed
// too.)
func (api *blocksAPI) blockFrames(ctx context.Context, hash common.Hash, blk *types.Block) (blockFrames, error) {
	rec, err := api.frames.get(hash)
	if err != nil {
		api.log.Warn("read call frames: re-executing the block", "block", blk.NumberU64(), "hash", hash, "err", err)
	}
	if rec != nil {
		f, err := decodeFrames(rec, len(blk.Transactions()))
		if err == nil {
			return f, nil
		}
		api.log.Warn("bad call frame record: re-executing the block", "block", blk.NumberU64(), "hash", hash, "err", err)
	}
	if api.reexecuted != nil {
		api.reexecuted.Inc()
	}
	f, err := api.traceFrames(ctx, hash, blk.Transactions())
	if err != nil {
		return blockFrames{}, fmt.Errorf("block %d (%s): its call frames were not recorded, and re-executing it failed: %w",
			blk.NumberU64(), hash, err)
	}
	return f, nil
}

// traceFrames re-executes a block with go-ethereum's call tracer and
// flattens its answer into frames in execution order. It fails when the
// state the block executes on is gone (a pruning chain keeps recent state
// only).
func (api *blocksAPI) traceFrames(ctx context.Context, hash common.Hash, txs types.Transactions) (blockFrames, error) {
	var res []evmapi.TraceResult
	if err := api.inner.CallContext(ctx, &res, "debug_traceBlockByHash", hash, evmapi.CallTracerConfig); err != nil {
		return blockFrames{}, err
	}
	if len(res) != len(txs) {
		return blockFrames{}, fmt.Errorf("the call tracer answered %d transactions of %d", len(res), len(txs))
	}
	out := blockFrames{hashes: make([]common.Hash, len(txs)), start: make([]int, 0, len(txs)+1)}
	for i, r := range res {
		if r.Error != "" || r.Result == nil {
			return blockFrames{}, fmt.Errorf("transaction %s: call tracer: %s", txs[i].Hash(), r.Error)
		}
		out.hashes[i] = r.TxHash
		out.start = append(out.start, len(out.calls))
		out.calls = evmapi.FlattenFrames(out.calls, r.Result, 0)
	}
	out.start = append(out.start, len(out.calls))
	return out, nil
}
