package avax

import "github.com/chainhost/chainhost/sdk/ids"

// BaseTx is the fields every X- and P-Chain transaction starts with, in
// the codec's order. Each chain defines its own BaseTx on it (type BaseTx
// avax.BaseTx), with its type ID and rules.
type BaseTx struct {
	NetworkID    uint32
	BlockchainID ids.ID
	Outs         []TransferableOutput
	Ins          []TransferableInput
	Memo         []byte
}

// Pack packs the fields.
func (t *BaseTx) Pack(p *Packer) {
	p.Int(t.NetworkID)
	p.ID(t.BlockchainID)
	PackOutputs(p, t.Outs)
	PackInputs(p, t.Ins)
	p.VarBytes(t.Memo)
}

// Unpack reads what Pack wrote.
func (t *BaseTx) Unpack(u *Unpacker) {
	t.NetworkID = u.Int()
	t.BlockchainID = u.ID()
	t.Outs = UnpackOutputs(u, "outputs")
	t.Ins = UnpackInputs(u, "inputs")
	t.Memo = u.VarBytes()
}

// Import is what an X- or P-Chain ImportTx adds to its base fields, in the
// codec's order: the chain that exported the UTXOs it spends through shared
// memory, and its inputs spending them.
type Import struct {
	SourceChain ids.ID
	ImportedIns []TransferableInput
}

// Pack packs the fields.
func (f *Import) Pack(p *Packer) {
	p.ID(f.SourceChain)
	PackInputs(p, f.ImportedIns)
}

// Unpack reads what Pack wrote.
func (f *Import) Unpack(u *Unpacker) {
	f.SourceChain = u.ID()
	f.ImportedIns = UnpackInputs(u, "imported inputs")
}

// Export is what an X- or P-Chain ExportTx adds to its base fields, in the
// codec's order: the chain it sends outputs to through shared memory, and
// those outputs, numbered after the base outputs.
type Export struct {
	DestinationChain ids.ID
	ExportedOuts     []TransferableOutput
}

// Pack packs the fields.
func (f *Export) Pack(p *Packer) {
	p.ID(f.DestinationChain)
	PackOutputs(p, f.ExportedOuts)
}

// Unpack reads what Pack wrote.
func (f *Export) Unpack(u *Unpacker) {
	f.DestinationChain = u.ID()
	f.ExportedOuts = UnpackOutputs(u, "exported outputs")
}
