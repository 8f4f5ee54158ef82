// Package store is the data API's storage interface: the records the
// indexer derives from a chain's blocks and the bounded reads the REST
// endpoints make (docs/data-api.md, "Storage"). The embedded backend is
// store/kvstore; a PostgreSQL backend implements the same interface.
//
// Every list read is keyset-paginated: it takes an opaque cursor from the
// previous page and never an offset, so a deep page costs what the first
// one does. A backend returns at most Limit items and a cursor for the next
// page, nil when there is none.
package store

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/sdk/ids"
)

// ErrNotFound is returned by the point reads when the record does not exist.
var ErrNotFound = errors.New("not found")

// ErrBadCursor is returned by a list read whose cursor this backend did not
// make for that list.
var ErrBadCursor = errors.New("bad cursor")

// ErrNoUndo is returned, wrapped with the block's number, by a Rollback
// that reaches a block written without Batch.Undo or whose undo record
// was pruned (Batch.PruneUndoBelow).
var ErrNoUndo = errors.New("no undo record")

// Store is a data API backend: one writer (the indexer) and any number of
// readers (the API).
type Store interface {
	Reader
	// Write applies b atomically: the rows of its blocks and the chain's
	// new state all land, or none does.
	Write(ctx context.Context, b *Batch) error
	// Rollback removes every block of chain from `from` on and all it
	// wrote, in one atomic write, and returns the chain's new state: the
	// reads then answer what a store that only indexed the blocks below
	// `from` answers (docs/data-api.md, "Reorganisations"). It fails with
	// ErrNoUndo, naming the block, when a block from `from` on was written
	// without Undo or its undo record was pruned; then nothing changes.
	// Nothing to remove (`from` at or past the chain's Next) is no error.
	Rollback(ctx context.Context, chain ids.ID, from uint64) (ChainState, error)
	// UpdateNFTs replaces the metadata of NFTs already recorded (a refetch
	// of their documents, docs/data-api.md "NFT metadata"), outside any
	// block: the chain's state and undo records stay as they are.
	UpdateNFTs(ctx context.Context, chain ids.ID, nfts []NFTRecord) error
	// Close releases the backend.
	Close() error
}

// Reader is what the API and the indexer read.
type Reader interface {
	// Chains returns every chain with a state, by blockchain ID.
	Chains(ctx context.Context) (map[ids.ID]ChainState, error)
	// State returns how far chain is indexed; a chain never written has
	// the zero state.
	State(ctx context.Context, chain ids.ID) (ChainState, error)
	// Block returns the block with number n.
	Block(ctx context.Context, chain ids.ID, n uint64) (Block, error)
	// BlockByHash returns the block with hash h.
	BlockByHash(ctx context.Context, chain ids.ID, h common.Hash) (Block, error)
	// Tx returns the complete transaction with hash h.
	Tx(ctx context.Context, chain ids.ID, h common.Hash) (Tx, error)

	// AddressTxs lists the transactions addr took part in, each holding
	// only the transfers and internal transactions addr sent or received
	// and no input.
	AddressTxs(ctx context.Context, chain ids.ID, addr common.Address, p Page) ([]Tx, []byte, error)
	// ERC721Transfers lists the ERC-721 transfers addr sent or received.
	ERC721Transfers(ctx context.Context, chain ids.ID, addr common.Address, p Page) ([]ERC721Item, []byte, error)
	// ERC1155Transfers lists the ERC-1155 transfers addr sent or received.
	ERC1155Transfers(ctx context.Context, chain ids.ID, addr common.Address, p Page) ([]ERC1155Item, []byte, error)
	// InternalTxs lists the internal transactions addr sent or received.
	InternalTxs(ctx context.Context, chain ids.ID, addr common.Address, p Page) ([]InternalItem, []byte, error)

	// ERC20Balances lists holder's non-zero ERC-20 balances at a block, by
	// token address.
	ERC20Balances(ctx context.Context, chain ids.ID, holder common.Address, q BalanceQuery) ([]ERC20Balance, []byte, error)
	// ERC1155Balances lists holder's non-zero ERC-1155 balances at a
	// block, by token address and token ID.
	ERC1155Balances(ctx context.Context, chain ids.ID, holder common.Address, q BalanceQuery) ([]ERC1155Balance, []byte, error)
	// Collectibles lists the ERC-721 tokens holder owns and its non-zero
	// ERC-1155 balances now, by token address and token ID.
	Collectibles(ctx context.Context, chain ids.ID, holder common.Address, q BalanceQuery) ([]Collectible, []byte, error)
	// Deployments lists the contracts deployer deployed, directly or as a
	// factory, oldest first.
	Deployments(ctx context.Context, chain ids.ID, deployer common.Address, p Page) ([]Contract, []byte, error)
	// AddressChains returns the chains on which addr took part in a
	// transaction, a transfer or an internal transaction.
	AddressChains(ctx context.Context, addr common.Address) ([]ids.ID, error)

	// Token returns the metadata the indexer recorded for a token contract.
	Token(ctx context.Context, chain ids.ID, addr common.Address) (Token, error)
	// NFT returns the metadata the indexer recorded for one NFT.
	NFT(ctx context.Context, chain ids.ID, token common.Address, id *big.Int) (NFT, error)
	// Balance returns holder's latest balance of token (ERC-20: id nil;
	// ERC-1155: the token ID), zero when it has none.
	Balance(ctx context.Context, chain ids.ID, holder, token common.Address, id *big.Int) (*big.Int, error)

	// Contracts, token transfers and NFT collections (contracts.go).
	// Contract returns the deployment of the contract at addr.
	Contract(ctx context.Context, chain ids.ID, addr common.Address) (Contract, error)
	// TokenTransfers lists the transfers of a token contract, of any
	// standard, ordered by (block, transaction, log, batch item).
	TokenTransfers(ctx context.Context, chain ids.ID, token common.Address, p Page) ([]TokenTransfer, []byte, error)
	// CollectionNFTs lists the NFTs of a contract the indexer recorded, by
	// token ID; only p.Limit and p.Cursor apply.
	CollectionNFTs(ctx context.Context, chain ids.ID, token common.Address, p Page) ([]NFT, []byte, error)

	// The chain's transaction lists and an address's native and ERC-20
	// lists (chainlists.go).

	// ChainTxs lists the chain's transactions of a status (AnyStatus:
	// all), each Bare.
	ChainTxs(ctx context.Context, chain ids.ID, status TxStatus, p Page) ([]Tx, []byte, error)
	// NativeTxs lists the transactions addr sent or received (as the
	// recipient or the contract created), each Bare.
	NativeTxs(ctx context.Context, chain ids.ID, addr common.Address, p Page) ([]Tx, []byte, error)
	// ERC20Transfers lists the ERC-20 transfers addr sent or received.
	ERC20Transfers(ctx context.Context, chain ids.ID, addr common.Address, p Page) ([]ERC20Item, []byte, error)

	// The P-Chain's blocks, subnets and blockchains (pchain.go).
	PChainReader
}

// Page selects one page of a list of rows ordered by (block, position).
type Page struct {
	// Limit is the most items returned; at least 1.
	Limit int
	// Desc lists newest first.
	Desc bool
	// FromBlock and ToBlock bound the blocks listed: FromBlock inclusive,
	// ToBlock exclusive; ToBlock 0 means no upper bound.
	FromBlock, ToBlock uint64
	// Cursor is the next cursor of the previous page; nil for the first.
	Cursor []byte
}

// BalanceQuery selects one page of balances.
type BalanceQuery struct {
	// Limit is the most items returned; at least 1.
	Limit int
	// Block is the block the balances are read at (after its
	// transactions); Latest reads the current balances instead, which is
	// the same as Block at the chain's height but one scan.
	Block  uint64
	Latest bool
	// Tokens, when set, keeps only these token contracts.
	Tokens []common.Address
	// Cursor is the next cursor of the previous page; nil for the first.
	Cursor []byte
}
