package atomicvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoapi"
	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Handler serves the chain-native methods of docs/api/atomic.md (atomic
// transactions, docs/evm.md) under prefix: "native" or "avax" (what
// existing clients call).
func (a *VM) Handler(prefix string, maxBatch int) *jsonrpc.Server {
	s := jsonrpc.NewServer(jsonrpc.Options{MaxBatchSize: maxBatch})
	for name, h := range map[string]jsonrpc.Handler{
		"getUTXOs":          jsonrpc.Method(a.getUTXOs),
		"issueTx":           jsonrpc.Method(a.issueTx),
		"getAtomicTxStatus": jsonrpc.Method(a.getAtomicTxStatus),
		"getAtomicTx":       jsonrpc.Method(a.getAtomicTx),
		"getBlockAtomicTxs": jsonrpc.Method(a.getBlockAtomicTxs),
	} {
		s.Register(prefix+"."+name, h)
	}
	return s
}

// getUTXOs returns a page of the UTXOs sourceChain exported to this chain
// (in shared memory, to import) that the addresses own.
func (a *VM) getUTXOs(ctx context.Context, args utxoapi.GetUTXOsArgs) (utxoapi.GetUTXOsReply, error) {
	if err := utxoapi.CheckAddressCount("addresses", args.Addresses); err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	if args.SourceChain == "" {
		return utxoapi.GetUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain" is required: the chain that exported the UTXOs`)
	}
	q, err := a.apiChain().ParseUTXOsQuery(ctx, args)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	source, err := a.env.Host.Chains.Resolve(ctx, args.SourceChain)
	if errors.Is(err, host.ErrNotFound) {
		return utxoapi.GetUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain": no chain %q on this node`, args.SourceChain)
	}
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	if source.ID == a.env.ChainID {
		return utxoapi.GetUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain": %q is this chain; name the chain that exported the UTXOs`, args.SourceChain)
	}
	if err := a.available(); err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	raw, endAddr, endUTXO, err := utxoapi.PageShared(ctx, a.shared, source.ID, q.Addrs, q.Page)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	endAddress, err := avax.FormatAddress(a.env.Name, a.hrp, endAddr)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	return utxoapi.NewGetUTXOsReply(q.Encoding, raw, endAddress, endUTXO), nil
}

// apiChain is what the API's params are read against: this chain, on its
// network.
func (a *VM) apiChain() utxoapi.Chain { return utxoapi.Chain{Env: a.env, HRP: a.hrp} }

// issueTx checks a signed import or export and adds it to the next block;
// it answers at once, as coreth does: getAtomicTxStatus follows it.
func (a *VM) issueTx(ctx context.Context, args utxoapi.IssueTxArgs) (utxoapi.TxIDReply, error) {
	raw, err := args.TxBytes()
	if err != nil {
		return utxoapi.TxIDReply{}, err
	}
	t, err := atx.Parse(raw)
	if err != nil {
		return utxoapi.TxIDReply{}, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	if err := a.issue(ctx, t); err != nil {
		return utxoapi.TxIDReply{}, err
	}
	return utxoapi.TxIDReply{TxID: t.ID()}, nil
}

type txIDArgs struct {
	TxID string `json:"txID"`
}

type statusReply struct {
	Status      string          `json:"status"`
	BlockHeight *jsonrpc.Uint64 `json:"blockHeight,omitempty"`
}

// getAtomicTxStatus answers coreth's statuses: Accepted (with the block's
// height), Processing, Dropped or Unknown.
func (a *VM) getAtomicTxStatus(ctx context.Context, args txIDArgs) (statusReply, error) {
	_, st, err := a.lookup(ctx, args.TxID)
	if err != nil {
		return statusReply{}, err
	}
	return statusReply{Status: st.status, BlockHeight: heightJSON(st.height)}, nil
}

type getAtomicTxArgs struct {
	TxID     string `json:"txID"`
	Encoding string `json:"encoding"`
}

type getAtomicTxReply struct {
	Tx          json.RawMessage `json:"tx"`
	Encoding    string          `json:"encoding"`
	BlockHeight *jsonrpc.Uint64 `json:"blockHeight,omitempty"`
}

// getAtomicTx returns a transaction the chain knows (any status but
// Unknown), its bytes or, with encoding json, its JSON form, with the
// height of its block once accepted.
func (a *VM) getAtomicTx(ctx context.Context, args getAtomicTxArgs) (getAtomicTxReply, error) {
	id, st, err := a.lookup(ctx, args.TxID)
	if err != nil {
		return getAtomicTxReply{}, err
	}
	enc, err := avax.ParseEncoding(args.Encoding, true)
	if err != nil {
		return getAtomicTxReply{}, err
	}
	if st.tx == nil {
		return getAtomicTxReply{}, fmt.Errorf("could not find tx %s", id)
	}
	tx, err := utxoapi.Encode(enc, st.tx.Bytes(), func() any { return a.txJSON(ctx, st.tx) })
	return getAtomicTxReply{Tx: tx, Encoding: enc, BlockHeight: heightJSON(st.height)}, err
}

type blockTxsArgs struct {
	BlockHeight *jsonrpc.Uint64 `json:"blockHeight"`
	Encoding    string          `json:"encoding"`
}

type blockTxsReply struct {
	Txs      []json.RawMessage `json:"txs"`
	Encoding string            `json:"encoding"`
}

// getBlockAtomicTxs lists the atomic transactions of the chain's block at
// a height, in the order the block applies them, as getAtomicTx writes
// them; a block without any answers none. The EVM block shows only their
// commitment (docs/evm.md, "Where the batch is").
func (a *VM) getBlockAtomicTxs(ctx context.Context, args blockTxsArgs) (blockTxsReply, error) {
	if args.BlockHeight == nil {
		return blockTxsReply{}, jsonrpc.InvalidParams(`"blockHeight" is required`)
	}
	enc, err := avax.ParseEncoding(args.Encoding, true)
	if err != nil {
		return blockTxsReply{}, err
	}
	height := uint64(*args.BlockHeight)
	blk := a.opts.Chain.GetBlockByNumber(height)
	if blk == nil {
		return blockTxsReply{}, fmt.Errorf("block %d not found: the chain's last block is %d", height, a.opts.Chain.CurrentBlock().Number.Uint64())
	}
	txs, err := a.opts.Store.BlockTxs(ctx, blk)
	if err != nil {
		return blockTxsReply{}, err
	}
	out := blockTxsReply{Txs: make([]json.RawMessage, len(txs)), Encoding: enc}
	for i, t := range txs {
		if out.Txs[i], err = utxoapi.Encode(enc, t.Bytes(), func() any { return a.txJSON(ctx, t) }); err != nil {
			return blockTxsReply{}, err
		}
	}
	return out, nil
}

// lookup reads the txID param and returns what the chain knows of the
// transaction.
func (a *VM) lookup(ctx context.Context, txID string) (ids.ID, txStatus, error) {
	id, err := utxoapi.ParseID("txID", txID)
	if err != nil {
		return ids.ID{}, txStatus{}, err
	}
	st, err := a.status(ctx, id)
	return id, st, err
}

func heightJSON(h *uint64) *jsonrpc.Uint64 {
	if h == nil {
		return nil
	}
	v := jsonrpc.Uint64(*h)
	return &v
}
