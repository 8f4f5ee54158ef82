package atomicvm

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/txjson"
	"github.com/chainhost/chainhost/avax/utxoclient"
	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The JSON forms of atomic transactions (getAtomicTx and
// getBlockAtomicTxs with encoding json): coreth's field names, with the
// other chain's inputs and outputs in avalanchego's shapes (txjson), as
// avm.getTx writes them.
type (
	txJSON         = txjson.Tx[credentialJSON]
	credentialJSON struct {
		Signatures []string `json:"signatures"`
	}
	importTxJSON struct {
		NetworkID      uint32          `json:"networkID"`
		BlockchainID   ids.ID          `json:"blockchainID"`
		SourceChain    ids.ID          `json:"sourceChain"`
		ImportedInputs []txjson.Input  `json:"importedInputs"`
		Outputs        []evmOutputJSON `json:"outputs"`
	}
	exportTxJSON struct {
		NetworkID        uint32          `json:"networkID"`
		BlockchainID     ids.ID          `json:"blockchainID"`
		DestinationChain ids.ID          `json:"destinationChain"`
		Inputs           []evmInputJSON  `json:"inputs"`
		ExportedOutputs  []txjson.Output `json:"exportedOutputs"`
	}
	evmOutputJSON struct {
		Address common.Address `json:"address"`
		Amount  uint64         `json:"amount"`
		AssetID ids.ID         `json:"assetID"`
	}
	evmInputJSON struct {
		Address common.Address `json:"address"`
		Amount  uint64         `json:"amount"`
		AssetID ids.ID         `json:"assetID"`
		Nonce   uint64         `json:"nonce"`
	}
)

// txJSON writes a transaction; an export's outputs are owned on its
// destination chain, so their addresses carry that chain's alias.
func (a *VM) txJSON(ctx context.Context, t *atx.Tx) txJSON {
	out := txJSON{ID: t.ID(), Credentials: make([]credentialJSON, len(t.Creds))}
	for i, c := range t.Creds {
		out.Credentials[i] = credentialJSON{Signatures: txjson.Signatures(c)}
	}
	switch u := t.Unsigned.(type) {
	case *atx.ImportTx:
		outs := make([]evmOutputJSON, len(u.Outs))
		for i, o := range u.Outs {
			outs[i] = evmOutputJSON(o)
		}
		out.Unsigned = importTxJSON{NetworkID: u.NetworkID, BlockchainID: u.BlockchainID, SourceChain: u.SourceChain,
			ImportedInputs: txjson.Inputs(u.ImportedIns), Outputs: outs}
	case *atx.ExportTx:
		ins := make([]evmInputJSON, len(u.Ins))
		for i, in := range u.Ins {
			ins[i] = evmInputJSON(in)
		}
		alias := a.alias(ctx, u.DestinationChain)
		out.Unsigned = exportTxJSON{NetworkID: u.NetworkID, BlockchainID: u.BlockchainID, DestinationChain: u.DestinationChain,
			Inputs: ins, ExportedOutputs: txjson.Outputs(u.ExportedOuts, func(s avax.ShortID) string {
				return utxoclient.FormatAddress(alias, a.env.NetworkID, s)
			})}
	}
	return out
}

// alias returns a chain's primary alias, or its ID when the node does not
// know it.
func (a *VM) alias(ctx context.Context, chain ids.ID) string {
	if a.env.Host.Chains != nil {
		if info, err := a.env.Host.Chains.Resolve(ctx, chain.String()); err == nil && len(info.Aliases) > 0 {
			return info.Aliases[0]
		}
	}
	return chain.String()
}
