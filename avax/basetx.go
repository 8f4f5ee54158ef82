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
