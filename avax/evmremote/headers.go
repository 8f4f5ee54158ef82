package evmremote

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Header is what the metrics module and a follower need of a block.
type Header struct {
	Number           uint64
	Hash, ParentHash common.Hash
	Timestamp        uint64
	TxCount          int
}

// rpcHeader is the part of an eth_getBlockByNumber answer read here; the
// pointers tell a missing field from a zero one.
type rpcHeader struct {
	Number     *hexutil.Uint64 `json:"number"`
	Hash       *common.Hash    `json:"hash"`
	ParentHash *common.Hash    `json:"parentHash"`
	Timestamp  *hexutil.Uint64 `json:"timestamp"`
	GasLimit   *hexutil.Uint64 `json:"gasLimit"`
	GasUsed    *hexutil.Uint64 `json:"gasUsed"`
	BaseFee    *hexutil.Big    `json:"baseFeePerGas"`
}

// check refuses a header without the fields read, or of another number
// than want (when want is not nil).
func (h *rpcHeader) check(want *uint64) error {
	switch {
	case h.Number == nil, h.Hash == nil, h.ParentHash == nil, h.Timestamp == nil, h.GasLimit == nil, h.GasUsed == nil:
		return malformed("block without number, hash, parentHash, timestamp, gasLimit or gasUsed")
	case want != nil && uint64(*h.Number) != *want:
		return malformed("block %d answered for block %d", uint64(*h.Number), *want)
	}
	return nil
}

// Head returns the header of the block a tag names: "latest", "safe" or
// "finalized".
func (c *Client) Head(ctx context.Context, tag string) (Header, error) {
	var raw json.RawMessage
	if err := c.rpc.CallContext(ctx, &raw, "eth_getBlockByNumber", tag, false); err != nil {
		return Header{}, fmt.Errorf("eth_getBlockByNumber %s: %w", tag, c.wrap(err))
	}
	if isNull(raw) {
		return Header{}, c.wrap(fmt.Errorf("eth_getBlockByNumber %s: %w", tag, malformed("no %s block", tag)))
	}
	h, err := decodeHeader(raw, nil)
	if err != nil {
		return Header{}, c.wrap(fmt.Errorf("eth_getBlockByNumber %s: %w", tag, err))
	}
	return h, nil
}

// Headers returns the headers of the blocks from number from on, at most
// count, in one JSON-RPC batch: fewer (none) past the head. They are
// consecutive and linked by their parent hashes, else the error is
// ErrReorg. Their hashes are not recomputed (see Blocks).
func (c *Client) Headers(ctx context.Context, from uint64, count int) ([]Header, error) {
	raws, err := c.getBlocks(ctx, from, count, false)
	if err != nil {
		return nil, err
	}
	out := make([]Header, len(raws))
	for i, raw := range raws {
		num := from + uint64(i)
		if out[i], err = decodeHeader(raw, &num); err != nil {
			return nil, c.wrap(fmt.Errorf("block %d: %w", num, err))
		}
		if i > 0 && out[i].ParentHash != out[i-1].Hash {
			return nil, c.wrap(fmt.Errorf("block %d: %w", num, ErrReorg))
		}
	}
	return out, nil
}

// decodeHeader decodes a block of eth_getBlockByNumber(n, false).
func decodeHeader(raw json.RawMessage, want *uint64) (Header, error) {
	var b struct {
		rpcHeader
		Transactions []common.Hash `json:"transactions"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return Header{}, malformed("%v", err)
	}
	if err := b.check(want); err != nil {
		return Header{}, err
	}
	return Header{
		Number:     uint64(*b.Number),
		Hash:       *b.Hash,
		ParentHash: *b.ParentHash,
		Timestamp:  uint64(*b.Timestamp),
		TxCount:    len(b.Transactions),
	}, nil
}

// getBlocks asks eth_getBlockByNumber(n, full) for count blocks from from
// in one batch, and returns the answers up to the first null (past the
// head).
func (c *Client) getBlocks(ctx context.Context, from uint64, count int, full bool) ([]json.RawMessage, error) {
	if count <= 0 {
		return nil, nil
	}
	raws := make([]json.RawMessage, count)
	batch := make([]rpc.BatchElem, count)
	for i := range batch {
		batch[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.Uint64(from + uint64(i)), full}, Result: &raws[i]}
	}
	if err := c.rpc.BatchCallContext(ctx, batch); err != nil {
		return nil, c.wrap(fmt.Errorf("eth_getBlockByNumber %d-%d: %w", from, from+uint64(count)-1, err))
	}
	for i := range batch {
		if err := batch[i].Error; err != nil {
			return nil, c.wrap(fmt.Errorf("eth_getBlockByNumber %d: %w", from+uint64(i), err))
		}
		if isNull(raws[i]) {
			return raws[:i], nil
		}
	}
	return raws, nil
}

// isNull reports whether a result is JSON null (or empty).
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}
