package xvm

import (
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// genesis is an X-Chain's genesis (the chain's `genesis` in the node
// config): its assets. The first asset pays the fees.
type genesis struct {
	Assets []genesisAsset `json:"assets"`
	// Timestamp is the time of the chain's first block (height 0) when it
	// has no vertex phase, in unix seconds.
	Timestamp jsonrpc.Uint64 `json:"timestamp"`
}

// genesisAsset defines an asset and who holds it at genesis.
type genesisAsset struct {
	// Alias names the asset in the API ("AVAX") besides its ID.
	Alias string `json:"alias"`
	// ID, when set, is the asset's ID (CB58), used instead of the ID of
	// its creating transaction, so that an asset can carry the ID clients
	// know (avalanchego's AVAX on its local network).
	ID           string `json:"id"`
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Denomination uint8  `json:"denomination"`
	// Memo is hex ("0x...") put in the asset's creating transaction.
	Memo         string         `json:"memo"`
	InitialState genesisHolders `json:"initialState"`
}

// genesisHolders lists the holders of a fixed-cap asset.
type genesisHolders struct {
	FixedCap []genesisHolder `json:"fixedCap"`
}

// genesisHolder is an amount held by an address ("X-local1...", or
// "local1..." without the chain).
type genesisHolder struct {
	Amount  jsonrpc.Uint64 `json:"amount"`
	Address string         `json:"address"`
}

// asset is an asset as the chain knows it: its creating transaction,
// whose ID is the asset ID unless the genesis names one. A genesis asset
// has an alias; one a CreateAssetTx made has none.
type asset struct {
	alias string
	id    ids.ID
	tx    *txs.Tx
	def   *txs.CreateAssetTx
}

// ID is the asset's ID, also the transaction ID of its genesis UTXOs.
func (a *asset) ID() ids.ID { return a.id }

// parseGenesis reads the genesis and builds each asset's CreateAssetTx as
// avalanchego builds genesis assets: network ID, an empty blockchain ID,
// the memo, and one secp256k1fx initial state whose outputs (one per
// holder, threshold 1) are sorted.
func parseGenesis(raw []byte, networkID uint32) (genesis, []asset, error) {
	var g genesis
	if err := utxovm.DecodeGenesis(VMName, raw, &g); err != nil {
		return genesis{}, nil, err
	}
	if len(g.Assets) == 0 {
		return genesis{}, nil, fmt.Errorf("xvm genesis: no assets (the first pays the fees)")
	}
	hrp := avax.HRP(networkID)
	seen := map[string]bool{}
	seenID := map[ids.ID]bool{}
	var out []asset
	for i, a := range g.Assets {
		where := fmt.Sprintf("xvm genesis: assets[%d]", i)
		if a.Alias == "" || a.Name == "" || a.Symbol == "" {
			return genesis{}, nil, fmt.Errorf("%s: alias, name and symbol are required", where)
		}
		if seen[a.Alias] {
			return genesis{}, nil, fmt.Errorf("%s: alias %q used twice", where, a.Alias)
		}
		seen[a.Alias] = true
		memo, err := decodeHexOrEmpty(a.Memo)
		if err != nil {
			return genesis{}, nil, fmt.Errorf("%s: memo: %w", where, err)
		}
		state := txs.InitialState{FxIndex: 0}
		for j, h := range a.InitialState.FixedCap {
			addr, err := utxovm.GenesisAddress(h.Address, hrp)
			if err != nil {
				return genesis{}, nil, fmt.Errorf("%s: fixedCap[%d]: %w", where, j, err)
			}
			if h.Amount == 0 {
				return genesis{}, nil, fmt.Errorf("%s: fixedCap[%d]: amount must be positive", where, j)
			}
			state.Outs = append(state.Outs, txs.StateOutput{Out: avax.TransferOutput{
				Amt:          uint64(h.Amount),
				OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{addr}},
			}})
		}
		txs.SortState(state.Outs)
		def := &txs.CreateAssetTx{
			BaseTx:       txs.BaseTx{NetworkID: networkID, Memo: memo},
			Name:         a.Name,
			Symbol:       a.Symbol,
			Denomination: a.Denomination,
		}
		if len(state.Outs) > 0 {
			def.States = []txs.InitialState{state}
		}
		tx := txs.New(def, nil)
		id := tx.ID()
		if a.ID != "" {
			if id, err = ids.FromString(a.ID); err != nil {
				return genesis{}, nil, fmt.Errorf("%s: id %q: %w", where, a.ID, err)
			}
			if seenID[id] {
				return genesis{}, nil, fmt.Errorf("%s: id %s used twice", where, id)
			}
		}
		seenID[id] = true
		out = append(out, asset{alias: a.Alias, id: id, tx: tx, def: def})
	}
	return g, out, nil
}

// genesisUTXOs returns the UTXOs an asset's creating transaction makes:
// one per initial output, numbered from 0 across the states.
func genesisUTXOs(a asset) []avax.UTXO { return a.def.UTXOs(a.ID(), a.ID()) }

// decodeHexOrEmpty reads "0x..." hex; "" is no bytes.
func decodeHexOrEmpty(s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	return avax.DecodePrefixedHex(s)
}
