// Package blocks holds the P-Chain's block in avalanchego's format
// (docs/pchain.md): Banff's standard block, with its time, parent, height
// and transactions.
package blocks

import (
	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// typeStandardBlock is the type ID of Banff's standard block in the
// P-Chain's block codec (the Apricot blocks, 0 to 4, the transactions'
// types, then Banff's four blocks from 29).
const typeStandardBlock uint32 = 32

// format frames the standard block.
var format = signedtx.BlockFormat[txs.Unsigned]{
	TypeID: typeStandardBlock,
	Name:   "a Banff standard block",
	Unpack: txs.UnpackInBlock,
}

// Block is a standard block: its time (unix seconds), parent, height and
// transactions.
type Block struct {
	Time   uint64
	Parent ids.ID
	Height uint64
	Txs    []*txs.Tx

	signedtx.Encoded
}

// New returns the block with its bytes and ID.
func New(time uint64, parent ids.ID, height uint64, list []*txs.Tx) *Block {
	b := &Block{Time: time, Parent: parent, Height: height, Txs: list}
	b.Encoded = format.Encode(b.packHeader, b.Txs)
	return b
}

func (b *Block) packHeader(p *avax.Packer) {
	p.Long(b.Time)
	p.ID(b.Parent)
	p.Long(b.Height)
}

func (b *Block) unpackHeader(u *avax.Unpacker) {
	b.Time, b.Parent, b.Height = u.Long(), u.ID(), u.Long()
}

// Parse reads a standard block.
func Parse(raw []byte) (*Block, error) {
	b := &Block{}
	var err error
	b.Txs, b.Encoded, err = format.Parse(raw, b.unpackHeader, b.packHeader)
	if err != nil {
		return nil, err
	}
	return b, nil
}
