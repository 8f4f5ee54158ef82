package xvm

import (
	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/txjson"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The JSON forms of transactions and blocks (getTx and getBlock with
// encoding json), in avalanchego's shapes.
type (
	txJSON         = txjson.Tx[credentialJSON]
	credentialJSON struct {
		FxID       ids.ID         `json:"fxID"`
		Credential signaturesJSON `json:"credential"`
	}
	signaturesJSON struct {
		Signatures []string `json:"signatures"`
	}
	createAssetTxJSON struct {
		txjson.BaseTx
		Name          string             `json:"name"`
		Symbol        string             `json:"symbol"`
		Denomination  byte               `json:"denomination"`
		InitialStates []initialStateJSON `json:"initialStates"`
	}
	initialStateJSON struct {
		FxIndex uint32 `json:"fxIndex"`
		FxID    ids.ID `json:"fxID"`
		// Outputs are txjson.OwnedOut and txjson.MintOut.
		Outputs []any `json:"outputs"`
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
		out.Credentials[i] = credentialJSON{FxID: txjson.SecpFxID, Credential: signaturesJSON{Signatures: txjson.Signatures(c)}}
	}
	base := vm.baseJSON(t.Unsigned.Base())
	switch u := t.Unsigned.(type) {
	case *txs.ImportTx:
		out.Unsigned = txjson.ImportTx{BaseTx: base, SourceChain: u.SourceChain, ImportedInputs: txjson.Inputs(u.ImportedIns)}
	case *txs.ExportTx:
		out.Unsigned = txjson.ExportTx{BaseTx: base, DestinationChain: u.DestinationChain, ExportedOutputs: txjson.Outputs(u.ExportedOuts, vm.FormatAddress)}
	case *txs.CreateAssetTx:
		states := make([]initialStateJSON, len(u.States))
		for i, s := range u.States {
			states[i] = initialStateJSON{FxIndex: s.FxIndex, FxID: txjson.SecpFxID, Outputs: make([]any, len(s.Outs))}
			for j, o := range s.Outs {
				if o.Mint != nil {
					states[i].Outputs[j] = txjson.Mint(o.Mint, vm.FormatAddress)
				} else {
					states[i].Outputs[j] = txjson.Owned(&o.Out, vm.FormatAddress)
				}
			}
		}
		out.Unsigned = createAssetTxJSON{BaseTx: base, Name: u.Name, Symbol: u.Symbol, Denomination: u.Denomination, InitialStates: states}
	default:
		out.Unsigned = base
	}
	return out
}

func (vm *VM) baseJSON(b *txs.BaseTx) txjson.BaseTx {
	return txjson.Base((*avax.BaseTx)(b), vm.FormatAddress)
}

// blockJSON writes a block; its Merkle root is unused, the empty ID.
func (vm *VM) blockJSON(b *blocks.Block) blockJSON {
	out := blockJSON{ParentID: b.Parent, Height: b.Height, Time: b.Time, ID: b.ID(), Txs: make([]txJSON, len(b.Txs))}
	for i, t := range b.Txs {
		out.Txs[i] = vm.txJSON(t)
	}
	return out
}
