// Package txs holds the X-Chain's transactions in avalanchego's codec
// (docs/xvm.md): BaseTx, CreateAssetTx, ImportTx and
// ExportTx with secp256k1fx inputs, outputs and credentials, signed as
// avalanchego signs them, with their structural checks.
package txs

import (
	"bytes"
	"slices"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
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
	signedtx.Decodable
	// Base returns the common fields.
	Base() *BaseTx
	// NumInputs is the number of inputs that need a credential.
	NumInputs() int
}

// BaseTx is a transfer of assets on the chain, and the fields every
// transaction starts with.
type BaseTx avax.BaseTx

// TypeID is TypeBaseTx.
func (*BaseTx) TypeID() uint32 { return TypeBaseTx }

// Base returns t.
func (t *BaseTx) Base() *BaseTx { return t }

// NumInputs is the number of inputs.
func (t *BaseTx) NumInputs() int { return len(t.Ins) }

// Pack packs the fields after the type ID.
func (t *BaseTx) Pack(p *avax.Packer) { (*avax.BaseTx)(t).Pack(p) }

// Unpack reads what Pack wrote.
func (t *BaseTx) Unpack(u *avax.Unpacker) { (*avax.BaseTx)(t).Unpack(u) }

// InitialState is a new asset's first outputs of one feature extension:
// FxIndex 0, the secp256k1fx, is the only one chainhost takes (1, the NFT
// fx, and 2, the property fx, are refused by Verify).
type InitialState struct {
	FxIndex uint32
	Outs    []StateOutput
}

// StateOutput is an output of an initial state: a TransferOutput (Out),
// or, when Mint is set, a MintOutput that lets its owners mint more of
// the asset.
type StateOutput struct {
	Out  avax.TransferOutput
	Mint *avax.MintOutput
}

// Pack packs the output's type ID and fields.
func (o *StateOutput) Pack(p *avax.Packer) { avax.PackOutput(p, &o.Out, o.Mint) }

// bytes returns the packed output, which orders an initial state.
func (o *StateOutput) bytes() []byte {
	p := avax.NewPacker(nil)
	o.Pack(p)
	return p.Bytes()
}

// SortState sorts an initial state's outputs by their packed bytes, as
// avalanchego requires them.
func SortState(outs []StateOutput) {
	slices.SortFunc(outs, func(a, b StateOutput) int { return bytes.Compare(a.bytes(), b.bytes()) })
}

// minStateOutputSize is the smallest packed StateOutput: a mint output's
// type ID, locktime, threshold and no addresses.
const minStateOutputSize = 4 + 8 + 4 + 4

// CreateAssetTx creates an asset, whose ID is the transaction's ID (a
// genesis asset's may be set by the genesis instead): a BaseTx that pays
// the asset creation fee, the asset's name, symbol and denomination, and
// its initial states, whose outputs become UTXOs numbered after the
// BaseTx's outputs.
type CreateAssetTx struct {
	BaseTx
	Name         string
	Symbol       string
	Denomination byte
	States       []InitialState
}

// TypeID is TypeCreateAssetTx.
func (*CreateAssetTx) TypeID() uint32 { return TypeCreateAssetTx }

// Pack packs the fields after the type ID.
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

// Unpack reads what Pack wrote.
func (t *CreateAssetTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Name = u.Str()
	t.Symbol = u.Str()
	t.Denomination = u.Byte()
	n := u.SliceLen(8, "initial states")
	t.States = make([]InitialState, n)
	for i := range t.States {
		t.States[i].FxIndex = u.Int()
		m := u.SliceLen(minStateOutputSize, "initial state outputs")
		t.States[i].Outs = make([]StateOutput, m)
		for j := range t.States[i].Outs {
			o := &t.States[i].Outs[j]
			o.Out, o.Mint = avax.UnpackOutput(u)
		}
	}
}

// UTXOs returns the UTXOs the initial states make, of asset (the
// transaction's ID, or a genesis asset's own), made by transaction txID:
// numbered after the BaseTx's outputs, across the states in order.
func (t *CreateAssetTx) UTXOs(txID, asset ids.ID) []avax.UTXO {
	var out []avax.UTXO
	index := uint32(len(t.Outs))
	for _, s := range t.States {
		for _, o := range s.Outs {
			out = append(out, avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: index}, AssetID: asset, Out: o.Out, Mint: o.Mint})
			index++
		}
	}
	return out
}

// ImportTx consumes UTXOs that SourceChain exported to this chain.
type ImportTx struct {
	BaseTx
	avax.Import
}

// TypeID is TypeImportTx.
func (*ImportTx) TypeID() uint32 { return TypeImportTx }

// NumInputs counts the inputs and the imported inputs.
func (t *ImportTx) NumInputs() int { return len(t.Ins) + len(t.ImportedIns) }

// Pack packs the fields after the type ID.
func (t *ImportTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	t.Import.Pack(p)
}

// Unpack reads what Pack wrote.
func (t *ImportTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Import.Unpack(u)
}

// ExportTx sends ExportedOuts to DestinationChain through shared memory.
type ExportTx struct {
	BaseTx
	avax.Export
}

// TypeID is TypeExportTx.
func (*ExportTx) TypeID() uint32 { return TypeExportTx }

// Pack packs the fields after the type ID.
func (t *ExportTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	t.Export.Pack(p)
}

// Unpack reads what Pack wrote.
func (t *ExportTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Export.Unpack(u)
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
var codec = signedtx.NewCodec("tx", signedtx.Types[Unsigned]{
	Noun: "transaction",
	New: map[uint32]func() Unsigned{
		TypeBaseTx:        func() Unsigned { return &BaseTx{} },
		TypeCreateAssetTx: func() Unsigned { return &CreateAssetTx{} },
		TypeImportTx:      func() Unsigned { return &ImportTx{} },
		TypeExportTx:      func() Unsigned { return &ExportTx{} },
	},
	Refused: map[uint32]string{typeOperationTx: "OperationTx (operation transactions: minting with a mint output, NFTs, properties)"},
}.Unpack)

// Parse reads a signed transaction: the codec version, the unsigned
// transaction and the credentials, with nothing after them.
func Parse(b []byte) (*Tx, error) { return codec.Parse(b) }

// UnpackInBlock reads a transaction as a block holds it.
func UnpackInBlock(u *avax.Unpacker) *Tx { return codec.UnpackInBlock(u) }
