package evmremote

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// parityTrace is one frame of Parity's trace_block answer (reth, Erigon,
// Nethermind, OpenEthereum): the frames of a block's transactions in
// execution order, each with its path in its transaction's call tree.
type parityTrace struct {
	Type   string `json:"type"` // call, create, suicide (or selfdestruct), reward
	Action struct {
		CallType       string          `json:"callType"` // call, delegatecall, staticcall, callcode
		CreationMethod string          `json:"creationMethod"`
		From           *common.Address `json:"from"`
		To             *common.Address `json:"to"`
		Value          *hexutil.Big    `json:"value"`
		Gas            hexutil.Uint64  `json:"gas"`
		// Address, RefundAddress and Balance are a self-destruct's.
		Address       *common.Address `json:"address"`
		RefundAddress *common.Address `json:"refundAddress"`
		Balance       *hexutil.Big    `json:"balance"`
	} `json:"action"`
	Result *struct {
		GasUsed hexutil.Uint64  `json:"gasUsed"`
		Address *common.Address `json:"address"` // a creation's
	} `json:"result"`
	Error               string       `json:"error"`
	TraceAddress        []int        `json:"traceAddress"`
	TransactionHash     *common.Hash `json:"transactionHash"`
	TransactionPosition *uint64      `json:"transactionPosition"`
}

// parityFrames converts trace_block's answer into the call tracer's
// frames: the same types, depth first, a failed creation without an
// address. Parity's gas of a transaction's own call leaves out the
// intrinsic gas, so that frame takes the call tracer's: the transaction's
// gas limit and its receipt's gas used; the frames below keep Parity's.
func (b *rpcBlock) parityFrames(raw json.RawMessage, receipts []rpcReceipt) ([][]evmapi.CallFrame, error) {
	var traces []parityTrace
	if err := json.Unmarshal(raw, &traces); err != nil {
		return nil, malformed("%v", err)
	}
	out := make([][]evmapi.CallFrame, 0, len(b.txs))
	for i := range traces {
		tr := &traces[i]
		if tr.TransactionHash == nil { // a block reward
			continue
		}
		depth := len(tr.TraceAddress)
		if depth == 0 {
			n := len(out)
			if n == len(b.txs) || tr.TransactionPosition == nil || *tr.TransactionPosition != uint64(n) || *tr.TransactionHash != *b.txs[n].Hash {
				return nil, malformed("trace %d is not the call of transaction %d", i, n)
			}
			out = append(out, nil)
		}
		n := len(out) - 1
		switch {
		case n < 0 || *tr.TransactionHash != *b.txs[n].Hash:
			return nil, malformed("trace %d is not of transaction %d", i, n)
		case depth > 0 && depth > out[n][len(out[n])-1].Depth+1:
			return nil, malformed("trace %d skips a level of calls", i)
		}
		f, err := tr.frame()
		if err != nil {
			return nil, malformed("trace %d: %v", i, err)
		}
		f.Depth = depth
		if depth == 0 {
			r := &receipts[n]
			f.Gas = *b.txs[n].Gas
			f.GasUsed = hexutil.Uint64(uint64(*r.CumulativeGasUsed) - prevCumulative(receipts, n))
		}
		out[n] = append(out[n], f)
	}
	if len(out) != len(b.txs) {
		return nil, malformed("traces of %d transactions, the block has %d", len(out), len(b.txs))
	}
	return out, nil
}

// prevCumulative is the cumulative gas used before transaction n.
func prevCumulative(receipts []rpcReceipt, n int) uint64 {
	if n == 0 {
		return 0
	}
	return uint64(*receipts[n-1].CumulativeGasUsed)
}

// frame converts one trace, without its depth.
func (tr *parityTrace) frame() (evmapi.CallFrame, error) {
	a := &tr.Action
	f := evmapi.CallFrame{Value: a.Value, Gas: a.Gas, Reverted: tr.Error != ""}
	if tr.Result != nil {
		f.GasUsed = tr.Result.GasUsed
	}
	switch tr.Type {
	case "call":
		if a.From == nil || a.To == nil {
			return f, errMissing("call", "from or to")
		}
		f.Type, f.From, f.To = strings.ToUpper(a.CallType), *a.From, *a.To
		switch f.Type {
		case evmapi.CallType, evmapi.CallCodeType, evmapi.DelegateCallType:
		case evmapi.StaticCallType:
			f.Value = nil // the call tracer gives a static call no value
		default:
			return f, errMissing("call", "a known callType")
		}
	case "create":
		if a.From == nil {
			return f, errMissing("create", "from")
		}
		f.Type, f.From = evmapi.CreateType, *a.From
		if a.CreationMethod == "create2" {
			f.Type = evmapi.Create2Type
		}
		if tr.Result != nil && tr.Result.Address != nil && tr.Error == "" {
			f.To = *tr.Result.Address
		}
	case "suicide", "selfdestruct":
		if a.Address == nil || a.RefundAddress == nil {
			return f, errMissing("self-destruct", "address or refundAddress")
		}
		f.Type, f.From, f.To, f.Value = evmapi.SelfDestructType, *a.Address, *a.RefundAddress, a.Balance
	default:
		return f, errMissing("trace", "a known type")
	}
	return f, nil
}

// errMissing says what a trace lacks.
func errMissing(kind, what string) error {
	return fmt.Errorf("a %s trace without %s", kind, what)
}
