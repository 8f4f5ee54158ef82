package evmremote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/trie"
	"golang.org/x/sync/errgroup"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// rpcTx is a transaction of eth_getBlockByNumber(n, true).
type rpcTx struct {
	Hash                 *common.Hash    `json:"hash"`
	BlockHash            *common.Hash    `json:"blockHash"`
	BlockNumber          *hexutil.Uint64 `json:"blockNumber"`
	TransactionIndex     *hexutil.Uint64 `json:"transactionIndex"`
	Type                 hexutil.Uint64  `json:"type"`
	From                 *common.Address `json:"from"`
	To                   *common.Address `json:"to"`
	Value                *hexutil.Big    `json:"value"`
	Input                *hexutil.Bytes  `json:"input"`
	Nonce                *hexutil.Uint64 `json:"nonce"`
	Gas                  *hexutil.Uint64 `json:"gas"`
	GasPrice             *hexutil.Big    `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big    `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big    `json:"maxPriorityFeePerGas"`
}

// rpcBlock is a block of eth_getBlockByNumber(n, true), decoded and
// checked (decodeBlock).
type rpcBlock struct {
	rpcHeader
	txs []rpcTx
	// header is the block's header when its hash is go-ethereum's hash of
	// it, nil when it is not (a chain whose headers have more fields).
	header *types.Header
}

// rpcReceipt is a receipt of eth_getBlockReceipts or
// eth_getTransactionReceipt.
type rpcReceipt struct {
	TransactionHash   *common.Hash    `json:"transactionHash"`
	TransactionIndex  *hexutil.Uint64 `json:"transactionIndex"`
	BlockHash         *common.Hash    `json:"blockHash"`
	BlockNumber       *hexutil.Uint64 `json:"blockNumber"`
	Status            hexutil.Uint64  `json:"status"` // absent (0) before Byzantium, as go-ethereum stores it
	CumulativeGasUsed *hexutil.Uint64 `json:"cumulativeGasUsed"`
	Logs              []rpcLog        `json:"logs"`
}

type rpcLog struct {
	Address *common.Address `json:"address"`
	Topics  []common.Hash   `json:"topics"`
	Data    *hexutil.Bytes  `json:"data"`
}

// Blocks returns the blocks from number from on, at most count, with
// their transactions, receipts and call frames: exactly what the EVM's
// indexer_getBlocks answers for them (evmapi.Block), read through the
// standard JSON-RPC only. It answers fewer blocks (none) past the head.
//
// It asks eth_getBlockByNumber(n, true) for the blocks in one batch, then,
// at once, the receipts (eth_getBlockReceipts, or
// eth_getTransactionReceipt per transaction where the node lacks it) in a
// batch and the call frames (debug_traceBlockByHash with the call tracer,
// or trace_block, or none: Tracing) of those with transactions, a few
// blocks a request.
//
// An answer is refused, never returned, with an ErrMalformed error when:
// a field has the wrong JSON type or is missing; a block has another
// number than asked; a transaction's blockHash, blockNumber or
// transactionIndex is not its place; a transaction of a type go-ethereum
// knows does not decode or hashes to another hash than its own; a
// receipt's transactionHash, transactionIndex, blockHash or blockNumber
// is not its transaction's; the cumulative gas decreases; the receipts or
// traces are not one per transaction, or a trace names another
// transaction or sender. When the block's header decodes as go-ethereum's
// types.Header whose hash is the block's, its transactions must make its
// transactionsRoot and its receipts (where they decode as go-ethereum's)
// its receiptsRoot: the answer is then the block the hash names. A header
// that does not hash to the block's hash (avalanchego's headers carry
// more fields) is not refused; the checks before still apply. The
// senders (from) are taken as answered, not recovered from the
// signatures, and call frames are the tracer's, which no hash commits
// to. Blocks of one answer not linked by their parent hashes give
// ErrReorg.
func (c *Client) Blocks(ctx context.Context, from uint64, count int) ([]evmapi.Block, error) {
	raws, err := c.getBlocks(ctx, from, count, true)
	if err != nil {
		return nil, err
	}
	blocks := make([]*rpcBlock, len(raws))
	var first *rpcBlock // the first with transactions
	for i, raw := range raws {
		num := from + uint64(i)
		b, err := decodeBlock(raw, num)
		if err != nil {
			return nil, c.wrap(fmt.Errorf("block %d: %w", num, err))
		}
		if i > 0 && *b.ParentHash != *blocks[i-1].Hash {
			return nil, c.wrap(fmt.Errorf("block %d: %w", num, ErrReorg))
		}
		if first == nil && len(b.txs) > 0 {
			first = b
		}
		blocks[i] = b
	}
	if first == nil {
		out := make([]evmapi.Block, len(blocks))
		for i, b := range blocks {
			out[i] = b.assemble(nil, nil)
		}
		return out, nil
	}
	caps, err := c.probe(ctx, first)
	if err != nil {
		return nil, err
	}
	return c.complete(ctx, caps, blocks)
}

// decodeBlock decodes and checks a block of eth_getBlockByNumber(num,
// true).
func decodeBlock(raw json.RawMessage, num uint64) (*rpcBlock, error) {
	var b struct {
		rpcHeader
		Transactions []json.RawMessage `json:"transactions"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, malformed("%v", err)
	}
	if err := b.check(&num); err != nil {
		return nil, err
	}
	out := &rpcBlock{rpcHeader: b.rpcHeader, txs: make([]rpcTx, len(b.Transactions))}
	var h types.Header
	if json.Unmarshal(raw, &h) == nil && h.Hash() == *b.Hash {
		out.header = &h
	}
	decoded := make(types.Transactions, 0, len(b.Transactions))
	for i, rawTx := range b.Transactions {
		tx := &out.txs[i]
		if err := json.Unmarshal(rawTx, tx); err != nil {
			return nil, malformed("transaction %d: %v", i, err)
		}
		switch {
		case tx.Hash == nil, tx.From == nil, tx.Value == nil, tx.Input == nil, tx.Nonce == nil, tx.Gas == nil:
			return nil, malformed("transaction %d without hash, from, value, input, nonce or gas", i)
		case tx.GasPrice == nil && (tx.MaxFeePerGas == nil || tx.MaxPriorityFeePerGas == nil):
			return nil, malformed("transaction %d without gasPrice", i)
		case tx.BlockHash == nil || *tx.BlockHash != *b.Hash, tx.BlockNumber == nil || uint64(*tx.BlockNumber) != num,
			tx.TransactionIndex == nil || uint64(*tx.TransactionIndex) != uint64(i):
			return nil, malformed("transaction %d (%s) says it is elsewhere than transaction %d of block %d (%s)", i, tx.Hash, i, num, b.Hash)
		}
		var gtx types.Transaction
		err := gtx.UnmarshalJSON(rawTx)
		switch {
		case errors.Is(err, types.ErrTxTypeNotSupported): // a type of another chain: its hash is not checked
		case err != nil:
			return nil, malformed("transaction %d (%s): %v", i, tx.Hash, err)
		case gtx.Hash() != *tx.Hash:
			return nil, malformed("transaction %d hashes to %s, not %s", i, gtx.Hash(), tx.Hash)
		default:
			decoded = append(decoded, &gtx)
		}
	}
	if out.header != nil && len(decoded) == len(out.txs) {
		if root := types.DeriveSha(decoded, trie.NewStackTrie(nil)); root != out.header.TxHash {
			return nil, malformed("the transactions make the root %s, not the header's %s", root, out.header.TxHash)
		}
	}
	return out, nil
}

// maxBatch is the most requests a Client sends in one batch.
const maxBatch = 500

// tracesPerRequest is how many blocks' traces one request asks for.
const tracesPerRequest = 2

// complete reads the receipts and frames of the blocks with transactions
// in one batch and assembles the answer.
func (c *Client) complete(ctx context.Context, caps *capabilities, blocks []*rpcBlock) ([]evmapi.Block, error) {
	type reads struct {
		receipts []json.RawMessage // one (eth_getBlockReceipts) or one per transaction
		trace    json.RawMessage
	}
	all := make([]reads, len(blocks))
	var receipts, traces []rpc.BatchElem
	for i, b := range blocks {
		if len(b.txs) == 0 {
			continue
		}
		r := &all[i]
		if caps.blockReceipts {
			r.receipts = make([]json.RawMessage, 1)
			receipts = append(receipts, rpc.BatchElem{Method: "eth_getBlockReceipts", Args: []any{*b.Hash}, Result: &r.receipts[0]})
		} else {
			r.receipts = make([]json.RawMessage, len(b.txs))
			for j := range b.txs {
				receipts = append(receipts, rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{*b.txs[j].Hash}, Result: &r.receipts[j]})
			}
		}
		switch caps.tracing {
		case TracingDebug:
			traces = append(traces, rpc.BatchElem{Method: "debug_traceBlockByHash", Args: []any{*b.Hash, evmapi.CallTracerConfig}, Result: &r.trace})
		case TracingTrace:
			traces = append(traces, rpc.BatchElem{Method: "trace_block", Args: []any{*b.Number}, Result: &r.trace})
		}
	}
	// A node answers the calls of one batch one after the other, and
	// tracing is most of its work: the traces go a few blocks a request,
	// beside the receipts, so that the node traces on all its cores (the
	// requests in flight stay within Options.InFlight). Nodes also cap the
	// requests of a batch (geth: 1,000 by default).
	var parts [][]rpc.BatchElem
	parts = slices.AppendSeq(parts, slices.Chunk(receipts, maxBatch))
	parts = slices.AppendSeq(parts, slices.Chunk(traces, tracesPerRequest))
	g, gctx := errgroup.WithContext(ctx)
	for _, part := range parts {
		g.Go(func() error { return c.rpc.BatchCallContext(gctx, part) })
	}
	if err := g.Wait(); err != nil {
		return nil, c.wrap(fmt.Errorf("receipts and traces of blocks %d-%d: %w", *blocks[0].Number, *blocks[len(blocks)-1].Number, err))
	}
	for _, e := range slices.Concat(receipts, traces) {
		if e.Error != nil {
			return nil, c.wrap(fmt.Errorf("%s %v: %w", e.Method, e.Args[0], e.Error))
		}
	}
	out := make([]evmapi.Block, len(blocks))
	for i, b := range blocks {
		if len(b.txs) == 0 {
			out[i] = b.assemble(nil, nil)
			continue
		}
		items := all[i].receipts
		if caps.blockReceipts {
			if err := json.Unmarshal(items[0], &items); err != nil {
				return nil, c.wrap(fmt.Errorf("block %d: receipts: %w", *b.Number, malformed("%v", err)))
			}
		}
		receipts, err := b.decodeReceipts(items)
		if err != nil {
			return nil, c.wrap(fmt.Errorf("block %d: receipts: %w", *b.Number, err))
		}
		var frames [][]evmapi.CallFrame
		switch caps.tracing {
		case TracingDebug:
			frames, err = b.callTracerFrames(all[i].trace)
		case TracingTrace:
			frames, err = b.parityFrames(all[i].trace, receipts)
		}
		if err != nil {
			return nil, c.wrap(fmt.Errorf("block %d: traces: %w", *b.Number, err))
		}
		out[i] = b.assemble(receipts, frames)
	}
	return out, nil
}

// decodeReceipts decodes and checks the receipts of the block, one item
// per transaction.
func (b *rpcBlock) decodeReceipts(items []json.RawMessage) ([]rpcReceipt, error) {
	if len(items) != len(b.txs) {
		return nil, malformed("%d receipts for %d transactions", len(items), len(b.txs))
	}
	out := make([]rpcReceipt, len(items))
	// The root is checked when the header is go-ethereum's and go-ethereum
	// decodes every receipt.
	rootCheck := b.header != nil
	goReceipts := make(types.Receipts, 0, len(items))
	var prevGas uint64
	for i, raw := range items {
		r, tx := &out[i], &b.txs[i]
		if isNull(raw) {
			return nil, malformed("no receipt of transaction %d (%s)", i, tx.Hash)
		}
		if err := json.Unmarshal(raw, r); err != nil {
			return nil, malformed("receipt %d: %v", i, err)
		}
		switch {
		case r.TransactionHash == nil || *r.TransactionHash != *tx.Hash, r.TransactionIndex == nil || uint64(*r.TransactionIndex) != uint64(i),
			r.BlockHash == nil || *r.BlockHash != *b.Hash, r.BlockNumber == nil || *r.BlockNumber != *b.Number:
			return nil, malformed("receipt %d is not that of transaction %d (%s) of block %d (%s)", i, i, tx.Hash, *b.Number, b.Hash)
		case r.CumulativeGasUsed == nil || r.Logs == nil:
			return nil, malformed("receipt %d without cumulativeGasUsed or logs", i)
		case uint64(*r.CumulativeGasUsed) < prevGas:
			return nil, malformed("receipt %d: the cumulative gas used decreases", i)
		case r.Status > 1:
			return nil, malformed("receipt %d: status %d", i, r.Status)
		}
		prevGas = uint64(*r.CumulativeGasUsed)
		for j, l := range r.Logs {
			if l.Address == nil || l.Topics == nil || l.Data == nil {
				return nil, malformed("receipt %d log %d without address, topics or data", i, j)
			}
		}
		if rootCheck {
			var gr types.Receipt
			rootCheck = gr.UnmarshalJSON(raw) == nil
			goReceipts = append(goReceipts, &gr)
		}
	}
	if rootCheck {
		if root := types.DeriveSha(goReceipts, trie.NewStackTrie(nil)); root != b.header.ReceiptHash {
			return nil, malformed("the receipts make the root %s, not the header's %s", root, b.header.ReceiptHash)
		}
	}
	return out, nil
}

// callTracerFrames flattens debug_traceBlockByHash's call tracer answer.
func (b *rpcBlock) callTracerFrames(raw json.RawMessage) ([][]evmapi.CallFrame, error) {
	var res []evmapi.TraceResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, malformed("%v", err)
	}
	if len(res) != len(b.txs) {
		return nil, malformed("%d traces for %d transactions", len(res), len(b.txs))
	}
	out := make([][]evmapi.CallFrame, len(res))
	for i, r := range res {
		tx := &b.txs[i]
		switch {
		case r.Error != "" || r.Result == nil:
			return nil, fmt.Errorf("%w: transaction %d (%s): %s", ErrTrace, i, tx.Hash, r.Error)
		case r.TxHash != *tx.Hash:
			return nil, malformed("trace %d is of transaction %s, not %s", i, r.TxHash, tx.Hash)
		case r.Result.From != *tx.From:
			return nil, malformed("trace %d: the call is from %s, the transaction from %s", i, r.Result.From, tx.From)
		}
		out[i] = evmapi.FlattenFrames(nil, r.Result, 0)
	}
	return out, nil
}

// assemble returns the block in evmapi's shape, as the EVM's
// indexer_getBlocks builds it: the gas used of a transaction is the
// difference of the cumulative gas, log indexes count in the block, the
// contract address and gas price follow evmapi's rules, and without
// frames (Tracing "none") a transaction's only frame is its own call.
func (b *rpcBlock) assemble(receipts []rpcReceipt, frames [][]evmapi.CallFrame) evmapi.Block {
	out := evmapi.Block{
		Number:       *b.Number,
		Hash:         *b.Hash,
		ParentHash:   *b.ParentHash,
		Timestamp:    *b.Timestamp,
		GasLimit:     *b.GasLimit,
		GasUsed:      *b.GasUsed,
		BaseFee:      b.BaseFee,
		Transactions: make([]evmapi.Transaction, len(b.txs)),
	}
	baseFee := (*big.Int)(b.BaseFee)
	var prevGas uint64
	logIndex := 0
	for i := range b.txs {
		tx, r, t := &b.txs[i], &receipts[i], &out.Transactions[i]
		t.Hash = *tx.Hash
		t.Index = hexutil.Uint64(i)
		t.Type = tx.Type
		t.From = *tx.From
		t.To = tx.To
		t.Value = tx.Value
		t.Input = *tx.Input
		t.Nonce = *tx.Nonce
		t.Gas = *tx.Gas
		feeCap, tip := (*big.Int)(tx.GasPrice), (*big.Int)(tx.GasPrice)
		if tx.Type >= types.DynamicFeeTxType && tx.MaxFeePerGas != nil && tx.MaxPriorityFeePerGas != nil {
			feeCap, tip = (*big.Int)(tx.MaxFeePerGas), (*big.Int)(tx.MaxPriorityFeePerGas)
			t.MaxFeePerGas, t.MaxPriorityFeePerGas = tx.MaxFeePerGas, tx.MaxPriorityFeePerGas
		}
		t.GasPrice = (*hexutil.Big)(evmapi.EffectiveGasPrice(feeCap, tip, baseFee))
		t.Status = r.Status
		t.GasUsed = hexutil.Uint64(uint64(*r.CumulativeGasUsed) - prevGas)
		prevGas = uint64(*r.CumulativeGasUsed)
		t.ContractAddress = evmapi.ContractAddress(t.From, uint64(t.Nonce), t.To, uint64(t.Status))
		t.Logs = make([]evmapi.Log, len(r.Logs))
		for j, l := range r.Logs {
			t.Logs[j] = evmapi.Log{Index: hexutil.Uint64(logIndex + j), Address: *l.Address, Topics: l.Topics, Data: *l.Data}
		}
		logIndex += len(r.Logs)
		if frames != nil {
			t.Calls = frames[i]
		} else {
			t.Calls = []evmapi.CallFrame{topFrame(t)}
		}
	}
	return out
}

// topFrame is a transaction's own call, for a node that traces nothing.
func topFrame(t *evmapi.Transaction) evmapi.CallFrame {
	f := evmapi.CallFrame{Type: evmapi.CallType, From: t.From, Value: t.Value, Gas: t.Gas, GasUsed: t.GasUsed, Reverted: t.Status == 0}
	switch {
	case t.To != nil:
		f.To = *t.To
	case t.ContractAddress != nil:
		f.Type, f.To = evmapi.CreateType, *t.ContractAddress
	default:
		f.Type = evmapi.CreateType // a creation that failed made no contract
	}
	return f
}
