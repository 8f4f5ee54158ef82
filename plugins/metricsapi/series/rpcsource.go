package series

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"golang.org/x/time/rate"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
)

// rpcTimeout bounds one request to an external chain's node.
const rpcTimeout = 30 * time.Second

// maxTimestamp is the last second of the last UTC day a series holds.
const maxTimestamp = (math.MaxUint32+1)*store.SecondsPerDay - 1

// rpcSource reads an external chain's headers with go-ethereum's JSON-RPC
// client: eth_chainId, and eth_getBlockByNumber(n, false) in batches.
// evmremote.Client reads the same methods: an adapter of headerSource over
// it can replace this file.
type rpcSource struct {
	c     *rpc.Client
	limit *rate.Limiter // nil: no limit
}

// dialRPC returns the headerSource of an external chain: its RPCURL
// through go-ethereum's client, at most RequestsPerSecond requests a
// second (a batch is one request). It connects on the first request.
func dialRPC(ctx context.Context, c evmremote.Chain) (headerSource, error) {
	client, err := rpc.DialOptions(ctx, c.RPCURL, rpc.WithHTTPClient(&http.Client{Timeout: rpcTimeout}))
	if err != nil {
		return nil, fmt.Errorf("external chain %s: %w", c.Name, err)
	}
	s := &rpcSource{c: client}
	if c.RequestsPerSecond > 0 {
		s.limit = rate.NewLimiter(rate.Limit(c.RequestsPerSecond), 1)
	}
	return s, nil
}

// wait waits for the rate limit.
func (s *rpcSource) wait(ctx context.Context) error {
	if s.limit == nil {
		return nil
	}
	return s.limit.Wait(ctx)
}

// ChainID is eth_chainId.
func (s *rpcSource) ChainID(ctx context.Context) (uint64, error) {
	if err := s.wait(ctx); err != nil {
		return 0, err
	}
	var id hexutil.Uint64
	if err := s.c.CallContext(ctx, &id, "eth_chainId"); err != nil {
		return 0, fmt.Errorf("eth_chainId: %w", err)
	}
	return uint64(id), nil
}

// rpcHeader is what the series read of eth_getBlockByNumber(n, false):
// the transactions are hashes, counted.
type rpcHeader struct {
	Number       *hexutil.Uint64   `json:"number"`
	Timestamp    *hexutil.Uint64   `json:"timestamp"`
	Transactions []json.RawMessage `json:"transactions"`
}

// Head is the number of the block tag names ("latest" or "finalized").
func (s *rpcSource) Head(ctx context.Context, tag string) (uint64, error) {
	if err := s.wait(ctx); err != nil {
		return 0, err
	}
	var h *rpcHeader
	if err := s.c.CallContext(ctx, &h, "eth_getBlockByNumber", tag, false); err != nil {
		return 0, fmt.Errorf("eth_getBlockByNumber(%s): %w", tag, err)
	}
	if h == nil || h.Number == nil {
		return 0, fmt.Errorf("eth_getBlockByNumber(%s): the node has no such block", tag)
	}
	return uint64(*h.Number), nil
}

// Headers reads blocks from to from+count-1 in one batch.
func (s *rpcSource) Headers(ctx context.Context, from uint64, count int) ([]header, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	got := make([]*rpcHeader, count)
	batch := make([]rpc.BatchElem, count)
	for i := range batch {
		batch[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.Uint64(from + uint64(i)), false}, Result: &got[i]}
	}
	if err := s.c.BatchCallContext(ctx, batch); err != nil {
		return nil, fmt.Errorf("eth_getBlockByNumber(%d…%d): %w", from, from+uint64(count)-1, err)
	}
	out := make([]header, count)
	for i, e := range batch {
		n := from + uint64(i)
		h := got[i]
		switch {
		case e.Error != nil:
			return nil, fmt.Errorf("eth_getBlockByNumber(%d): %w", n, e.Error)
		case h == nil:
			return nil, fmt.Errorf("eth_getBlockByNumber(%d): the node has no such block", n)
		case h.Number == nil || h.Timestamp == nil:
			return nil, fmt.Errorf("eth_getBlockByNumber(%d): the answer has no number or timestamp", n)
		case uint64(*h.Timestamp) > maxTimestamp:
			return nil, fmt.Errorf("eth_getBlockByNumber(%d): timestamp %d is past the last day the series hold", n, uint64(*h.Timestamp))
		}
		out[i] = header{Number: uint64(*h.Number), Time: int64(*h.Timestamp), Txs: len(h.Transactions)}
	}
	return out, nil
}

// Close closes the client.
func (s *rpcSource) Close() { s.c.Close() }
