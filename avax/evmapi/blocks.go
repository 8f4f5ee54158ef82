package evmapi

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// GetBlocksMethod is the indexer handler's bulk read: params [from, count]
// (hex quantities), result the accepted blocks from number from on, at most
// count of them (and at most MaxBlocks), each with its transactions, their
// receipts and their call frames, in one answer. It answers fewer blocks at
// the head of the chain, none past it, and stops early, after at least one
// block, once the blocks hold MaxTransactions transactions.
const GetBlocksMethod = "indexer_getBlocks"

// Limits of one GetBlocksMethod answer.
const (
	MaxBlocks       = 1024
	MaxTransactions = 10000
)

// Block is one accepted block.
type Block struct {
	Number     hexutil.Uint64 `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parentHash"`
	// Timestamp is the block's time, in seconds.
	Timestamp hexutil.Uint64 `json:"timestamp"`
	GasLimit  hexutil.Uint64 `json:"gasLimit"`
	GasUsed   hexutil.Uint64 `json:"gasUsed"`
	// BaseFee is nil before London.
	BaseFee      *hexutil.Big  `json:"baseFeePerGas,omitempty"`
	Transactions []Transaction `json:"transactions"`
}

// Transaction is a transaction of a block with its receipt and call frames.
type Transaction struct {
	Hash  common.Hash    `json:"hash"`
	Index hexutil.Uint64 `json:"index"`
	Type  hexutil.Uint64 `json:"type"`
	From  common.Address `json:"from"`
	// To is nil for a contract creation.
	To    *common.Address `json:"to,omitempty"`
	Value *hexutil.Big    `json:"value"`
	Input hexutil.Bytes   `json:"input"`
	Nonce hexutil.Uint64  `json:"nonce"`
	// Gas is the gas limit.
	Gas hexutil.Uint64 `json:"gas"`
	// GasPrice is the effective gas price the sender paid.
	GasPrice *hexutil.Big `json:"gasPrice"`
	// MaxFeePerGas and MaxPriorityFeePerGas are set for dynamic-fee
	// transactions (type 2 and later) only.
	MaxFeePerGas         *hexutil.Big `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas *hexutil.Big `json:"maxPriorityFeePerGas,omitempty"`

	// Status is the receipt status: 1 success, 0 failure.
	Status  hexutil.Uint64 `json:"status"`
	GasUsed hexutil.Uint64 `json:"gasUsed"`
	// ContractAddress is the contract a creation made.
	ContractAddress *common.Address `json:"contractAddress,omitempty"`
	Logs            []Log           `json:"logs"`
	// Calls are the transaction's call frames in execution order (depth
	// first), its own top-level call first (depth 0).
	Calls []CallFrame `json:"calls"`
}

// Log is an event a transaction emitted (those of reverted frames are not
// in the receipt, so not here).
type Log struct {
	// Index is the log's position in the block.
	Index   hexutil.Uint64 `json:"logIndex"`
	Address common.Address `json:"address"`
	Topics  []common.Hash  `json:"topics"`
	Data    hexutil.Bytes  `json:"data"`
}

// Call frame types, as go-ethereum's call tracer names them.
const (
	CallType         = "CALL"
	CallCodeType     = "CALLCODE"
	DelegateCallType = "DELEGATECALL"
	StaticCallType   = "STATICCALL"
	CreateType       = "CREATE"
	Create2Type      = "CREATE2"
	SelfDestructType = "SELFDESTRUCT"
)

// CallFrame is one call of a transaction's execution.
type CallFrame struct {
	// Type is one of the call frame types above.
	Type string         `json:"type"`
	From common.Address `json:"from"`
	// To is the callee, or the address a CREATE or CREATE2 made.
	To    common.Address `json:"to"`
	Value *hexutil.Big   `json:"value"`
	// Gas is the gas the frame was given, GasUsed what it used.
	Gas     hexutil.Uint64 `json:"gas"`
	GasUsed hexutil.Uint64 `json:"gasUsed"`
	// Depth is 0 for the transaction's own call, 1 for the calls it makes,
	// and so on.
	Depth int `json:"depth"`
	// Reverted is set when the frame failed (reverted or ran out of gas);
	// its effects, and those of the frames below it, were undone.
	Reverted bool `json:"reverted,omitempty"`
}
