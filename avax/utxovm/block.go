package utxovm

import (
	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Block is a UTXO chain's standard block: its parent, height, time (unix
// seconds) and transactions, with its bytes and ID.
type Block[U signedtx.Unsigned] struct {
	Parent ids.ID
	Height uint64
	Time   uint64
	Txs    []*signedtx.Tx[U]

	signedtx.Encoded
}

// Field is a field of a standard block's header.
type Field int

// The header fields, which each chain orders its own way.
const (
	Parent Field = iota
	Height
	Time
	// EmptyID is an ID the chain's blocks hold unused: always the empty ID
	// (the X-Chain's Merkle root).
	EmptyID
)

// BlockFormat is a chain's standard block: signedtx's frame, and the
// header's fields in the chain's order.
type BlockFormat[U signedtx.Unsigned] struct {
	frame  signedtx.BlockFormat[U]
	header []Field
}

// NewBlockFormat returns the standard block of type typeID in the chain's
// block codec (name names it in errors), whose transactions unpack reads,
// with header's fields.
func NewBlockFormat[U signedtx.Unsigned](typeID uint32, name string, unpack func(*avax.Unpacker) *signedtx.Tx[U], header ...Field) BlockFormat[U] {
	return BlockFormat[U]{frame: signedtx.BlockFormat[U]{TypeID: typeID, Name: name, Unpack: unpack}, header: header}
}

// New returns the block with its bytes and ID.
func (f BlockFormat[U]) New(parent ids.ID, height, time uint64, list []*signedtx.Tx[U]) *Block[U] {
	b := &Block[U]{Parent: parent, Height: height, Time: time, Txs: list}
	b.Encoded = f.frame.Encode(f.packer(b), b.Txs)
	return b
}

// Parse reads a block.
func (f BlockFormat[U]) Parse(raw []byte) (*Block[U], error) {
	b := &Block[U]{}
	var err error
	b.Txs, b.Encoded, err = f.frame.Parse(raw, func(u *avax.Unpacker) { f.unpackHeader(u, b) }, f.packer(b))
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (f BlockFormat[U]) packer(b *Block[U]) func(p *avax.Packer) {
	return func(p *avax.Packer) {
		for _, field := range f.header {
			switch field {
			case Parent:
				p.ID(b.Parent)
			case Height:
				p.Long(b.Height)
			case Time:
				p.Long(b.Time)
			case EmptyID:
				p.ID(ids.ID{})
			}
		}
	}
}

func (f BlockFormat[U]) unpackHeader(u *avax.Unpacker, b *Block[U]) {
	for _, field := range f.header {
		switch field {
		case Parent:
			b.Parent = u.ID()
		case Height:
			b.Height = u.Long()
		case Time:
			b.Time = u.Long()
		case EmptyID:
			if id := u.ID(); id != (ids.ID{}) {
				u.Failf("unused ID %s, want the empty ID", id)
			}
		}
	}
}
