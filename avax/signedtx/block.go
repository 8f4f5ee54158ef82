package signedtx

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// MaxBlockSize is the largest block the chains read, in bytes.
const MaxBlockSize = 2 << 20

// Encoded is a container's bytes and ID (the SHA-256 of the bytes), to
// embed in it.
type Encoded struct {
	id    ids.ID
	bytes []byte
}

// ID is the SHA-256 of the bytes.
func (e *Encoded) ID() ids.ID { return e.id }

// Bytes returns the bytes.
func (e *Encoded) Bytes() []byte { return e.bytes }

// BlockFormat is a chain's standard block: the codec version, the block's
// type ID, its header fields, then its transactions, each without its
// codec version (Tx.PackInBlock). Its ID is the SHA-256 of its bytes.
type BlockFormat[U Unsigned] struct {
	// TypeID is the block's type ID in the chain's block codec.
	TypeID uint32
	// Name names the block in errors ("a standard block").
	Name string
	// Unpack reads a transaction as a block holds it (Codec.UnpackInBlock).
	Unpack func(u *avax.Unpacker) *Tx[U]
}

// Encode returns the bytes and the ID of the block whose header fields
// packHeader packs.
func (f BlockFormat[U]) Encode(packHeader func(p *avax.Packer), list []*Tx[U]) Encoded {
	p := avax.NewPacker(make([]byte, 0, 1024))
	p.Version()
	p.Int(f.TypeID)
	packHeader(p)
	p.Int(uint32(len(list)))
	for _, t := range list {
		t.PackInBlock(p)
	}
	return Encoded{id: sha256.Sum256(p.Bytes()), bytes: p.Bytes()}
}

// Parse reads a block: unpackHeader reads the header's fields, and
// packHeader packs them again to check that raw is in the codec's one
// encoding. It returns the transactions, and the bytes and ID as Encode
// gives them.
func (f BlockFormat[U]) Parse(raw []byte, unpackHeader func(u *avax.Unpacker), packHeader func(p *avax.Packer)) ([]*Tx[U], Encoded, error) {
	if len(raw) > MaxBlockSize {
		return nil, Encoded{}, fmt.Errorf("parse block: %d bytes, more than %d", len(raw), MaxBlockSize)
	}
	u := avax.NewUnpacker(raw)
	u.Version()
	if t := u.TypeID(); u.Err() == nil && t != f.TypeID {
		return nil, Encoded{}, fmt.Errorf("parse block: type ID %d, want %d (%s)", t, f.TypeID, f.Name)
	}
	unpackHeader(u)
	n := u.SliceLen(8, "block transactions")
	list := make([]*Tx[U], 0, n)
	for range n {
		t := f.Unpack(u)
		if u.Err() != nil {
			break
		}
		list = append(list, t)
	}
	if err := u.Done(); err != nil {
		return nil, Encoded{}, fmt.Errorf("parse block: %w", err)
	}
	e := f.Encode(packHeader, list)
	if !bytes.Equal(e.bytes, raw) {
		return nil, Encoded{}, fmt.Errorf("parse block: the bytes are not in the codec's one encoding")
	}
	return list, e, nil
}
