package store

import (
	"context"
	"errors"

	"github.com/chainhost/chainhost/sdk/ids"
)

// The P-Chain's records (docs/data-api.md, "The P-Chain"): its blocks, and
// the subnets and blockchains its transactions create, each with the block
// that created it. The P-Chain is a chain of the store like an EVM chain:
// its ChainState's Next is the height of the next block to index, its
// CumulativeTxs the transactions of the blocks indexed.

// ErrPChainUndo is Batch.PerBlock's error for a batch with P-Chain records:
// the P-Chain never reorganises, so its records are written without undo.
var ErrPChainUndo = errors.New("store: P-Chain records are written without undo (the P-Chain never reorganises)")

// PBlock is a P-Chain block.
type PBlock struct {
	Height    uint64
	ID        ids.ID
	ParentID  ids.ID
	Timestamp uint64
	// Size is the block's length in bytes; Type its type name
	// ("BanffStandardBlock").
	Size  uint64
	Type  string
	TxIDs []ids.ID
}

// Created places the transaction that created a subnet or a blockchain:
// its block, the block's time and its index in the block.
type Created struct {
	Block     uint64
	Timestamp uint64
	TxIndex   uint64
	TxID      ids.ID
}

// Blockchain is a chain a CreateChainTx created.
type Blockchain struct {
	ID       ids.ID
	SubnetID ids.ID
	VMID     ids.ID
	Name     string
	// Genesis is the chain's genesis data as the transaction holds it.
	Genesis []byte
	Created Created
}

// Owner is a subnet's owner: the addresses as the chain formats them
// ("P-local1..."), the threshold of signatures and the locktime.
type Owner struct {
	Addresses []string
	Threshold uint64
	Locktime  uint64
}

// Subnet is a subnet a CreateSubnetTx created, with its owner and, once a
// ConvertSubnetToL1Tx converted it, the conversion.
type Subnet struct {
	ID      ids.ID
	Owner   Owner
	Created Created
	// L1 is set once the subnet is converted: ConversionTx, ManagerChain
	// and ManagerAddress are then the conversion's.
	L1             bool
	ConversionTx   ids.ID
	ManagerChain   ids.ID
	ManagerAddress []byte
}

// PChainReader reads the P-Chain's records. The lists take Page: its
// Limit, Desc and Cursor; for PBlocks, FromBlock and ToBlock bound the
// heights; the subnets and blockchains are ordered by creation (block,
// then index in it) and ignore the bounds.
type PChainReader interface {
	// PBlock returns the P-Chain block at height.
	PBlock(ctx context.Context, chain ids.ID, height uint64) (PBlock, error)
	// PBlockByID returns the P-Chain block with ID id.
	PBlockByID(ctx context.Context, chain ids.ID, id ids.ID) (PBlock, error)
	// PBlocks lists the P-Chain's blocks by height.
	PBlocks(ctx context.Context, chain ids.ID, p Page) ([]PBlock, []byte, error)
	// Blockchain returns the blockchain with ID id.
	Blockchain(ctx context.Context, chain ids.ID, id ids.ID) (Blockchain, error)
	// Blockchains lists the blockchains.
	Blockchains(ctx context.Context, chain ids.ID, p Page) ([]Blockchain, []byte, error)
	// SubnetBlockchains lists the blockchains of a subnet.
	SubnetBlockchains(ctx context.Context, chain ids.ID, subnet ids.ID, p Page) ([]Blockchain, []byte, error)
	// Subnet returns the subnet with ID id.
	Subnet(ctx context.Context, chain ids.ID, id ids.ID) (Subnet, error)
	// Subnets lists the subnets.
	Subnets(ctx context.Context, chain ids.ID, p Page) ([]Subnet, []byte, error)
}

// hasPChain reports whether b holds P-Chain records.
func (b *Batch) hasPChain() bool {
	return len(b.PBlocks)+len(b.Blockchains)+len(b.Subnets) > 0
}
