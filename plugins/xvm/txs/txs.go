// Package txs holds the X-Chain's transactions in avalanchego's codec
// (docs/xvm.md): BaseTx, CreateAssetTx (genesis assets), ImportTx and
// ExportTx with secp256k1fx inputs, outputs and credentials, signed as
// avalanchego signs them, with their structural checks.
package txs

import (
	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/plugins/xvm/signedtx"
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

// Unsigned is an unsigned transaction: *BaseTx, *CreateAssetTx, *ImportTx
// or *ExportTx.
type Unsigned interface {
	signedtx.Unsigned
	// Base returns the common fields.
	Base() *BaseTx
	// NumInputs is the number of inputs that need a credential.
	NumInputs() int
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

func (t *BaseTx) Pack(p *avax.Packer) {
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

func (t *CreateAssetTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
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

func (t *ImportTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
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

func (t *ExportTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
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
type Tx = signedtx.Tx[Unsigned]

// New returns the signed transaction of unsigned and creds, with its bytes
// and ID.
func New(unsigned Unsigned, creds []avax.Credential) *Tx { return signedtx.New(unsigned, creds) }

// Sign signs unsigned with one list of keys per input, in the order of
// the inputs (then the imported inputs), and returns the signed
// transaction. Each key signs for one of its input's signature indices,
// in order.
func Sign(unsigned Unsigned, keys [][]*avax.PrivateKey) *Tx { return signedtx.Sign(unsigned, keys) }

// codec reads the X-Chain's signed transactions.
var codec = signedtx.NewCodec("tx", unpackUnsigned)

// Parse reads a signed transaction: the codec version, the unsigned
// transaction and the credentials, with nothing after them.
func Parse(b []byte) (*Tx, error) { return codec.Parse(b) }

// UnpackInBlock reads a transaction as a block holds it.
func UnpackInBlock(u *avax.Unpacker) *Tx { return codec.UnpackInBlock(u) }

// unpackUnsigned reads an unsigned transaction, its type ID first.
func unpackUnsigned(u *avax.Unpacker) Unsigned {
	switch typ := u.TypeID(); {
	case u.Err() != nil:
		return nil
	case typ == TypeBaseTx:
		tx := &BaseTx{}
		tx.unpack(u)
		return tx
	case typ == TypeCreateAssetTx:
		tx := &CreateAssetTx{}
		tx.unpack(u)
		return tx
	case typ == TypeImportTx:
		tx := &ImportTx{}
		tx.unpack(u)
		return tx
	case typ == TypeExportTx:
		tx := &ExportTx{}
		tx.unpack(u)
		return tx
	case typ == typeOperationTx:
		u.Failf("operation transactions (type %d) are not supported", typ)
		return nil
	default:
		u.Failf("unknown transaction type ID %d", typ)
		return nil
	}
}
