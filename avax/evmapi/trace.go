package evmapi

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// CallTracerConfig is the tracer config of debug_traceBlockByHash and
// debug_traceBlockByNumber that selects go-ethereum's call tracer.
var CallTracerConfig = map[string]string{"tracer": "callTracer"}

// TracedFrame is a frame of go-ethereum's call tracer's answer.
type TracedFrame struct {
	Type    string          `json:"type"`
	From    common.Address  `json:"from"`
	To      *common.Address `json:"to"`
	Value   *hexutil.Big    `json:"value"`
	Gas     hexutil.Uint64  `json:"gas"`
	GasUsed hexutil.Uint64  `json:"gasUsed"`
	Error   string          `json:"error"`
	Calls   []TracedFrame   `json:"calls"`
}

// TraceResult is one transaction of the call tracer's answer to
// debug_traceBlockByHash or debug_traceBlockByNumber.
type TraceResult struct {
	TxHash common.Hash  `json:"txHash"`
	Result *TracedFrame `json:"result"`
	Error  string       `json:"error"`
}

// FlattenFrames appends f and the frames below it, depth first, f at
// depth. A creation that failed, which the tracer reports without "to",
// has the zero address.
func FlattenFrames(out []CallFrame, f *TracedFrame, depth int) []CallFrame {
	c := CallFrame{Type: f.Type, From: f.From, Value: f.Value, Gas: f.Gas, GasUsed: f.GasUsed, Depth: depth, Reverted: f.Error != ""}
	if f.To != nil {
		c.To = *f.To
	}
	out = append(out, c)
	for i := range f.Calls {
		out = FlattenFrames(out, &f.Calls[i], depth+1)
	}
	return out
}

// EffectiveGasPrice is what the sender paid per gas (Transaction.GasPrice):
// the fee cap or the base fee plus the tip, whichever is lower (the gas
// price of a legacy transaction is both its fee cap and its tip). It may
// return feeCap.
func EffectiveGasPrice(feeCap, tip, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return feeCap
	}
	p := new(big.Int).Add(baseFee, tip)
	if p.Cmp(feeCap) > 0 {
		return feeCap
	}
	return p
}

// ContractAddress is Transaction.ContractAddress: the contract a creation
// (to nil) that succeeded made, nil otherwise (a receipt may name the
// address of a creation that failed; a Transaction does not).
func ContractAddress(from common.Address, nonce uint64, to *common.Address, status uint64) *common.Address {
	if to != nil || status != 1 {
		return nil
	}
	addr := crypto.CreateAddress(from, nonce)
	return &addr
}
