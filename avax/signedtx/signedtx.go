// Package signedtx is the signed-transaction envelope the X-, P- and
// C-Chains' codecs share (docs/xvm.md): the codec version, the unsigned
// transaction's type ID and fields, then one secp256k1fx credential per
// signer, with the ID, the signing and the parsing avalanchego gives it.
// Each chain brings its own unsigned transactions and the reading of
// them by type ID.
package signedtx

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// MaxSize is the largest transaction the codecs read, in bytes
// (avalanchego's default codec limit).
const MaxSize = 256 << 10

// Unsigned is an unsigned transaction of one chain's codec.
type Unsigned interface {
	// TypeID is the codec type ID.
	TypeID() uint32
	// Pack packs the fields after the type ID.
	Pack(p *avax.Packer)
}

// Tx is a signed transaction: the unsigned transaction and its
// credentials.
type Tx[U Unsigned] struct {
	Unsigned U
	Creds    []avax.Credential

	id            ids.ID
	bytes         []byte
	unsignedBytes []byte
}

// ID is the transaction ID: the SHA-256 of its signed bytes.
func (t *Tx[U]) ID() ids.ID { return t.id }

// Bytes returns the signed bytes.
func (t *Tx[U]) Bytes() []byte { return t.bytes }

// UnsignedBytes returns the bytes its signatures sign (their SHA-256): the
// codec version, the type ID and the unsigned fields.
func (t *Tx[U]) UnsignedBytes() []byte { return t.unsignedBytes }

// PackInBlock packs the transaction as a block holds it: without the codec
// version.
func (t *Tx[U]) PackInBlock(p *avax.Packer) { p.Fixed(t.bytes[2:]) }

// New returns the signed transaction of unsigned and creds, with its bytes
// and ID.
func New[U Unsigned](unsigned U, creds []avax.Credential) *Tx[U] {
	t := &Tx[U]{Unsigned: unsigned, Creds: creds}
	t.initialize()
	return t
}

// packUnsigned returns a packer holding the bytes a transaction's
// signatures sign: the codec version, the type ID and the fields.
func packUnsigned(unsigned Unsigned) *avax.Packer {
	p := avax.NewPacker(make([]byte, 0, 512))
	p.Version()
	p.Int(unsigned.TypeID())
	unsigned.Pack(p)
	return p
}

// initialize computes the bytes and the ID from the fields.
func (t *Tx[U]) initialize() {
	p := packUnsigned(t.Unsigned)
	n := len(p.Bytes())
	p.Int(uint32(len(t.Creds)))
	for i := range t.Creds {
		t.Creds[i].Pack(p)
	}
	t.bytes = p.Bytes()
	t.unsignedBytes = t.bytes[:n:n]
	t.id = sha256.Sum256(t.bytes)
}

// Sign signs unsigned with one list of keys per credential, in the order
// the chain gives its credentials, each key signing for one signature
// index, and returns the signed transaction.
func Sign[U Unsigned](unsigned U, keys [][]*avax.PrivateKey) *Tx[U] {
	hash := sha256.Sum256(packUnsigned(unsigned).Bytes())
	creds := make([]avax.Credential, len(keys))
	for i, ks := range keys {
		creds[i].Sigs = make([][avax.SignatureLen]byte, len(ks))
		for j, k := range ks {
			creds[i].Sigs[j] = k.SignHash(hash[:])
		}
	}
	return New(unsigned, creds)
}

// Decodable is an unsigned transaction that reads its own fields, those
// Pack writes.
type Decodable interface {
	Unsigned
	Unpack(u *avax.Unpacker)
}

// Types are the unsigned transactions of one chain's codec.
type Types[U Decodable] struct {
	// Noun names them in errors ("transaction").
	Noun string
	// New returns an empty transaction of a type ID the chain takes.
	New map[uint32]func() U
	// Refused names, with the reason, the types the codec has and the
	// chain does not take.
	Refused map[uint32]string
}

// Unpack reads an unsigned transaction: its type ID, then the fields of
// that type. A type the chain does not take fails u.
func (ts Types[U]) Unpack(u *avax.Unpacker) U {
	var zero U
	typ := u.TypeID()
	if u.Err() != nil {
		return zero
	}
	newTx, ok := ts.New[typ]
	if !ok {
		if name, ok := ts.Refused[typ]; ok {
			u.Failf("%s (type %d) is not supported", name, typ)
		} else {
			u.Failf("unknown %s type ID %d", ts.Noun, typ)
		}
		return zero
	}
	t := newTx()
	t.Unpack(u)
	return t
}

// Codec reads one chain's signed transactions.
type Codec[U Unsigned] struct {
	what   string
	unpack func(u *avax.Unpacker) U
}

// NewCodec returns the codec whose unpack reads an unsigned transaction,
// its type ID first (failing u on a type it does not take); what names
// the transactions in errors ("tx"). A chain's unpack is its Types'
// Unpack.
func NewCodec[U Unsigned](what string, unpack func(u *avax.Unpacker) U) Codec[U] {
	return Codec[U]{what: what, unpack: unpack}
}

// Parse reads a signed transaction: the codec version, the unsigned
// transaction and the credentials, with nothing after them, in the codec's
// one encoding.
func (c Codec[U]) Parse(b []byte) (*Tx[U], error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("parse %s: %d bytes, more than the %d allowed", c.what, len(b), MaxSize)
	}
	u := avax.NewUnpacker(b)
	u.Version()
	t := c.read(u)
	if err := u.Done(); err != nil {
		return nil, fmt.Errorf("parse %s: %w", c.what, err)
	}
	t.initialize()
	if !bytes.Equal(t.bytes, b) {
		return nil, fmt.Errorf("parse %s: the bytes are not in the codec's one encoding", c.what)
	}
	return t, nil
}

// UnpackInBlock reads a transaction as a block holds it (PackInBlock); nil
// when u fails.
func (c Codec[U]) UnpackInBlock(u *avax.Unpacker) *Tx[U] {
	start := u.Offset()
	t := c.read(u)
	if u.Err() != nil {
		return nil
	}
	t.initialize()
	if got := len(t.bytes) - 2; got != u.Offset()-start {
		u.Failf("transaction re-encodes to %d bytes, read %d", got, u.Offset()-start)
	}
	return t
}

// read reads a transaction without its codec version; after an error of
// u, what it returns is not to be used.
func (c Codec[U]) read(u *avax.Unpacker) *Tx[U] {
	t := &Tx[U]{Unsigned: c.unpack(u)}
	if u.Err() != nil {
		return t
	}
	n := u.SliceLen(4+4, "credentials")
	t.Creds = make([]avax.Credential, n)
	for i := range t.Creds {
		t.Creds[i] = avax.UnpackCredential(u)
	}
	return t
}
