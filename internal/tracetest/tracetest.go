// Package tracetest reads the call frames of a block the way a test checks
// them against: go-ethereum's call tracer, asked directly and flattened
// here, apart from evmapi's own flattening, so that a test of that code
// does not compare it with itself.
package tracetest

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// Frame is a frame of go-ethereum's call tracer's answer.
type Frame struct {
	Type    string          `json:"type"`
	From    common.Address  `json:"from"`
	To      *common.Address `json:"to"`
	Value   *hexutil.Big    `json:"value"`
	Gas     hexutil.Uint64  `json:"gas"`
	GasUsed hexutil.Uint64  `json:"gasUsed"`
	Error   string          `json:"error"`
	Calls   []Frame         `json:"calls"`
}

// Result is one transaction of debug_traceBlockByNumber's answer.
type Result struct {
	Result Frame  `json:"result"`
	Error  string `json:"error"`
}

// Frames returns the frames debug_traceBlockByNumber with the call tracer
// reports for each transaction of a block, flattened in execution order
// (depth first) as evmapi.CallFrame: a creation that failed, which the
// tracer reports without "to", has the zero address.
func Frames(t testing.TB, c *rpc.Client, number uint64) [][]evmapi.CallFrame {
	t.Helper()
	var res []Result
	if err := c.CallContext(t.Context(), &res, "debug_traceBlockByNumber", hexutil.Uint64(number), map[string]string{"tracer": "callTracer"}); err != nil {
		t.Fatalf("debug_traceBlockByNumber %d: %v", number, err)
	}
	out := make([][]evmapi.CallFrame, len(res))
	for i, r := range res {
		if r.Error != "" {
			t.Fatalf("block %d tx %d: call tracer: %s", number, i, r.Error)
		}
		out[i] = flatten(nil, r.Result, 0)
	}
	return out
}

// flatten appends f and the frames below it, depth first.
func flatten(out []evmapi.CallFrame, f Frame, depth int) []evmapi.CallFrame {
	c := evmapi.CallFrame{Type: f.Type, From: f.From, Value: f.Value, Gas: f.Gas, GasUsed: f.GasUsed, Depth: depth, Reverted: f.Error != ""}
	if f.To != nil {
		c.To = *f.To
	}
	out = append(out, c)
	for _, sub := range f.Calls {
		out = flatten(out, sub, depth+1)
	}
	return out
}
