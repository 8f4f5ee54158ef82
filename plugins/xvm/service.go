package xvm

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// methodPrefixes are the names the API answers under: avalanchego's avm
// names, and the chain-native prefixes (docs/api/jsonrpc.md, "Names").
var methodPrefixes = []string{"avm.", "native.", "avax."}

// newServer returns the JSON-RPC server of the API (docs/xvm.md).
func (vm *VM) newServer() *jsonrpc.Server {
	return vm.NewServer(methodPrefixes, map[string]jsonrpc.Handler{
		"getBalance":          jsonrpc.Method(vm.getBalance),
		"getAllBalances":      jsonrpc.Method(vm.getAllBalances),
		"getAssetDescription": jsonrpc.Method(vm.getAssetDescription),
		"getTxFee":            jsonrpc.Method(vm.getTxFee),
	})
}

// lookupAsset reads an asset param: an alias ("AVAX") or an asset ID (a
// genesis asset's or a CreateAssetTx's).
func (vm *VM) lookupAsset(ctx context.Context, param, s string) (*asset, error) {
	if id, ok := vm.assetByAlias[s]; ok {
		return vm.assetByID[id], nil
	}
	if id, err := ids.FromString(s); err == nil {
		a, ok, err := vm.asset(ctx, id)
		if err != nil {
			return nil, err
		}
		if ok {
			return a, nil
		}
	}
	if s == "" {
		return nil, jsonrpc.InvalidParams("%q is required", param)
	}
	return nil, jsonrpc.InvalidParams("%q: no asset %q on this chain", param, s)
}

type getBalanceArgs struct {
	Address        string `json:"address"`
	AssetID        string `json:"assetID"`
	IncludePartial bool   `json:"includePartial"`
}

type getBalanceReply struct {
	Balance jsonrpc.Uint64   `json:"balance"`
	UTXOIDs []utxovm.UTXORef `json:"utxoIDs"`
}

// counts reports whether a UTXO counts toward addr's balance: a transfer
// output (a mint output holds no amount), and without includePartial
// only an unlocked one owned by addr alone, as in avalanchego.
func (vm *VM) counts(u avax.UTXO, includePartial bool) bool {
	return u.Mint == nil && (includePartial || (len(u.Out.Addrs) == 1 && u.Out.Locktime <= uint64(vm.now().Unix())))
}

// getBalance returns the balance of an asset held by an address, and the
// UTXOs that make it.
func (vm *VM) getBalance(ctx context.Context, a getBalanceArgs) (getBalanceReply, error) {
	addr, err := vm.APIChain().ParseAddress(ctx, "address", a.Address)
	if err != nil {
		return getBalanceReply{}, err
	}
	as, err := vm.lookupAsset(ctx, "assetID", a.AssetID)
	if err != nil {
		return getBalanceReply{}, err
	}
	out := getBalanceReply{UTXOIDs: []utxovm.UTXORef{}}
	err = vm.Store.OwnedUTXOs(ctx, addr, func(u avax.UTXO) error {
		if u.AssetID != as.ID() || !vm.counts(u, a.IncludePartial) {
			return nil
		}
		if uint64(out.Balance) > ^uint64(0)-u.Out.Amt {
			return errors.New("balance overflows")
		}
		out.Balance += jsonrpc.Uint64(u.Out.Amt)
		out.UTXOIDs = append(out.UTXOIDs, utxovm.UTXORef{TxID: u.TxID, OutputIndex: u.OutputIndex})
		return nil
	})
	return out, err
}

type getAllBalancesArgs struct {
	Address        string `json:"address"`
	IncludePartial bool   `json:"includePartial"`
}

type balanceJSON struct {
	Asset   string         `json:"asset"`
	Balance jsonrpc.Uint64 `json:"balance"`
}

type getAllBalancesReply struct {
	Balances []balanceJSON `json:"balances"`
}

// getAllBalances returns the address's balance of each asset it holds,
// named by the asset's alias, or by its ID when it has none (an asset a
// CreateAssetTx made): the genesis assets first, in their order, then the
// others by ID.
func (vm *VM) getAllBalances(ctx context.Context, a getAllBalancesArgs) (getAllBalancesReply, error) {
	addr, err := vm.APIChain().ParseAddress(ctx, "address", a.Address)
	if err != nil {
		return getAllBalancesReply{}, err
	}
	sums := map[ids.ID]uint64{}
	err = vm.Store.OwnedUTXOs(ctx, addr, func(u avax.UTXO) error {
		if vm.counts(u, a.IncludePartial) {
			sums[u.AssetID] += u.Out.Amt
		}
		return nil
	})
	if err != nil {
		return getAllBalancesReply{}, err
	}
	out := getAllBalancesReply{Balances: []balanceJSON{}}
	for _, as := range vm.assets {
		if v, ok := sums[as.ID()]; ok {
			out.Balances = append(out.Balances, balanceJSON{Asset: as.alias, Balance: jsonrpc.Uint64(v)})
			delete(sums, as.ID())
		}
	}
	for _, id := range slices.SortedFunc(maps.Keys(sums), ids.ID.Compare) {
		out.Balances = append(out.Balances, balanceJSON{Asset: id.String(), Balance: jsonrpc.Uint64(sums[id])})
	}
	return out, nil
}

type getAssetDescriptionArgs struct {
	AssetID string `json:"assetID"`
}

type getAssetDescriptionReply struct {
	AssetID      ids.ID         `json:"assetID"`
	Name         string         `json:"name"`
	Symbol       string         `json:"symbol"`
	Denomination jsonrpc.Uint64 `json:"denomination"`
}

// getAssetDescription describes an asset, by alias or ID.
func (vm *VM) getAssetDescription(ctx context.Context, a getAssetDescriptionArgs) (getAssetDescriptionReply, error) {
	as, err := vm.lookupAsset(ctx, "assetID", a.AssetID)
	if err != nil {
		return getAssetDescriptionReply{}, err
	}
	return getAssetDescriptionReply{AssetID: as.ID(), Name: as.def.Name, Symbol: as.def.Symbol, Denomination: jsonrpc.Uint64(as.def.Denomination)}, nil
}

// errNotLinearized is the answer of the block methods during the vertex
// phase, avalanchego's text.
var errNotLinearized = errors.New("chain is not linearized")

// lastHeight is the height of the last accepted block; there is none in
// the vertex phase.
func (vm *VM) lastHeight() (uint64, error) {
	m := vm.currentMeta()
	if !m.Linearized {
		return 0, errNotLinearized
	}
	return m.Height, nil
}

type getTxFeeReply struct {
	TxFee            jsonrpc.Uint64 `json:"txFee"`
	CreateAssetTxFee jsonrpc.Uint64 `json:"createAssetTxFee"`
}

// getTxFee returns the fees.
func (vm *VM) getTxFee(context.Context, struct{}) (getTxFeeReply, error) {
	return getTxFeeReply{TxFee: vm.cfg.TxFee, CreateAssetTxFee: vm.cfg.CreateAssetTxFee}, nil
}

// currentMeta returns a copy of the chain's counters and heads.
func (vm *VM) currentMeta() meta {
	vm.Mu.Lock()
	defer vm.Mu.Unlock()
	return vm.meta.clone()
}
