// Package txjson holds the JSON forms, in avalanchego's shapes, of what
// the X- and P-Chains' transactions share (getTx and getBlock with
// encoding json; docs/xvm.md, docs/pchain.md): the base transaction's
// fields, imports and exports, the secp256k1fx outputs (transfer and mint)
// and inputs, and the signatures.
package txjson

import (
	"encoding/hex"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// SecpFxID is the ID of the secp256k1fx feature extension, which
// avalanchego's JSON names beside each output and input.
var SecpFxID = func() ids.ID {
	id, err := ids.FromName("secp256k1fx")
	if err != nil {
		panic(err)
	}
	return id
}()

// HexBytes is avalanchego's JSONByteSlice: "0x" and hex digits.
type HexBytes []byte

// MarshalText writes "0x" and the hex digits.
func (b HexBytes) MarshalText() ([]byte, error) { return []byte("0x" + hex.EncodeToString(b)), nil }

// UnmarshalText reads "0x" and hex digits.
func (b *HexBytes) UnmarshalText(text []byte) error {
	v, err := avax.DecodePrefixedHex(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// The JSON forms.
type (
	// Tx is a signed transaction, with the chain's form C of a credential.
	Tx[C any] struct {
		Unsigned    any    `json:"unsignedTx"`
		Credentials []C    `json:"credentials"`
		ID          ids.ID `json:"id"`
	}
	// BaseTx is the fields every transaction starts with.
	BaseTx struct {
		NetworkID    uint32   `json:"networkID"`
		BlockchainID ids.ID   `json:"blockchainID"`
		Outputs      []Output `json:"outputs"`
		Inputs       []Input  `json:"inputs"`
		Memo         HexBytes `json:"memo"`
	}
	// ImportTx is an import from another chain of the node.
	ImportTx struct {
		BaseTx
		SourceChain    ids.ID  `json:"sourceChain"`
		ImportedInputs []Input `json:"importedInputs"`
	}
	// ExportTx is an export to another chain of the node.
	ExportTx struct {
		BaseTx
		DestinationChain ids.ID   `json:"destinationChain"`
		ExportedOutputs  []Output `json:"exportedOutputs"`
	}
	// Output is a TransferableOutput.
	Output struct {
		AssetID ids.ID   `json:"assetID"`
		FxID    ids.ID   `json:"fxID"`
		Output  OwnedOut `json:"output"`
	}
	// OwnedOut is a secp256k1fx TransferOutput.
	OwnedOut struct {
		Addresses []string `json:"addresses"`
		Amount    uint64   `json:"amount"`
		Locktime  uint64   `json:"locktime"`
		Threshold uint32   `json:"threshold"`
	}
	// MintOut is a secp256k1fx MintOutput (an X-Chain asset's).
	MintOut struct {
		Addresses []string `json:"addresses"`
		Locktime  uint64   `json:"locktime"`
		Threshold uint32   `json:"threshold"`
	}
	// Input is a TransferableInput.
	Input struct {
		TxID        ids.ID        `json:"txID"`
		OutputIndex uint32        `json:"outputIndex"`
		AssetID     ids.ID        `json:"assetID"`
		FxID        ids.ID        `json:"fxID"`
		Input       TransferInput `json:"input"`
	}
	// TransferInput is a secp256k1fx TransferInput.
	TransferInput struct {
		Amount           uint64   `json:"amount"`
		SignatureIndices []uint32 `json:"signatureIndices"`
	}
)

// Base returns the JSON of a base transaction's fields; format writes an
// address as the chain shows it.
func Base(b *avax.BaseTx, format func(avax.ShortID) string) BaseTx {
	return BaseTx{NetworkID: b.NetworkID, BlockchainID: b.BlockchainID, Outputs: Outputs(b.Outs, format), Inputs: Inputs(b.Ins), Memo: b.Memo}
}

// Outputs returns the JSON of outputs.
func Outputs(outs []avax.TransferableOutput, format func(avax.ShortID) string) []Output {
	list := make([]Output, len(outs))
	for i := range outs {
		list[i] = Output{AssetID: outs[i].AssetID, FxID: SecpFxID, Output: Owned(&outs[i].Out, format)}
	}
	return list
}

// Owned returns the JSON of a secp256k1fx output.
func Owned(o *avax.TransferOutput, format func(avax.ShortID) string) OwnedOut {
	addrs := make([]string, len(o.Addrs))
	for i, a := range o.Addrs {
		addrs[i] = format(a)
	}
	return OwnedOut{Addresses: addrs, Amount: o.Amt, Locktime: o.Locktime, Threshold: o.Threshold}
}

// Mint returns the JSON of a secp256k1fx mint output.
func Mint(o *avax.MintOutput, format func(avax.ShortID) string) MintOut {
	w := Owned(&avax.TransferOutput{OutputOwners: o.OutputOwners}, format)
	return MintOut{Addresses: w.Addresses, Locktime: w.Locktime, Threshold: w.Threshold}
}

// Inputs returns the JSON of inputs; no signature indices are [].
func Inputs(ins []avax.TransferableInput) []Input {
	list := make([]Input, len(ins))
	for i, in := range ins {
		idx := in.In.SigIndices
		if idx == nil {
			idx = []uint32{}
		}
		list[i] = Input{TxID: in.TxID, OutputIndex: in.OutputIndex, AssetID: in.AssetID, FxID: SecpFxID,
			Input: TransferInput{Amount: in.In.Amt, SignatureIndices: idx}}
	}
	return list
}

// Signatures returns a credential's signatures, each "0x" and hex digits.
func Signatures(c avax.Credential) []string {
	sigs := make([]string, len(c.Sigs))
	for j := range c.Sigs {
		sigs[j] = "0x" + hex.EncodeToString(c.Sigs[j][:])
	}
	return sigs
}
