// Package blocks holds the P-Chain's block in avalanchego's format
// (docs/pchain.md): Banff's standard block, with its time, parent, height
// and transactions.
package blocks

import (
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// typeStandardBlock is the type ID of Banff's standard block in the
// P-Chain's block codec (the Apricot blocks, 0 to 4, the transactions'
// types, then Banff's four blocks from 29).
const typeStandardBlock uint32 = 32

// Format frames the standard block: its time, parent and height.
var Format = utxovm.NewBlockFormat(typeStandardBlock, "a Banff standard block", txs.UnpackInBlock,
	utxovm.Time, utxovm.Parent, utxovm.Height)

// Block is a standard block.
type Block = utxovm.Block[txs.Unsigned]

// New returns the block with its bytes and ID.
func New(time uint64, parent ids.ID, height uint64, list []*txs.Tx) *Block {
	return Format.New(parent, height, time, list)
}

// Parse reads a standard block.
func Parse(raw []byte) (*Block, error) { return Format.Parse(raw) }
