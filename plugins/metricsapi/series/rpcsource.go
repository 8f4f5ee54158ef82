package series

import (
	"context"
	"fmt"
	"math"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
)

// maxTimestamp is the last second of the last UTC day a series holds.
const maxTimestamp = (math.MaxUint32+1)*store.SecondsPerDay - 1

// rpcSource is the headerSource of an external chain: its node's
// standard JSON-RPC, read by evmremote under the chain's limits (the same
// client as the data module's).
type rpcSource struct {
	c *evmremote.Client
}

// dialRPC returns the headerSource of an external chain.
func dialRPC(ctx context.Context, c evmremote.Chain) (headerSource, error) {
	client, err := evmremote.Dial(ctx, evmremote.OptionsOf(c))
	if err != nil {
		return nil, fmt.Errorf("external chain %s: %w", c.Name, err)
	}
	return rpcSource{c: client}, nil
}

// ChainID is eth_chainId.
func (s rpcSource) ChainID(ctx context.Context) (uint64, error) { return s.c.ChainID(ctx) }

// Head is the number of the block tag names ("latest" or "finalized").
func (s rpcSource) Head(ctx context.Context, tag string) (uint64, error) {
	h, err := s.c.Head(ctx, tag)
	return h.Number, err
}

// Blocks reads blocks from to from+count-1, whole.
func (s rpcSource) Blocks(ctx context.Context, from uint64, count int) ([]evmapi.Block, error) {
	bs, err := s.c.Blocks(ctx, from, count)
	if err != nil {
		return nil, err
	}
	if len(bs) < count {
		return nil, fmt.Errorf("eth_getBlockByNumber(%d): the node has no such block", from+uint64(len(bs)))
	}
	for _, b := range bs {
		if b.Timestamp > maxTimestamp {
			return nil, fmt.Errorf("eth_getBlockByNumber(%d): timestamp %d is past the last day the series hold", b.Number, b.Timestamp)
		}
	}
	return bs, nil
}

// Close closes the client.
func (s rpcSource) Close() { s.c.Close() }
