package utxovm

import (
	"context"
	"errors"
	"fmt"
	"github.com/chainhost/chainhost/sdk/blockinfo"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// NewServer returns the JSON-RPC server of the chain's API: the methods
// every UTXO chain answers alike and the VM's own, each under every one of
// the chain's method prefixes ("platform.").
func (c *Core[U, I]) NewServer(prefixes []string, own map[string]jsonrpc.Handler) *jsonrpc.Server {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	for _, methods := range []map[string]jsonrpc.Handler{own, {
		"issueTx":          jsonrpc.Method(c.issueTx),
		"getTx":            jsonrpc.Method(c.getTx),
		"getTxStatus":      jsonrpc.Method(c.getTxStatus),
		"getUTXOs":         jsonrpc.Method(c.getUTXOs),
		"getBlock":         jsonrpc.Method(c.getBlock),
		"getBlockByHeight": jsonrpc.Method(c.getBlockByHeight),
		"getHeight":        jsonrpc.Method(c.getHeight),
	}} {
		for name, h := range methods {
			for _, p := range prefixes {
				s.Register(p+name, h)
			}
		}
	}
	return s
}

// issueTx verifies a signed transaction and adds it to the next block. It
// answers once the transaction is accepted (or after issue-wait, with the
// ID of a transaction still processing).
func (c *Core[U, I]) issueTx(ctx context.Context, a utxoapi.IssueTxArgs) (utxoapi.TxIDReply, error) {
	raw, err := a.TxBytes()
	if err != nil {
		return utxoapi.TxIDReply{}, err
	}
	tx, err := c.rules.ParseTx(raw)
	if err != nil {
		return utxoapi.TxIDReply{}, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	return utxoapi.TxIDReply{TxID: tx.ID()}, c.Issue(ctx, tx)
}

// getTx returns an accepted transaction (one of the genesis too).
func (c *Core[U, I]) getTx(ctx context.Context, a utxoapi.GetTxArgs) (utxoapi.GetTxReply, error) {
	return utxoapi.GetTx(ctx, a, c.rules.StoredTx, func(t *signedtx.Tx[U]) any { return c.rules.TxJSON(t) })
}

// getTxStatus answers the chain's word for accepted, Processing (waiting
// in the mempool) or Unknown.
func (c *Core[U, I]) getTxStatus(ctx context.Context, a utxoapi.GetTxStatusArgs) (utxoapi.GetTxStatusReply, error) {
	return utxoapi.GetTxStatus(ctx, a, c.rules.Accepted, func(ctx context.Context, id ids.ID) (bool, error) {
		return c.Store.Has(ctx, TxKey(id))
	}, c.Pooled)
}

// getUTXOs returns a page of the UTXOs the addresses own on this chain, or,
// with sourceChain naming another chain, those that chain exported to this
// one (in shared memory, to import).
func (c *Core[U, I]) getUTXOs(ctx context.Context, a utxoapi.GetUTXOsArgs) (utxoapi.GetUTXOsReply, error) {
	if err := utxoapi.CheckAddressCount("addresses", a.Addresses); err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	q, err := c.APIChain().ParseUTXOsQuery(ctx, a)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	source := c.Env.ChainID
	if a.SourceChain != "" {
		if source, err = c.rules.SourceChain(ctx, a.SourceChain); err != nil {
			return utxoapi.GetUTXOsReply{}, err
		}
	}
	var raw [][]byte
	var endAddr avax.ShortID
	var endUTXO ids.ID
	if source == c.Env.ChainID {
		raw, endAddr, endUTXO, err = utxoapi.PageAddresses(ctx, c.Store, q.Addrs, q.Page)
	} else {
		raw, endAddr, endUTXO, err = utxoapi.PageShared(ctx, c.Env.Host.SharedMemory, source, q.Addrs, q.Page)
	}
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	return utxoapi.NewGetUTXOsReply(q.Encoding, raw, c.FormatAddress(endAddr), endUTXO), nil
}

// getBlock returns a block by ID.
func (c *Core[U, I]) getBlock(ctx context.Context, a utxoapi.GetBlockArgs) (utxoapi.GetBlockReply, error) {
	id, err := utxoapi.ParseID("blockID", a.BlockID)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	h, err := c.Store.BlockHeight(ctx, id)
	if errors.Is(err, host.ErrNotFound) {
		return utxoapi.GetBlockReply{}, fmt.Errorf("block %s not found", id)
	}
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	return c.blockReply(ctx, h, enc)
}

// getBlockByHeight returns the block at a height.
func (c *Core[U, I]) getBlockByHeight(ctx context.Context, a utxoapi.GetBlockByHeightArgs) (utxoapi.GetBlockReply, error) {
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	last, err := c.rules.LastHeight()
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	if uint64(a.Height) > last {
		return utxoapi.GetBlockReply{}, fmt.Errorf("no block at height %d: the last accepted block is at %d", a.Height, last)
	}
	return c.blockReply(ctx, uint64(a.Height), enc)
}

func (c *Core[U, I]) blockReply(ctx context.Context, height uint64, enc string) (utxoapi.GetBlockReply, error) {
	b, err := c.Block(ctx, height)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	raw, err := utxoapi.Encode(enc, b.Bytes(), func() any { return c.rules.BlockJSON(b) })
	return utxoapi.GetBlockReply{Block: raw, Encoding: enc}, err
}

// getHeight returns the height of the last accepted block.
func (c *Core[U, I]) getHeight(context.Context, struct{}) (utxoapi.HeightReply, error) {
	h, err := c.rules.LastHeight()
	if err != nil {
		return utxoapi.HeightReply{}, err
	}
	return utxoapi.HeightReply{Height: jsonrpc.Uint64(h)}, nil
}

// UTXORef names a UTXO in the API's answers (getBalance's utxoIDs).
type UTXORef struct {
	TxID        ids.ID `json:"txID"`
	OutputIndex uint32 `json:"outputIndex"`
}

// BlockKind is the index kind of a UTXO chain's accepted blocks.
const BlockKind = "block"

// GetBlockInfo serves blockinfo.Method on the VM's indexer handler: the
// blocks at positions of the chain's block index, position p holding the
// block at height p+1 (the first block, height 0, is not indexed).
func (c *Core[U, I]) GetBlockInfo(ctx context.Context, a blockinfo.Args) ([]blockinfo.Block, error) {
	accepted, err := c.rules.AcceptedCount(ctx, BlockKind)
	if err != nil {
		return nil, err
	}
	return blockinfo.Answer(ctx, a, accepted, func(ctx context.Context, p uint64) (blockinfo.Block, error) {
		b, err := c.Block(ctx, p+1)
		if err != nil {
			return blockinfo.Block{}, err
		}
		return blockinfo.Block{ID: b.ID(), Height: b.Height, Time: int64(b.Time), Txs: len(b.Txs)}, nil
	})
}
