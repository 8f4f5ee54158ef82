package store

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/sdk/ids"
)

// The records below hold only unsigned integers, strings, byte strings,
// booleans, big integers and nested records, so that a backend can store
// them in a compact binary form (the embedded one uses RLP). A *big.Int is
// never nil in a record.

// ChainState is how far a chain is indexed.
type ChainState struct {
	// EVMChainID is the chain's EVM chain ID (eth_chainId); 0 until known.
	EVMChainID uint64
	// Next is the number of the next block to index: every block below it
	// is indexed. 0 means none is.
	Next uint64
	// CumulativeTxs counts the transactions of the blocks indexed.
	CumulativeTxs uint64
}

// Height returns the number of the last block indexed and whether there is
// one.
func (s ChainState) Height() (uint64, bool) {
	if s.Next == 0 {
		return 0, false
	}
	return s.Next - 1, true
}

// TokenKind is the standard a token contract follows.
type TokenKind uint64

// The token kinds.
const (
	KindUnknown TokenKind = iota
	KindERC20
	KindERC721
	KindERC1155
)

// String returns the kind as the API spells it ("ERC-20", ..., "UNKNOWN").
func (k TokenKind) String() string {
	switch k {
	case KindERC20:
		return "ERC-20"
	case KindERC721:
		return "ERC-721"
	case KindERC1155:
		return "ERC-1155"
	}
	return "UNKNOWN"
}

// Token is a token contract's metadata, read from the contract when the
// indexer first saw it.
type Token struct {
	Address  common.Address
	Kind     TokenKind
	Name     string
	Symbol   string
	Decimals uint64
}

// NFT is one token of an ERC-721 or ERC-1155 contract: its URI and the
// metadata read from it when the indexer first saw the token.
type NFT struct {
	TokenID  *big.Int
	URI      string
	Metadata NFTMetadata
}

// NFTMetadata is an NFT's metadata document, flattened as the API shows it.
type NFTMetadata struct {
	// Status is one of the API's NftTokenMetadataStatus values.
	Status string
	// UpdatedAt is when the metadata was read, Unix seconds; 0 when it was
	// not.
	UpdatedAt    uint64
	Name         string
	Symbol       string
	ImageURI     string
	Description  string
	AnimationURI string
	ExternalURL  string
	Background   string
	// Attributes (ERC-721) and Properties (ERC-1155) are JSON text.
	Attributes  string
	Properties  string
	Decimals    uint64
	HasDecimals bool
}

// Block is an indexed block.
type Block struct {
	Number     uint64
	Hash       common.Hash
	ParentHash common.Hash
	Timestamp  uint64
	GasLimit   uint64
	GasUsed    uint64
	// BaseFee is zero before London.
	BaseFee *big.Int
	TxCount uint64
	// CumulativeTxs counts the chain's transactions up to and including
	// this block.
	CumulativeTxs uint64
	// FeesSpent is the sum of gas used times effective gas price.
	FeesSpent *big.Int
}

// Tx is a transaction with what it did: the token transfers of its logs
// and its listed internal transactions.
type Tx struct {
	BlockNumber    uint64
	BlockHash      common.Hash
	BlockTimestamp uint64
	Index          uint64
	Hash           common.Hash
	Type           uint64
	From           common.Address
	// To is the callee, or for a creation the contract it made.
	To       common.Address
	Creation bool
	Value    *big.Int
	Nonce    uint64
	GasLimit uint64
	GasUsed  uint64
	// GasPrice is the effective gas price.
	GasPrice *big.Int
	// DynamicFee says MaxFeePerGas and MaxPriorityFeePerGas are set.
	DynamicFee           bool
	MaxFeePerGas         *big.Int
	MaxPriorityFeePerGas *big.Int
	// BaseFee is the block's base fee, zero before London.
	BaseFee *big.Int
	Success bool
	// Method is the first four bytes of the input (fewer when it is
	// shorter); Input is the whole input, left out of address lists.
	Method   []byte
	Input    []byte
	ERC20    []ERC20Transfer
	ERC721   []ERC721Transfer
	ERC1155  []ERC1155Transfer
	Internal []InternalTx
}

// ERC20Transfer is a Transfer event of an ERC-20 contract.
type ERC20Transfer struct {
	LogIndex uint64
	From     common.Address
	To       common.Address
	Value    *big.Int
	Token    Token
}

// ERC721Transfer is a Transfer event of an ERC-721 contract.
type ERC721Transfer struct {
	LogIndex uint64
	From     common.Address
	To       common.Address
	Token    Token
	NFT      NFT
}

// ERC1155Transfer is a TransferSingle event, or one item of a
// TransferBatch event (BatchIndex is its position in the batch).
type ERC1155Transfer struct {
	LogIndex   uint64
	BatchIndex uint64
	From       common.Address
	To         common.Address
	Value      *big.Int
	Token      Token
	NFT        NFT
}

// InternalTx is a call frame below the transaction's own call that the API
// lists: a CALL or CALLCODE moving value, or a contract creation.
type InternalTx struct {
	// Frame is the frame's position in the transaction's call frames.
	Frame uint64
	// Type is CALL, CALLCODE, CREATE, CREATE2 or CREATE3.
	Type     string
	From     common.Address
	To       common.Address
	Value    *big.Int
	Reverted bool
	GasLimit uint64
	GasUsed  uint64
}

// TxRef places a standalone list item: its transaction and block.
type TxRef struct {
	BlockNumber    uint64
	BlockHash      common.Hash
	BlockTimestamp uint64
	TxIndex        uint64
	TxHash         common.Hash
}

// Ref returns the place of t.
func (t *Tx) Ref() TxRef {
	return TxRef{BlockNumber: t.BlockNumber, BlockHash: t.BlockHash, BlockTimestamp: t.BlockTimestamp, TxIndex: t.Index, TxHash: t.Hash}
}

// ERC721Item is an ERC-721 transfer in an address's list.
type ERC721Item struct {
	Ref      TxRef
	Transfer ERC721Transfer
}

// ERC1155Item is an ERC-1155 transfer in an address's list.
type ERC1155Item struct {
	Ref      TxRef
	Transfer ERC1155Transfer
}

// InternalItem is an internal transaction in an address's list.
type InternalItem struct {
	Ref TxRef
	Tx  InternalTx
}

// ERC20Balance is a holder's balance of an ERC-20 token.
type ERC20Balance struct {
	Token   Token
	Balance *big.Int
}

// ERC1155Balance is a holder's balance of one ERC-1155 token.
type ERC1155Balance struct {
	Token   Token
	NFT     NFT
	Balance *big.Int
}

// Collectible is an ERC-721 token a holder owns (Balance 1) or its
// balance of an ERC-1155 token; Token.Kind tells them apart.
type Collectible struct {
	Token   Token
	NFT     NFT
	Balance *big.Int
}

// Contract is a contract deployment.
type Contract struct {
	Address common.Address
	// Kind is what the contract answered when probed after its creation.
	Kind     TokenKind
	Name     string
	Symbol   string
	Decimals uint64
	// Deployer is the sender of the creating transaction; Factory the
	// contract that ran the creation, zero when the transaction did.
	Deployer    common.Address
	Factory     common.Address
	TxHash      common.Hash
	BlockNumber uint64
	TxIndex     uint64
	Frame       uint64
}

// BalanceChange is a holder's new balance of a token after a block.
type BalanceChange struct {
	Holder common.Address
	Token  Token
	// NFT is the ERC-1155 token; nil for an ERC-20 balance.
	NFT     *NFT
	Block   uint64
	Balance *big.Int
}

// Ownership is an ERC-721 token changing hands: From no longer owns it
// (unless it is the zero address, a mint), To does (unless zero, a burn).
type Ownership struct {
	Token Token
	NFT   NFT
	From  common.Address
	To    common.Address
	// Block is the block of the transfer.
	Block uint64
}

// Batch is what indexing a run of blocks of one chain writes, in one
// atomic write.
type Batch struct {
	Chain ids.ID
	// State is the chain's state after the batch.
	State      ChainState
	Blocks     []Block
	Txs        []Tx
	Balances   []BalanceChange
	Ownerships []Ownership
	Contracts  []Contract
	// Tokens and NFTs are metadata read for the first time.
	Tokens []Token
	NFTs   []NFTRecord

	// PBlocks, Blockchains and Subnets are a P-Chain's records (pchain.go);
	// a Subnet replaces the one of the same ID (a conversion).
	PBlocks     []PBlock
	Blockchains []Blockchain
	Subnets     []Subnet

	// Undo makes the backend keep what it needs to roll back each block
	// of the batch (Store.Rollback); writes without it cost nothing more.
	// Every record of an Undo batch must belong to one of its blocks.
	Undo bool
	// PruneUndoBelow drops, in the same write, the undo records of the
	// chain's blocks below it; 0 drops none.
	PruneUndoBelow uint64
}

// NFTRecord is an NFT's metadata with its contract.
type NFTRecord struct {
	Token common.Address
	NFT   NFT
}
