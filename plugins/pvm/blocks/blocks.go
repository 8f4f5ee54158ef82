// Package blocks holds the P-Chain's block in avalanchego's format
// (docs/pchain.md): Banff's standard block, with its time, parent, height
// and transactions.
package blocks

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// typeStandardBlock is the type ID of Banff's standard block in the
// P-Chain's block codec (the Apricot blocks, 0 to 4, the transactions'
// types, then Banff's four blocks from 29).
const typeStandardBlock uint32 = 32

// maxBlockSize is the largest block read, in bytes.
const maxBlockSize = 2 << 20

// Block is a standard block: its time (unix seconds), parent, height and
// transactions.
type Block struct {
	Time   uint64
	Parent ids.ID
	Height uint64
	Txs    []*txs.Tx

	id    ids.ID
	bytes []byte
}

// New returns the block with its bytes and ID.
func New(time uint64, parent ids.ID, height uint64, list []*txs.Tx) *Block {
	b := &Block{Time: time, Parent: parent, Height: height, Txs: list}
	b.encode()
	return b
}

func (b *Block) encode() {
	p := avax.NewPacker(make([]byte, 0, 1024))
	p.Short(avax.CodecVersion)
	p.Int(typeStandardBlock)
	p.Long(b.Time)
	p.ID(b.Parent)
	p.Long(b.Height)
	p.Int(uint32(len(b.Txs)))
	for _, t := range b.Txs {
		t.PackInBlock(p)
	}
	b.bytes = p.Bytes()
	b.id = sha256.Sum256(b.bytes)
}

// ID is the block ID: the SHA-256 of its bytes.
func (b *Block) ID() ids.ID { return b.id }

// Bytes returns the block's bytes.
func (b *Block) Bytes() []byte { return b.bytes }

// Parse reads a standard block.
func Parse(raw []byte) (*Block, error) {
	if len(raw) > maxBlockSize {
		return nil, fmt.Errorf("parse block: %d bytes, more than %d", len(raw), maxBlockSize)
	}
	u := avax.NewUnpacker(raw)
	u.Version()
	if t := u.TypeID(); u.Err() == nil && t != typeStandardBlock {
		return nil, fmt.Errorf("parse block: type ID %d, want %d (a Banff standard block)", t, typeStandardBlock)
	}
	time, parent, height := u.Long(), u.ID(), u.Long()
	n := u.SliceLen(8, "block transactions")
	list := make([]*txs.Tx, 0, n)
	for range n {
		t := txs.UnpackInBlock(u)
		if u.Err() != nil {
			break
		}
		list = append(list, t)
	}
	if err := u.Done(); err != nil {
		return nil, fmt.Errorf("parse block: %w", err)
	}
	b := New(time, parent, height, list)
	if !bytes.Equal(b.bytes, raw) {
		return nil, fmt.Errorf("parse block: the bytes are not in the codec's one encoding")
	}
	return b, nil
}
