package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/core/nodetest"
)

// loopCode is init code that counts down from 1,000,000 and stops: some
// 26 million gas of work, as a contract creation or an eth_call without a
// recipient.
var loopCode = hexutil.MustDecode("0x620f42405b600190038060045700")

// loopGas covers loopCode's run.
const loopGas = 28_000_000

// traceMaxSize is TestEVMLimits' cap on a trace's answer, in bytes.
const traceMaxSize = 4096

// TestEVMLimits drives the C-Chain's per-chain limits through the host with
// go-ethereum's clients: subscriptions per WebSocket connection
// (rpc-ws-max-subscriptions, unsubscribing frees a slot, each connection
// has its own), the run time of debug_trace* (rpc-trace-timeout, even when
// the caller asks for more), eth_call's (rpc-evm-timeout), and, on a second
// chain, the size of a trace's answer (rpc-trace-max-size).
func TestEVMLimits(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: fmt.Sprintf(`
chains:
  - alias: C
    vm: evm
    genesis: %s
    config:
      cache-mb: 32
      rpc-ws-max-subscriptions: 3
      rpc-trace-timeout: 1ms
      rpc-evm-timeout: 1ms
  - alias: S
    vm: evm
    genesis: %s
    config:
      cache-mb: 32
      rpc-trace-max-size: %d
`, evmGenesis(evmChainID), evmGenesis(evmChainID+1), traceMaxSize)})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("subscriptions", func(t *testing.T) {
		ws := evmDial(t, n, "C", "ws")
		heads := make(chan *types.Header, 16)
		var subs []ethereum.Subscription
		for i := range 3 {
			sub, err := ws.SubscribeNewHead(ctx, heads)
			if err != nil {
				t.Fatalf("subscription %d: %v", i+1, err)
			}
			subs = append(subs, sub)
		}
		logs := make(chan types.Log, 16)
		_, err := ws.SubscribeFilterLogs(ctx, ethereum.FilterQuery{}, logs)
		wantLimit(t, "a fourth subscription", err, -32005,
			"too many subscriptions: this connection holds 3, the limit (rpc-ws-max-subscriptions); unsubscribe one first")

		other := evmDial(t, n, "C", "ws")
		if _, err := other.SubscribeFilterLogs(ctx, ethereum.FilterQuery{}, logs); err != nil {
			t.Fatalf("another connection's first subscription: %v", err)
		}

		subs[0].Unsubscribe()
		sub, err := ws.SubscribeFilterLogs(ctx, ethereum.FilterQuery{}, logs)
		if err != nil {
			t.Fatalf("a subscription after an unsubscribe: %v", err)
		}
		defer sub.Unsubscribe()
		_, err = ws.SubscribeNewHead(ctx, heads)
		wantLimit(t, "a fourth subscription again", err, -32005, "rpc-ws-max-subscriptions")
	})

	c := evmDial(t, n, "C", "rpc")
	raw, err := rpc.DialContext(ctx, n.URL+"/ext/bc/C/rpc")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	me := newSender(t, ctx, c, evmKey(t))
	// The block builder runs the loop without the limits, which bound
	// only what the API runs.
	r := me.send(ctx, nil, nil, loopCode, loopGas)
	callTracer := map[string]any{"tracer": "callTracer", "timeout": "60s"}
	const traceLimit = "trace aborted: it ran longer than this chain's limit of 1ms (rpc-trace-timeout)"

	t.Run("traces", func(t *testing.T) {
		var out any
		err := raw.CallContext(ctx, &out, "debug_traceTransaction", r.TxHash, callTracer)
		wantLimit(t, "debug_traceTransaction", err, -32000, traceLimit)
		err = raw.CallContext(ctx, &out, "debug_traceTransaction", r.TxHash, map[string]any{"tracer": "callTracer"})
		wantLimit(t, "debug_traceTransaction without a timeout", err, -32000, traceLimit)
		err = raw.CallContext(ctx, &out, "debug_traceBlockByNumber", hexutil.EncodeBig(r.BlockNumber), callTracer)
		wantLimit(t, "debug_traceBlockByNumber", err, -32000, traceLimit)
		err = raw.CallContext(ctx, &out, "debug_traceBlockByHash", r.BlockHash, callTracer)
		wantLimit(t, "debug_traceBlockByHash", err, -32000, traceLimit)
		call := map[string]any{"from": me.addr, "input": hexutil.Bytes(loopCode), "gas": hexutil.Uint64(loopGas)}
		err = raw.CallContext(ctx, &out, "debug_traceCall", call, "latest", callTracer)
		wantLimit(t, "debug_traceCall", err, -32000, traceLimit)
		err = raw.CallContext(ctx, &out, "debug_traceCall", call, "latest",
			map[string]any{"tracer": "callTracer", "Timeout": "1h", "TIMEOUT": "2h"})
		wantLimit(t, "debug_traceCall with two spellings of timeout", err, -32000, traceLimit)
	})

	t.Run("trace size", func(t *testing.T) {
		s, err := rpc.DialContext(ctx, n.URL+"/ext/bc/S/rpc")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The struct logger's steps of the loop are far over the cap: the
		// logger stops recording past it, and the answer is refused.
		loop := map[string]any{"from": me.addr, "input": hexutil.Bytes(loopCode), "gas": hexutil.Uint64(loopGas)}
		var out any
		for _, config := range []any{nil, map[string]any{"limit": 10 * traceMaxSize}} {
			params := []any{loop, "latest"}
			if config != nil {
				params = append(params, config)
			}
			err := s.CallContext(ctx, &out, "debug_traceCall", params...)
			wantLimit(t, fmt.Sprintf("debug_traceCall with the struct logger (config %v)", config), err, -32005,
				fmt.Sprintf("trace too large: its answer is over this chain's limit of %d bytes (rpc-trace-max-size)", traceMaxSize))
		}
		// A call tracer's answer of a plain call is well under it.
		var frame struct{ Type, From string }
		plain := map[string]any{"from": me.addr, "to": me.addr, "value": "0x1"}
		if err := s.CallContext(ctx, &frame, "debug_traceCall", plain, "latest", map[string]any{"tracer": "callTracer"}); err != nil || frame.Type != "CALL" {
			t.Fatalf("a small trace: %+v, %v", frame, err)
		}
	})

	t.Run("eth_call", func(t *testing.T) {
		_, err := c.CallContract(ctx, ethereum.CallMsg{From: me.addr, Data: loopCode, Gas: loopGas}, nil)
		wantLimit(t, "eth_call", err, -32000, "execution aborted (timeout = 1ms)")
	})
}

// wantLimit checks that err is the JSON-RPC error code with a message
// holding msg.
func wantLimit(t *testing.T, what string, err error, code int, msg string) {
	t.Helper()
	var rpcErrorCode rpc.Error
	if !errors.As(err, &rpcErrorCode) || rpcErrorCode.ErrorCode() != code || !strings.Contains(err.Error(), msg) {
		t.Fatalf("%s: %v, want the error %d %q", what, err, code, msg)
	}
}
