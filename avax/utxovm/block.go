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

// BlockFormat is a chain's standard block: signedtx's frame, and the
// header's fields in the chain's order.
type BlockFormat[U signedtx.Unsigned] struct {
	signedtx.BlockFormat[U]
	// PackHeader packs the header's fields, and UnpackHeader reads them.
	PackHeader   func(p *avax.Packer, b *Block[U])
	UnpackHeader func(u *avax.Unpacker, b *Block[U])
}

// New returns the block with its bytes and ID.
func (f BlockFormat[U]) New(parent ids.ID, height, time uint64, list []*signedtx.Tx[U]) *Block[U] {
	b := &Block[U]{Parent: parent, Height: height, Time: time, Txs: list}
	b.Encoded = f.Encode(f.packer(b), b.Txs)
	return b
}

// Parse reads a block.
func (f BlockFormat[U]) Parse(raw []byte) (*Block[U], error) {
	b := &Block[U]{}
	var err error
	b.Txs, b.Encoded, err = f.BlockFormat.Parse(raw, func(u *avax.Unpacker) { f.UnpackHeader(u, b) }, f.packer(b))
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (f BlockFormat[U]) packer(b *Block[U]) func(p *avax.Packer) {
	return func(p *avax.Packer) { f.PackHeader(p, b) }
}
