package evmremote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// Tracing is where a Client reads the call frames of a block from.
type Tracing string

// Tracing sources, in the order a Client tries them.
const (
	// TracingDebug is go-ethereum's call tracer (debug_traceBlockByHash):
	// the frames the EVM's own indexer_getBlocks answers.
	TracingDebug Tracing = "debug"
	// TracingTrace is Parity's trace_block (reth, Erigon, Nethermind):
	// the same frames, but below the top the gas is Parity's accounting,
	// and a failed frame has no gas used (Parity reports none).
	TracingTrace Tracing = "trace"
	// TracingNone: the node traces nothing, and a transaction's only
	// frame is its own call, made of the transaction and its receipt.
	TracingNone Tracing = "none"
)

// capabilities are the methods a node answers, probed once.
type capabilities struct {
	blockReceipts bool // eth_getBlockReceipts
	tracing       Tracing
}

// Tracing returns the source of call frames, "" before Blocks first read
// a block with transactions (which is when the node is probed).
func (c *Client) Tracing() Tracing {
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if c.caps == nil {
		return ""
	}
	return c.caps.tracing
}

// probe returns the node's capabilities, asking it once, on b (a block
// with transactions), which methods it has: an error other than "no such
// method" fails the probe, and the next call probes again.
func (c *Client) probe(ctx context.Context, b *rpcBlock) (*capabilities, error) {
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if c.caps != nil {
		return c.caps, nil
	}
	caps := &capabilities{blockReceipts: true, tracing: TracingDebug}
	var raw json.RawMessage
	if err := c.rpc.CallContext(ctx, &raw, "eth_getBlockReceipts", *b.Hash); err != nil {
		if !methodMissing(err) {
			return nil, c.wrap(fmt.Errorf("probe eth_getBlockReceipts: %w", err))
		}
		caps.blockReceipts = false
	}
	if err := c.rpc.CallContext(ctx, &raw, "debug_traceBlockByHash", *b.Hash, evmapi.CallTracerConfig); err != nil {
		if !methodMissing(err) {
			return nil, c.wrap(fmt.Errorf("probe debug_traceBlockByHash: %w", err))
		}
		caps.tracing = TracingTrace
		if err := c.rpc.CallContext(ctx, &raw, "trace_block", *b.Number); err != nil {
			if !methodMissing(err) {
				return nil, c.wrap(fmt.Errorf("probe trace_block: %w", err))
			}
			caps.tracing = TracingNone
		}
	}
	c.caps = caps
	return caps, nil
}

// methodMissing reports whether err is a node's answer that it has no
// such method (JSON-RPC -32601, or the words of a node that answers
// another code).
func methodMissing(err error) bool {
	var re rpc.Error
	if !errors.As(err, &re) {
		return false
	}
	if re.ErrorCode() == -32601 {
		return true
	}
	msg := strings.ToLower(re.Error())
	for _, s := range []string{"method not found", "does not exist", "not available", "not supported", "unsupported method"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
