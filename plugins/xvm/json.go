package xvm

import (
	"encoding/hex"

	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// secpFxID is the ID of the secp256k1fx feature extension, which
// avalanchego's JSON names beside each output, input and credential.
var secpFxID = mustName("secp256k1fx")

func mustName(n string) ids.ID {
	id, err := ids.FromName(n)
	if err != nil {
		panic(err)
	}
	return id
}

// The JSON forms of transactions and blocks (getTx and getBlock with
// encoding json), in avalanchego's shapes.
type (
	txJSON struct {
		Unsigned    any              `json:"unsignedTx"`
		Credentials []credentialJSON `json:"credentials"`
		ID          ids.ID           `json:"id"`
	}
	credentialJSON struct {
		FxID       ids.ID         `json:"fxID"`
		Credential signaturesJSON `json:"credential"`
	}
	signaturesJSON struct {
		Signatures []string `json:"signatures"`
	}
	baseTxJSON struct {
		NetworkID    uint32       `json:"networkID"`
		BlockchainID ids.ID       `json:"blockchainID"`
		Outputs      []outputJSON `json:"outputs"`
		Inputs       []inputJSON  `json:"inputs"`
		Memo         string       `json:"memo"`
	}
	importTxJSON struct {
		baseTxJSON
		SourceChain    ids.ID      `json:"sourceChain"`
		ImportedInputs []inputJSON `json:"importedInputs"`
	}
	exportTxJSON struct {
		baseTxJSON
		DestinationChain ids.ID       `json:"destinationChain"`
		ExportedOutputs  []outputJSON `json:"exportedOutputs"`
	}
	createAssetTxJSON struct {
		baseTxJSON
		Name          string             `json:"name"`
		Symbol        string             `json:"symbol"`
		Denomination  byte               `json:"denomination"`
		InitialStates []initialStateJSON `json:"initialStates"`
	}
	initialStateJSON struct {
		FxIndex uint32         `json:"fxIndex"`
		FxID    ids.ID         `json:"fxID"`
		Outputs []ownedOutJSON `json:"outputs"`
	}
	outputJSON struct {
		AssetID ids.ID       `json:"assetID"`
		FxID    ids.ID       `json:"fxID"`
		Output  ownedOutJSON `json:"output"`
	}
	ownedOutJSON struct {
		Addresses []string `json:"addresses"`
		Amount    uint64   `json:"amount"`
		Locktime  uint64   `json:"locktime"`
		Threshold uint32   `json:"threshold"`
	}
	inputJSON struct {
		TxID        ids.ID        `json:"txID"`
		OutputIndex uint32        `json:"outputIndex"`
		AssetID     ids.ID        `json:"assetID"`
		FxID        ids.ID        `json:"fxID"`
		Input       transferInput `json:"input"`
	}
	transferInput struct {
		Amount           uint64   `json:"amount"`
		SignatureIndices []uint32 `json:"signatureIndices"`
	}
	blockJSON struct {
		ParentID   ids.ID   `json:"parentID"`
		Height     uint64   `json:"height"`
		Time       uint64   `json:"time"`
		MerkleRoot ids.ID   `json:"merkleRoot"`
		Txs        []txJSON `json:"txs"`
		ID         ids.ID   `json:"id"`
	}
)

func (vm *VM) txJSON(t *txs.Tx) txJSON {
	out := txJSON{ID: t.ID(), Credentials: make([]credentialJSON, len(t.Creds))}
	for i, c := range t.Creds {
		sigs := make([]string, len(c.Sigs))
		for j := range c.Sigs {
			sigs[j] = "0x" + hex.EncodeToString(c.Sigs[j][:])
		}
		out.Credentials[i] = credentialJSON{FxID: secpFxID, Credential: signaturesJSON{Signatures: sigs}}
	}
	base := vm.baseJSON(t.Unsigned.Base())
	switch u := t.Unsigned.(type) {
	case *txs.ImportTx:
		out.Unsigned = importTxJSON{baseTxJSON: base, SourceChain: u.SourceChain, ImportedInputs: inputsJSON(u.ImportedIns)}
	case *txs.ExportTx:
		out.Unsigned = exportTxJSON{baseTxJSON: base, DestinationChain: u.DestinationChain, ExportedOutputs: vm.outputsJSON(u.ExportedOuts)}
	case *txs.CreateAssetTx:
		states := make([]initialStateJSON, len(u.States))
		for i, s := range u.States {
			states[i] = initialStateJSON{FxIndex: s.FxIndex, FxID: secpFxID, Outputs: make([]ownedOutJSON, len(s.Outs))}
			for j := range s.Outs {
				states[i].Outputs[j] = vm.ownedJSON(&s.Outs[j])
			}
		}
		out.Unsigned = createAssetTxJSON{baseTxJSON: base, Name: u.Name, Symbol: u.Symbol, Denomination: u.Denomination, InitialStates: states}
	default:
		out.Unsigned = base
	}
	return out
}

func (vm *VM) baseJSON(b *txs.BaseTx) baseTxJSON {
	return baseTxJSON{
		NetworkID:    b.NetworkID,
		BlockchainID: b.BlockchainID,
		Outputs:      vm.outputsJSON(b.Outs),
		Inputs:       inputsJSON(b.Ins),
		Memo:         "0x" + hex.EncodeToString(b.Memo),
	}
}

func (vm *VM) outputsJSON(outs []avax.TransferableOutput) []outputJSON {
	list := make([]outputJSON, len(outs))
	for i := range outs {
		list[i] = outputJSON{AssetID: outs[i].AssetID, FxID: secpFxID, Output: vm.ownedJSON(&outs[i].Out)}
	}
	return list
}

func (vm *VM) ownedJSON(o *avax.TransferOutput) ownedOutJSON {
	addrs := make([]string, len(o.Addrs))
	for i, a := range o.Addrs {
		addrs[i] = vm.formatAddress(a)
	}
	return ownedOutJSON{Addresses: addrs, Amount: o.Amt, Locktime: o.Locktime, Threshold: o.Threshold}
}

func inputsJSON(ins []avax.TransferableInput) []inputJSON {
	list := make([]inputJSON, len(ins))
	for i, in := range ins {
		idx := in.In.SigIndices
		if idx == nil {
			idx = []uint32{}
		}
		list[i] = inputJSON{TxID: in.TxID, OutputIndex: in.OutputIndex, AssetID: in.AssetID, FxID: secpFxID,
			Input: transferInput{Amount: in.In.Amt, SignatureIndices: idx}}
	}
	return list
}

func (vm *VM) blockJSON(b *blocks.Block) blockJSON {
	out := blockJSON{ParentID: b.Parent, Height: b.Height, Time: b.Time, MerkleRoot: b.Root, ID: b.ID(), Txs: make([]txJSON, len(b.Txs))}
	for i, t := range b.Txs {
		out.Txs[i] = vm.txJSON(t)
	}
	return out
}

// formatAddress returns an address as this chain shows it:
// "<alias>-<hrp>1...".
func (vm *VM) formatAddress(a avax.ShortID) string {
	s, err := avax.FormatAddress(vm.env.Name, vm.hrp, a)
	if err != nil {
		return a.String()
	}
	return s
}
