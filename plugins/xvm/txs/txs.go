// Package txs holds the X-Chain's transactions in avalanchego's codec
// (docs/xvm.md): BaseTx, CreateAssetTx (genesis assets), ImportTx and
// ExportTx with secp256k1fx inputs, outputs and credentials, signed as
// avalanchego signs them, with their structural checks.
package txs

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Type IDs of the unsigned transactions in the X-Chain's codec.
const (
	TypeBaseTx        uint32 = 0
	TypeCreateAssetTx uint32 = 1
	typeOperationTx   uint32 = 2
	TypeImportTx      uint32 = 3
	TypeExportTx      uint32 = 4
)

// maxMemoSize is the longest memo, in bytes.
const maxMemoSize = 256

// maxTxSize is the largest transaction the codec reads, in bytes
// (avalanchego's default codec limit).
const maxTxSize = 256 << 10

// Unsigned is an unsigned transaction: *BaseTx, *CreateAssetTx, *ImportTx
// or *ExportTx.
type Unsigned interface {
	// TypeID is the codec type ID.
	TypeID() uint32
	// Base returns the common fields.
	Base() *BaseTx
	// NumInputs is the number of inputs that need a credential.
	NumInputs() int
	// pack packs the fields after the type ID.
	pack(p *avax.Packer)
}

// BaseTx is a transfer of assets on the chain, and the fields every
// transaction starts with.
type BaseTx struct {
	NetworkID    uint32
	BlockchainID ids.ID
	Outs         []avax.TransferableOutput
	Ins          []avax.TransferableInput
	Memo         []byte
}

// TypeID is TypeBaseTx.
func (*BaseTx) TypeID() uint32 { return TypeBaseTx }

// Base returns t.
func (t *BaseTx) Base() *BaseTx { return t }

// NumInputs is the number of inputs.
func (t *BaseTx) NumInputs() int { return len(t.Ins) }

func (t *BaseTx) pack(p *avax.Packer) {
	p.Int(t.NetworkID)
	p.ID(t.BlockchainID)
	p.Int(uint32(len(t.Outs)))
	for i := range t.Outs {
		t.Outs[i].Pack(p)
	}
	p.Int(uint32(len(t.Ins)))
	for i := range t.Ins {
		t.Ins[i].Pack(p)
	}
	p.VarBytes(t.Memo)
}

func (t *BaseTx) unpack(u *avax.Unpacker) {
	t.NetworkID = u.Int()
	t.BlockchainID = u.ID()
	t.Outs = unpackOutputs(u, "outputs")
	t.Ins = unpackInputs(u, "inputs")
	t.Memo = u.VarBytes()
}

// The smallest packed output and input, to bound slice lengths.
const (
	minOutputSize = ids.Len + 4 + 8 + 8 + 4 + 4
	minInputSize  = ids.Len + 4 + ids.Len + 4 + 8 + 4
)

func unpackOutputs(u *avax.Unpacker, what string) []avax.TransferableOutput {
	n := u.SliceLen(minOutputSize, what)
	outs := make([]avax.TransferableOutput, n)
	for i := range outs {
		outs[i] = avax.UnpackTransferableOutput(u)
	}
	return outs
}

func unpackInputs(u *avax.Unpacker, what string) []avax.TransferableInput {
	n := u.SliceLen(minInputSize, what)
	ins := make([]avax.TransferableInput, n)
	for i := range ins {
		ins[i] = avax.UnpackTransferableInput(u)
	}
	return ins
}

// InitialState is a genesis asset's outputs of one feature extension (0:
// secp256k1fx, the only one chainhost reads).
type InitialState struct {
	FxIndex uint32
	Outs    []avax.TransferOutput
}

// CreateAssetTx creates an asset; chainhost reads it in the genesis only,
// where its ID is the asset's ID.
type CreateAssetTx struct {
	BaseTx
	Name         string
	Symbol       string
	Denomination byte
	States       []InitialState
}

// TypeID is TypeCreateAssetTx.
func (*CreateAssetTx) TypeID() uint32 { return TypeCreateAssetTx }

func (t *CreateAssetTx) pack(p *avax.Packer) {
	t.BaseTx.pack(p)
	p.Str(t.Name)
	p.Str(t.Symbol)
	p.Byte(t.Denomination)
	p.Int(uint32(len(t.States)))
	for _, s := range t.States {
		p.Int(s.FxIndex)
		p.Int(uint32(len(s.Outs)))
		for i := range s.Outs {
			s.Outs[i].Pack(p)
		}
	}
}

func (t *CreateAssetTx) unpack(u *avax.Unpacker) {
	t.BaseTx.unpack(u)
	t.Name = u.Str()
	t.Symbol = u.Str()
	t.Denomination = u.Byte()
	n := u.SliceLen(8, "initial states")
	t.States = make([]InitialState, n)
	for i := range t.States {
		t.States[i].FxIndex = u.Int()
		m := u.SliceLen(4+8+8+4+4, "initial state outputs")
		t.States[i].Outs = make([]avax.TransferOutput, m)
		for j := range t.States[i].Outs {
			t.States[i].Outs[j] = avax.UnpackTransferOutput(u)
		}
	}
}

// ImportTx consumes UTXOs that SourceChain exported to this chain.
type ImportTx struct {
	BaseTx
	SourceChain ids.ID
	ImportedIns []avax.TransferableInput
}

// TypeID is TypeImportTx.
func (*ImportTx) TypeID() uint32 { return TypeImportTx }

// NumInputs counts the inputs and the imported inputs.
func (t *ImportTx) NumInputs() int { return len(t.Ins) + len(t.ImportedIns) }

func (t *ImportTx) pack(p *avax.Packer) {
	t.BaseTx.pack(p)
	p.ID(t.SourceChain)
	p.Int(uint32(len(t.ImportedIns)))
	for i := range t.ImportedIns {
		t.ImportedIns[i].Pack(p)
	}
}

func (t *ImportTx) unpack(u *avax.Unpacker) {
	t.BaseTx.unpack(u)
	t.SourceChain = u.ID()
	t.ImportedIns = unpackInputs(u, "imported inputs")
}

// ExportTx sends ExportedOuts to DestinationChain through shared memory.
type ExportTx struct {
	BaseTx
	DestinationChain ids.ID
	ExportedOuts     []avax.TransferableOutput
}

// TypeID is TypeExportTx.
func (*ExportTx) TypeID() uint32 { return TypeExportTx }

func (t *ExportTx) pack(p *avax.Packer) {
	t.BaseTx.pack(p)
	p.ID(t.DestinationChain)
	p.Int(uint32(len(t.ExportedOuts)))
	for i := range t.ExportedOuts {
		t.ExportedOuts[i].Pack(p)
	}
}

func (t *ExportTx) unpack(u *avax.Unpacker) {
	t.BaseTx.unpack(u)
	t.DestinationChain = u.ID()
	t.ExportedOuts = unpackOutputs(u, "exported outputs")
}

// Tx is a signed transaction: the unsigned transaction and one credential
// per input (the imported inputs of an ImportTx follow its inputs).
type Tx struct {
	Unsigned Unsigned
	Creds    []avax.Credential

	id            ids.ID
	bytes         []byte
	unsignedBytes []byte
}

// ID is the transaction ID: the SHA-256 of its signed bytes.
func (t *Tx) ID() ids.ID { return t.id }

// Bytes returns the signed bytes.
func (t *Tx) Bytes() []byte { return t.bytes }

// UnsignedBytes returns the bytes its signatures sign (their SHA-256): the
// codec version, the type ID and the unsigned fields.
func (t *Tx) UnsignedBytes() []byte { return t.unsignedBytes }

// New returns the signed transaction of unsigned and creds, with its bytes
// and ID.
func New(unsigned Unsigned, creds []avax.Credential) *Tx {
	t := &Tx{Unsigned: unsigned, Creds: creds}
	t.initialize()
	return t
}

// initialize computes the bytes and the ID from the fields.
func (t *Tx) initialize() {
	p := avax.NewPacker(make([]byte, 0, 512))
	p.Short(avax.CodecVersion)
	p.Int(t.Unsigned.TypeID())
	t.Unsigned.pack(p)
	n := len(p.Bytes())
	packCreds(p, t.Creds)
	t.bytes = p.Bytes()
	t.unsignedBytes = t.bytes[:n:n]
	t.id = sha256.Sum256(t.bytes)
}

func packCreds(p *avax.Packer, creds []avax.Credential) {
	p.Int(uint32(len(creds)))
	for i := range creds {
		creds[i].Pack(p)
	}
}

// unsignedBytesOf returns the bytes that sign unsigned.
func unsignedBytesOf(unsigned Unsigned) []byte {
	p := avax.NewPacker(make([]byte, 0, 512))
	p.Short(avax.CodecVersion)
	p.Int(unsigned.TypeID())
	unsigned.pack(p)
	return p.Bytes()
}

// Sign signs unsigned with one list of keys per input, in the order of
// the inputs (then the imported inputs), and returns the signed
// transaction. Each key signs for one of its input's signature indices,
// in order.
func Sign(unsigned Unsigned, keys [][]*avax.PrivateKey) *Tx {
	hash := sha256.Sum256(unsignedBytesOf(unsigned))
	creds := make([]avax.Credential, len(keys))
	for i, ks := range keys {
		creds[i].Sigs = make([][avax.SignatureLen]byte, len(ks))
		for j, k := range ks {
			creds[i].Sigs[j] = k.SignHash(hash[:])
		}
	}
	return New(unsigned, creds)
}

// Parse reads a signed transaction: the codec version, the unsigned
// transaction and the credentials, with nothing after them.
func Parse(b []byte) (*Tx, error) {
	if len(b) > maxTxSize {
		return nil, fmt.Errorf("parse tx: %d bytes, more than the %d allowed", len(b), maxTxSize)
	}
	u := avax.NewUnpacker(b)
	u.Version()
	t := unpackTx(u)
	if err := u.Done(); err != nil {
		return nil, fmt.Errorf("parse tx: %w", err)
	}
	t.initialize()
	if !bytes.Equal(t.bytes, b) {
		return nil, fmt.Errorf("parse tx: the bytes are not in the codec's one encoding")
	}
	return t, nil
}

// unpackTx reads a transaction without its codec version.
func unpackTx(u *avax.Unpacker) *Tx {
	t := &Tx{}
	switch typ := u.TypeID(); {
	case u.Err() != nil:
		return t
	case typ == TypeBaseTx:
		tx := &BaseTx{}
		tx.unpack(u)
		t.Unsigned = tx
	case typ == TypeCreateAssetTx:
		tx := &CreateAssetTx{}
		tx.unpack(u)
		t.Unsigned = tx
	case typ == TypeImportTx:
		tx := &ImportTx{}
		tx.unpack(u)
		t.Unsigned = tx
	case typ == TypeExportTx:
		tx := &ExportTx{}
		tx.unpack(u)
		t.Unsigned = tx
	case typ == typeOperationTx:
		u.Failf("operation transactions (type %d) are not supported", typ)
		return t
	default:
		u.Failf("unknown transaction type ID %d", typ)
		return t
	}
	n := u.SliceLen(4+4, "credentials")
	t.Creds = make([]avax.Credential, n)
	for i := range t.Creds {
		t.Creds[i] = avax.UnpackCredential(u)
	}
	return t
}

// PackInBlock packs the transaction as a block holds it: without the
// codec version.
func (t *Tx) PackInBlock(p *avax.Packer) {
	p.Fixed(t.bytes[2:])
}

// UnpackInBlock reads a transaction as a block holds it.
func UnpackInBlock(u *avax.Unpacker) *Tx {
	start := u.Offset()
	t := unpackTx(u)
	if u.Err() != nil {
		return nil
	}
	t.initialize()
	if got := len(t.bytes) - 2; got != u.Offset()-start {
		u.Failf("transaction re-encodes to %d bytes, read %d", got, u.Offset()-start)
	}
	return t
}
