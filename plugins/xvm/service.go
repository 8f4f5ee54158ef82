package xvm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// methodPrefixes are the names the API answers under: avalanchego's avm
// names, and the chain-native prefixes (docs/api/jsonrpc.md, "Names").
var methodPrefixes = []string{"avm.", "native.", "avax."}

// newServer returns the JSON-RPC server of the API (docs/xvm.md).
func (vm *VM) newServer() *jsonrpc.Server {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	methods := map[string]jsonrpc.Handler{
		"issueTx":             jsonrpc.Method(vm.issueTx),
		"getTx":               jsonrpc.Method(vm.getTx),
		"getTxStatus":         jsonrpc.Method(vm.getTxStatus),
		"getUTXOs":            jsonrpc.Method(vm.getUTXOs),
		"getBalance":          jsonrpc.Method(vm.getBalance),
		"getAllBalances":      jsonrpc.Method(vm.getAllBalances),
		"getAssetDescription": jsonrpc.Method(vm.getAssetDescription),
		"getBlock":            jsonrpc.Method(vm.getBlock),
		"getBlockByHeight":    jsonrpc.Method(vm.getBlockByHeight),
		"getHeight":           jsonrpc.Method(vm.getHeight),
		"getTxFee":            jsonrpc.Method(vm.getTxFee),
	}
	for name, h := range methods {
		for _, p := range methodPrefixes {
			s.Register(p+name, h)
		}
	}
	return s
}

// issueTx verifies a signed transaction and adds it to the next block.
// It answers once the transaction is accepted (or after the configured
// issue-wait, with the ID of a transaction still processing).
func (vm *VM) issueTx(ctx context.Context, a utxoapi.IssueTxArgs) (utxoapi.TxIDReply, error) {
	raw, err := a.TxBytes()
	if err != nil {
		return utxoapi.TxIDReply{}, err
	}
	tx, err := txs.Parse(raw)
	if err != nil {
		return utxoapi.TxIDReply{}, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	return utxoapi.TxIDReply{TxID: tx.ID()}, vm.issue(ctx, tx)
}

// issue verifies tx, adds it to the mempool and waits for its acceptance.
func (vm *VM) issue(ctx context.Context, tx *txs.Tx) error {
	id := tx.ID()
	vm.mu.Lock()
	p, waiting := vm.pool.byID[id]
	if !waiting {
		_, accepted, err := vm.st.tx(ctx, id)
		if err != nil {
			vm.mu.Unlock()
			return err
		}
		if accepted {
			vm.mu.Unlock()
			return rejected(id, "it is accepted already")
		}
		if len(vm.pool.order) >= vm.cfg.MempoolSize {
			vm.mu.Unlock()
			return fmt.Errorf("the mempool is full (%d transactions); try again", vm.cfg.MempoolSize)
		}
		if p, err = vm.verifyLocked(ctx, tx); err != nil {
			vm.mu.Unlock()
			return err
		}
		vm.pool.add(p)
		vm.signal()
	}
	vm.mu.Unlock()
	timer := time.NewTimer(time.Duration(vm.cfg.IssueWait))
	defer timer.Stop()
	select {
	case <-p.done:
		return p.err
	case <-timer.C:
		return nil // still processing: getTxStatus follows it
	case <-ctx.Done():
		return ctx.Err()
	}
}

// getTx returns an accepted transaction (a genesis asset's too).
func (vm *VM) getTx(ctx context.Context, a utxoapi.GetTxArgs) (utxoapi.GetTxReply, error) {
	return utxoapi.GetTx(ctx, a, func(ctx context.Context, id ids.ID) (*txs.Tx, bool, error) {
		t, _, found, err := vm.st.parsedTx(ctx, id)
		return t, found, err
	}, func(t *txs.Tx) any { return vm.txJSON(t) })
}

// getTxStatus answers Accepted, Processing (waiting in the mempool) or
// Unknown.
func (vm *VM) getTxStatus(ctx context.Context, a utxoapi.GetTxStatusArgs) (utxoapi.GetTxStatusReply, error) {
	return utxoapi.GetTxStatus(ctx, a, "Accepted", func(ctx context.Context, id ids.ID) (bool, error) {
		_, found, err := vm.st.tx(ctx, id)
		return found, err
	}, vm.pooled)
}

// pooled reports whether the mempool holds a transaction.
func (vm *VM) pooled(id ids.ID) bool {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	_, ok := vm.pool.byID[id]
	return ok
}

// getUTXOs returns a page of the UTXOs the addresses own on this chain, or,
// with sourceChain naming another chain, those that chain exported to this
// one (in shared memory, to import).
func (vm *VM) getUTXOs(ctx context.Context, a utxoapi.GetUTXOsArgs) (utxoapi.GetUTXOsReply, error) {
	if err := utxoapi.CheckAddressCount("addresses", a.Addresses); err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	enc, err := avax.ParseEncoding(a.Encoding, false)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	addrs, err := vm.apiChain().ParseAddressList(ctx, "addresses", a.Addresses)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	page, err := vm.apiChain().ParsePage(ctx, a)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	source := vm.env.ChainID
	if a.SourceChain != "" {
		info, err := vm.env.Host.Chains.Resolve(ctx, a.SourceChain)
		if errors.Is(err, host.ErrNotFound) {
			return utxoapi.GetUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain": no chain %q on this node`, a.SourceChain)
		}
		if err != nil {
			return utxoapi.GetUTXOsReply{}, err
		}
		source = info.ID
	}
	var raw [][]byte
	var endAddr avax.ShortID
	var endUTXO ids.ID
	if source == vm.env.ChainID {
		raw, endAddr, endUTXO, err = utxoapi.PageAddresses(ctx, vm.db, addrs, page)
	} else {
		raw, endAddr, endUTXO, err = vm.atomicUTXOs(ctx, source, addrs, page)
	}
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	return utxoapi.NewGetUTXOsReply(enc, raw, vm.formatAddress(endAddr), endUTXO), nil
}

// atomicUTXOs pages through the UTXOs source put in shared memory for this
// chain that addrs own, as addrIndex pages the chain's own.
func (vm *VM) atomicUTXOs(ctx context.Context, source ids.ID, addrs []avax.ShortID, page utxoapi.Page) ([][]byte, avax.ShortID, ids.ID, error) {
	startAddr, startUTXO, limit := page.StartAddr, page.StartUTXO, page.Limit
	traits := make([][]byte, len(addrs))
	for i, a := range addrs {
		traits[i] = append([]byte{}, a[:]...)
	}
	var startTrait, startKey []byte
	if !startAddr.IsZero() || startUTXO != (ids.ID{}) {
		startTrait, startKey = startAddr[:], startUTXO[:]
	}
	vals, lastTrait, lastKey, err := vm.shared.Indexed(ctx, source, traits, startTrait, startKey, limit)
	if err != nil {
		return nil, avax.ShortID{}, ids.ID{}, fmt.Errorf("read shared memory from %s: %w", source, err)
	}
	endAddr, endUTXO := startAddr, startUTXO
	if a, err := avax.ShortIDFromBytes(lastTrait); err == nil {
		endAddr = a
	}
	if u, err := ids.FromBytes(lastKey); err == nil {
		endUTXO = u
	}
	return vals, endAddr, endUTXO, nil
}

// apiChain is what the API's params are read against: this chain, on its
// network.
func (vm *VM) apiChain() utxoapi.Chain { return utxoapi.Chain{Env: vm.env, HRP: vm.hrp} }

// lookupAsset reads an asset param: an alias ("AVAX") or an asset ID.
func (vm *VM) lookupAsset(param, s string) (*asset, error) {
	if id, ok := vm.assetByAlias[s]; ok {
		return vm.assetByID[id], nil
	}
	if id, err := ids.FromString(s); err == nil {
		if a, ok := vm.assetByID[id]; ok {
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

type utxoIDJSON struct {
	TxID        ids.ID `json:"txID"`
	OutputIndex uint32 `json:"outputIndex"`
}

type getBalanceReply struct {
	Balance jsonrpc.Uint64 `json:"balance"`
	UTXOIDs []utxoIDJSON   `json:"utxoIDs"`
}

// ownedUTXOs calls fn with each UTXO addr owns.
func (vm *VM) ownedUTXOs(ctx context.Context, addr avax.ShortID, fn func(avax.UTXO) error) error {
	prefix := utxostore.AddrPrefix(addr)
	return vm.db.Iterate(ctx, prefix, nil, func(k, _ []byte) error {
		id, err := ids.FromBytes(k[len(prefix):])
		if err != nil {
			return err
		}
		u, found, err := utxostore.Get(ctx, vm.st.db, id)
		if err != nil || !found {
			return err
		}
		return fn(u)
	})
}

// counts reports whether a UTXO counts toward addr's balance: without
// includePartial only an unlocked output owned by addr alone, as in
// avalanchego.
func (vm *VM) counts(u avax.UTXO, includePartial bool) bool {
	return includePartial || (len(u.Out.Addrs) == 1 && u.Out.Locktime <= uint64(vm.now().Unix()))
}

// getBalance returns the balance of an asset held by an address, and the
// UTXOs that make it.
func (vm *VM) getBalance(ctx context.Context, a getBalanceArgs) (getBalanceReply, error) {
	addr, err := vm.apiChain().ParseAddress(ctx, "address", a.Address)
	if err != nil {
		return getBalanceReply{}, err
	}
	as, err := vm.lookupAsset("assetID", a.AssetID)
	if err != nil {
		return getBalanceReply{}, err
	}
	out := getBalanceReply{UTXOIDs: []utxoIDJSON{}}
	err = vm.ownedUTXOs(ctx, addr, func(u avax.UTXO) error {
		if u.AssetID != as.tx.ID() || !vm.counts(u, a.IncludePartial) {
			return nil
		}
		if uint64(out.Balance) > ^uint64(0)-u.Out.Amt {
			return errors.New("balance overflows")
		}
		out.Balance += jsonrpc.Uint64(u.Out.Amt)
		out.UTXOIDs = append(out.UTXOIDs, utxoIDJSON{TxID: u.TxID, OutputIndex: u.OutputIndex})
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
// named by the asset's alias.
func (vm *VM) getAllBalances(ctx context.Context, a getAllBalancesArgs) (getAllBalancesReply, error) {
	addr, err := vm.apiChain().ParseAddress(ctx, "address", a.Address)
	if err != nil {
		return getAllBalancesReply{}, err
	}
	sums := map[ids.ID]uint64{}
	err = vm.ownedUTXOs(ctx, addr, func(u avax.UTXO) error {
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
		if v, ok := sums[as.tx.ID()]; ok {
			out.Balances = append(out.Balances, balanceJSON{Asset: as.alias, Balance: jsonrpc.Uint64(v)})
		}
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
func (vm *VM) getAssetDescription(_ context.Context, a getAssetDescriptionArgs) (getAssetDescriptionReply, error) {
	as, err := vm.lookupAsset("assetID", a.AssetID)
	if err != nil {
		return getAssetDescriptionReply{}, err
	}
	return getAssetDescriptionReply{AssetID: as.tx.ID(), Name: as.def.Name, Symbol: as.def.Symbol, Denomination: jsonrpc.Uint64(as.def.Denomination)}, nil
}

// errNotLinearized is the answer of the block methods during the vertex
// phase, avalanchego's text.
var errNotLinearized = errors.New("chain is not linearized")

// getBlock returns a block by ID.
func (vm *VM) getBlock(ctx context.Context, a utxoapi.GetBlockArgs) (utxoapi.GetBlockReply, error) {
	id, err := utxoapi.ParseID("blockID", a.BlockID)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	h, err := vm.st.blockHeight(ctx, id)
	if errors.Is(err, host.ErrNotFound) {
		return utxoapi.GetBlockReply{}, fmt.Errorf("block %s not found", id)
	}
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	return vm.blockReply(ctx, h, enc)
}

// getBlockByHeight returns the block at a height.
func (vm *VM) getBlockByHeight(ctx context.Context, a utxoapi.GetBlockByHeightArgs) (utxoapi.GetBlockReply, error) {
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	m := vm.currentMeta()
	if !m.Linearized {
		return utxoapi.GetBlockReply{}, errNotLinearized
	}
	if uint64(a.Height) > m.Height {
		return utxoapi.GetBlockReply{}, fmt.Errorf("no block at height %d: the last accepted block is at %d", a.Height, m.Height)
	}
	return vm.blockReply(ctx, uint64(a.Height), enc)
}

func (vm *VM) blockReply(ctx context.Context, height uint64, enc string) (utxoapi.GetBlockReply, error) {
	b, err := vm.st.block(ctx, height)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	raw, err := utxoapi.Encode(enc, b.Bytes(), func() any { return vm.blockJSON(b) })
	return utxoapi.GetBlockReply{Block: raw, Encoding: enc}, err
}

// getHeight returns the height of the last accepted block.
func (vm *VM) getHeight(context.Context, struct{}) (utxoapi.HeightReply, error) {
	m := vm.currentMeta()
	if !m.Linearized {
		return utxoapi.HeightReply{}, errNotLinearized
	}
	return utxoapi.HeightReply{Height: jsonrpc.Uint64(m.Height)}, nil
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
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.meta.clone()
}
