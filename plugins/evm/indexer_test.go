package evm_test

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// TestIndexerHandler: the internal indexer handler serves eth and the
// tracers even where the public debug API is off, and none of the methods
// that rewind the chain or touch server files.
func TestIndexerHandler(t *testing.T) {
	ctx := context.Background()
	c := startChain(t, 43112, `{"debug-api-enabled": false}`)
	if got := c.h.InternalHandlers(); !slices.Equal(got, []string{evmapi.IndexerHandler}) {
		t.Fatalf("InternalHandlers = %v, want [indexer]", got)
	}
	if slices.Contains(c.h.Handlers(), evmapi.IndexerHandler) {
		t.Fatalf("Handlers = %v: the indexer handler is public", c.h.Handlers())
	}
	receipt := waitReceipt(t, ctx, c.client, transfer(t, ctx, c.client, localKey(t), 0, common.Address{1}, big.NewInt(1)).Hash())

	ix, err := rpc.Dial(c.h.URL(evmapi.IndexerHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var head string
	if err := ix.CallContext(ctx, &head, "eth_blockNumber"); err != nil || head == "" {
		t.Fatalf("eth_blockNumber on the indexer handler = %q, %v", head, err)
	}
	var traces []map[string]any
	if err := ix.CallContext(ctx, &traces, "debug_traceBlockByNumber", hexutil.EncodeBig(receipt.BlockNumber), map[string]string{"tracer": "callTracer"}); err != nil || len(traces) != 1 {
		t.Fatalf("debug_traceBlockByNumber on the indexer handler = %v, %v", traces, err)
	}
	// The public handler keeps debug off.
	if err := c.rpc.CallContext(ctx, &traces, "debug_traceBlockByNumber", hexutil.EncodeBig(receipt.BlockNumber), nil); !isMethodNotFound(err) {
		t.Errorf("debug_traceBlockByNumber on rpc with debug off = %v, want method not found", err)
	}
	for _, method := range []string{"debug_setHead", "debug_chaindbCompact", "debug_standardTraceBlockToFile", "debug_traceBlockFromFile", "admin_peers", "miner_setExtra", "personal_listAccounts"} {
		var out any
		err := ix.CallContext(ctx, &out, method, "0x1")
		var rpcErr rpc.Error
		if err == nil || !errors.As(err, &rpcErr) {
			t.Errorf("%s on the indexer handler = %v, want refused", method, err)
		}
	}
}

// isMethodNotFound reports whether err is JSON-RPC -32601.
func isMethodNotFound(err error) bool {
	var rpcErr rpc.Error
	return errors.As(err, &rpcErr) && rpcErr.ErrorCode() == -32601
}
