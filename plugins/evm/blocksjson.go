package evm

import (
	"encoding/hex"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// appendBlocks appends the JSON of blocks to b: byte for byte what
// encoding/json writes for them (a test checks it), in one pass, without
// reflection and without the escaping scan of strings that cannot need
// escaping (every string here is hex or a frame type).
func appendBlocks(b []byte, blocks []evmapi.Block) []byte {
	return appendArray(b, blocks, appendBlock)
}

// appendArray writes a JSON array of s, each item written by item; null
// for a nil s.
func appendArray[T any](b []byte, s []T, item func([]byte, *T) []byte) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(b, &s[i])
	}
	return append(b, ']')
}

func appendBlock(b []byte, blk *evmapi.Block) []byte {
	b = append(b, `{"number":`...)
	b = appendUint64(b, uint64(blk.Number))
	b = append(b, `,"hash":`...)
	b = appendHex(b, blk.Hash[:])
	b = append(b, `,"parentHash":`...)
	b = appendHex(b, blk.ParentHash[:])
	b = append(b, `,"timestamp":`...)
	b = appendUint64(b, uint64(blk.Timestamp))
	b = append(b, `,"gasLimit":`...)
	b = appendUint64(b, uint64(blk.GasLimit))
	b = append(b, `,"gasUsed":`...)
	b = appendUint64(b, uint64(blk.GasUsed))
	if blk.BaseFee != nil {
		b = append(b, `,"baseFeePerGas":`...)
		b = appendBig(b, blk.BaseFee)
	}
	b = append(b, `,"transactions":`...)
	b = appendArray(b, blk.Transactions, appendTransaction)
	return append(b, '}')
}

func appendTransaction(b []byte, tx *evmapi.Transaction) []byte {
	b = append(b, `{"hash":`...)
	b = appendHex(b, tx.Hash[:])
	b = append(b, `,"index":`...)
	b = appendUint64(b, uint64(tx.Index))
	b = append(b, `,"type":`...)
	b = appendUint64(b, uint64(tx.Type))
	b = append(b, `,"from":`...)
	b = appendHex(b, tx.From[:])
	if tx.To != nil {
		b = append(b, `,"to":`...)
		b = appendHex(b, tx.To[:])
	}
	b = append(b, `,"value":`...)
	b = appendBig(b, tx.Value)
	b = append(b, `,"input":`...)
	b = appendHex(b, tx.Input)
	b = append(b, `,"nonce":`...)
	b = appendUint64(b, uint64(tx.Nonce))
	b = append(b, `,"gas":`...)
	b = appendUint64(b, uint64(tx.Gas))
	b = append(b, `,"gasPrice":`...)
	b = appendBig(b, tx.GasPrice)
	if tx.MaxFeePerGas != nil {
		b = append(b, `,"maxFeePerGas":`...)
		b = appendBig(b, tx.MaxFeePerGas)
	}
	if tx.MaxPriorityFeePerGas != nil {
		b = append(b, `,"maxPriorityFeePerGas":`...)
		b = appendBig(b, tx.MaxPriorityFeePerGas)
	}
	b = append(b, `,"status":`...)
	b = appendUint64(b, uint64(tx.Status))
	b = append(b, `,"gasUsed":`...)
	b = appendUint64(b, uint64(tx.GasUsed))
	if tx.ContractAddress != nil {
		b = append(b, `,"contractAddress":`...)
		b = appendHex(b, tx.ContractAddress[:])
	}
	b = append(b, `,"logs":`...)
	b = appendArray(b, tx.Logs, appendLog)
	b = append(b, `,"calls":`...)
	b = appendArray(b, tx.Calls, appendCallFrame)
	return append(b, '}')
}

func appendLog(b []byte, l *evmapi.Log) []byte {
	b = append(b, `{"logIndex":`...)
	b = appendUint64(b, uint64(l.Index))
	b = append(b, `,"address":`...)
	b = appendHex(b, l.Address[:])
	b = append(b, `,"topics":`...)
	b = appendArray(b, l.Topics, func(b []byte, t *common.Hash) []byte { return appendHex(b, t[:]) })
	b = append(b, `,"data":`...)
	b = appendHex(b, l.Data)
	return append(b, '}')
}

func appendCallFrame(b []byte, f *evmapi.CallFrame) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, f.Type...) // an opcode name: no escaping needed
	b = append(b, `","from":`...)
	b = appendHex(b, f.From[:])
	b = append(b, `,"to":`...)
	b = appendHex(b, f.To[:])
	b = append(b, `,"value":`...)
	b = appendBig(b, f.Value)
	b = append(b, `,"gas":`...)
	b = appendUint64(b, uint64(f.Gas))
	b = append(b, `,"gasUsed":`...)
	b = appendUint64(b, uint64(f.GasUsed))
	b = append(b, `,"depth":`...)
	b = strconv.AppendInt(b, int64(f.Depth), 10)
	if f.Reverted {
		b = append(b, `,"reverted":true`...)
	}
	return append(b, '}')
}

// appendUint64 writes a hexutil.Uint64.
func appendUint64(b []byte, v uint64) []byte {
	b = append(b, `"0x`...)
	b = strconv.AppendUint(b, v, 16)
	return append(b, '"')
}

// appendHex writes bytes as a hexutil.Bytes (or a hash or an address).
func appendHex(b []byte, v []byte) []byte {
	b = append(b, `"0x`...)
	b = hex.AppendEncode(b, v)
	return append(b, '"')
}

// appendBig writes a *hexutil.Big: null when nil, "0x0" for zero.
func appendBig(b []byte, v *hexutil.Big) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	x := (*big.Int)(v)
	if x.Sign() >= 0 && x.IsUint64() { // without big.Int.Append's allocation
		return appendUint64(b, x.Uint64())
	}
	if x.Sign() < 0 {
		b = append(b, `"-0x`...)
		b = new(big.Int).Abs(x).Append(b, 16)
		return append(b, '"')
	}
	b = append(b, `"0x`...)
	b = x.Append(b, 16)
	return append(b, '"')
}
