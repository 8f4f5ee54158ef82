package xvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/plugins/xvm/utxostore"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Limits of getUTXOs, as avalanchego's.
const (
	maxUTXOsAddrs = 1024
	maxUTXOsPage  = 1024
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

type issueTxArgs struct {
	Tx       string `json:"tx"`
	Encoding string `json:"encoding"`
}

type txIDReply struct {
	TxID ids.ID `json:"txID"`
}

// issueTx verifies a signed transaction and adds it to the next block.
// It answers once the transaction is accepted (or after the configured
// issue-wait, with the ID of a transaction still processing).
func (vm *VM) issueTx(ctx context.Context, a issueTxArgs) (txIDReply, error) {
	enc, err := avax.ParseEncoding(a.Encoding, false)
	if err != nil {
		return txIDReply{}, err
	}
	if a.Tx == "" {
		return txIDReply{}, jsonrpc.InvalidParams(`"tx" is required`)
	}
	raw, err := avax.DecodeBytes(enc, a.Tx)
	if err != nil {
		return txIDReply{}, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	tx, err := txs.Parse(raw)
	if err != nil {
		return txIDReply{}, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	return txIDReply{TxID: tx.ID()}, vm.issue(ctx, tx)
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

// parseID reads a CB58 ID param.
func parseID(param, s string) (ids.ID, error) {
	if s == "" {
		return ids.ID{}, jsonrpc.InvalidParams("%q is required", param)
	}
	id, err := ids.FromString(s)
	if err != nil {
		return ids.ID{}, jsonrpc.InvalidParams("%q: %v", param, err)
	}
	return id, nil
}

type getTxArgs struct {
	TxID     string `json:"txID"`
	Encoding string `json:"encoding"`
}

type getTxReply struct {
	Tx       json.RawMessage `json:"tx"`
	Encoding string          `json:"encoding"`
}

// getTx returns an accepted transaction (a genesis asset's too).
func (vm *VM) getTx(ctx context.Context, a getTxArgs) (getTxReply, error) {
	id, err := parseID("txID", a.TxID)
	if err != nil {
		return getTxReply{}, err
	}
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return getTxReply{}, err
	}
	t, _, found, err := vm.st.parsedTx(ctx, id)
	if err != nil {
		return getTxReply{}, err
	}
	if !found {
		return getTxReply{}, fmt.Errorf("tx %s not found (not accepted by this chain)", id)
	}
	var v any = vm.txJSON(t)
	if enc != avax.EncJSON {
		v = avax.EncodeBytes(enc, t.Bytes())
	}
	b, err := json.Marshal(v)
	return getTxReply{Tx: b, Encoding: enc}, err
}

type getTxStatusArgs struct {
	TxID string `json:"txID"`
}

type getTxStatusReply struct {
	Status string `json:"status"`
}

// getTxStatus answers Accepted, Processing (waiting in the mempool) or
// Unknown.
func (vm *VM) getTxStatus(ctx context.Context, a getTxStatusArgs) (getTxStatusReply, error) {
	id, err := parseID("txID", a.TxID)
	if err != nil {
		return getTxStatusReply{}, err
	}
	_, found, err := vm.st.tx(ctx, id)
	if err != nil {
		return getTxStatusReply{}, err
	}
	if found {
		return getTxStatusReply{Status: "Accepted"}, nil
	}
	vm.mu.Lock()
	_, waiting := vm.pool.byID[id]
	vm.mu.Unlock()
	if waiting {
		return getTxStatusReply{Status: "Processing"}, nil
	}
	return getTxStatusReply{Status: "Unknown"}, nil
}

type indexJSON struct {
	Address string `json:"address"`
	UTXO    string `json:"utxo"`
}

type getUTXOsArgs struct {
	Addresses   []string       `json:"addresses"`
	SourceChain string         `json:"sourceChain"`
	Limit       jsonrpc.Uint64 `json:"limit"`
	StartIndex  indexJSON      `json:"startIndex"`
	Encoding    string         `json:"encoding"`
}

type getUTXOsReply struct {
	NumFetched jsonrpc.Uint64 `json:"numFetched"`
	UTXOs      []string       `json:"utxos"`
	EndIndex   indexJSON      `json:"endIndex"`
	Encoding   string         `json:"encoding"`
}

// getUTXOs returns a page of the UTXOs the addresses own on this chain, or,
// with sourceChain naming another chain, those that chain exported to this
// one (in shared memory, to import).
func (vm *VM) getUTXOs(ctx context.Context, a getUTXOsArgs) (getUTXOsReply, error) {
	switch {
	case len(a.Addresses) == 0:
		return getUTXOsReply{}, jsonrpc.InvalidParams(`"addresses" must name at least one address`)
	case len(a.Addresses) > maxUTXOsAddrs:
		return getUTXOsReply{}, jsonrpc.InvalidParams(`"addresses": %d addresses, more than %d`, len(a.Addresses), maxUTXOsAddrs)
	}
	enc, err := avax.ParseEncoding(a.Encoding, false)
	if err != nil {
		return getUTXOsReply{}, err
	}
	addrs := make([]avax.ShortID, 0, len(a.Addresses))
	for i, s := range a.Addresses {
		addr, err := vm.parseAddress(ctx, fmt.Sprintf("addresses[%d]", i), s)
		if err != nil {
			return getUTXOsReply{}, err
		}
		addrs = append(addrs, addr)
	}
	slices.SortFunc(addrs, avax.ShortID.Compare)
	addrs = slices.Compact(addrs)
	var startAddr avax.ShortID
	var startUTXO ids.ID
	if a.StartIndex.Address != "" || a.StartIndex.UTXO != "" {
		if startAddr, err = vm.parseAddress(ctx, "startIndex.address", a.StartIndex.Address); err != nil {
			return getUTXOsReply{}, err
		}
		if startUTXO, err = parseID("startIndex.utxo", a.StartIndex.UTXO); err != nil {
			return getUTXOsReply{}, err
		}
	}
	limit := int(min(a.Limit, maxUTXOsPage))
	if limit == 0 {
		limit = maxUTXOsPage
	}
	source := vm.env.ChainID
	if a.SourceChain != "" {
		info, err := vm.env.Host.Chains.Resolve(ctx, a.SourceChain)
		if errors.Is(err, host.ErrNotFound) {
			return getUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain": no chain %q on this node`, a.SourceChain)
		}
		if err != nil {
			return getUTXOsReply{}, err
		}
		source = info.ID
	}
	var raw [][]byte
	var endAddr avax.ShortID
	var endUTXO ids.ID
	if source == vm.env.ChainID {
		raw, endAddr, endUTXO, err = vm.localUTXOs(ctx, addrs, startAddr, startUTXO, limit)
	} else {
		raw, endAddr, endUTXO, err = vm.atomicUTXOs(ctx, source, addrs, startAddr, startUTXO, limit)
	}
	if err != nil {
		return getUTXOsReply{}, err
	}
	out := getUTXOsReply{NumFetched: jsonrpc.Uint64(len(raw)), UTXOs: make([]string, len(raw)), Encoding: enc}
	for i, b := range raw {
		out.UTXOs[i] = avax.EncodeBytes(enc, b)
	}
	out.EndIndex = indexJSON{Address: vm.formatAddress(endAddr), UTXO: endUTXO.String()}
	return out, nil
}

// localUTXOs pages through the UTXOs of addrs (sorted), by address, then
// UTXO ID, after (startAddr, startUTXO); a UTXO owned by several of the
// addresses comes once per page.
func (vm *VM) localUTXOs(ctx context.Context, addrs []avax.ShortID, startAddr avax.ShortID, startUTXO ids.ID, limit int) ([][]byte, avax.ShortID, ids.ID, error) {
	var out [][]byte
	endAddr, endUTXO := startAddr, startUTXO
	seen := map[ids.ID]bool{}
	for _, addr := range addrs {
		c := addr.Compare(startAddr)
		if c < 0 {
			continue
		}
		prefix := utxostore.AddrPrefix(addr)
		var start []byte
		if c == 0 {
			start = utxostore.AddrKey(addr, startUTXO)
		}
		full := false
		err := vm.db.Iterate(ctx, prefix, start, func(k, _ []byte) error {
			id, err := ids.FromBytes(k[len(prefix):])
			if err != nil {
				return fmt.Errorf("address index entry %x: %w", k, err)
			}
			if c == 0 && id == startUTXO {
				return nil // the page starts after it
			}
			endAddr, endUTXO = addr, id
			if !seen[id] {
				seen[id] = true
				b, err := vm.db.Get(ctx, utxostore.UTXOKey(id))
				if err != nil {
					return fmt.Errorf("UTXO %s of %s: %w", id, addr, err)
				}
				out = append(out, b)
			}
			if len(out) == limit {
				full = true
				return host.ErrStop
			}
			return nil
		})
		if err != nil {
			return nil, avax.ShortID{}, ids.ID{}, err
		}
		if full {
			break
		}
	}
	return out, endAddr, endUTXO, nil
}

// atomicUTXOs pages through the UTXOs source put in shared memory for this
// chain that addrs own, as localUTXOs pages.
func (vm *VM) atomicUTXOs(ctx context.Context, source ids.ID, addrs []avax.ShortID, startAddr avax.ShortID, startUTXO ids.ID, limit int) ([][]byte, avax.ShortID, ids.ID, error) {
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

// parseAddress reads an address param: "<chain>-<hrp>1..." of this chain
// (any of its aliases or its ID), or a CB58 short ID.
func (vm *VM) parseAddress(ctx context.Context, param, s string) (avax.ShortID, error) {
	if a, err := avax.ShortIDFromString(s); err == nil {
		return a, nil
	}
	chain, hrp, addr, err := avax.ParseAddress(s)
	if err != nil {
		return avax.ShortID{}, jsonrpc.InvalidParams("%q: want an address like %s-%s1... or a CB58 short ID: %v", param, vm.env.Name, vm.hrp, err)
	}
	if hrp != vm.hrp {
		return avax.ShortID{}, jsonrpc.InvalidParams("%q: address %q has HRP %q; this network's is %q", param, s, hrp, vm.hrp)
	}
	if chain != vm.env.Name && chain != vm.env.ChainID.String() && !slices.Contains(vm.env.Aliases, chain) {
		info, err := vm.env.Host.Chains.Resolve(ctx, chain)
		if err != nil || info.ID != vm.env.ChainID {
			return avax.ShortID{}, jsonrpc.InvalidParams("%q: address %q is of chain %q, not of this chain (%s)", param, s, chain, vm.env.Name)
		}
	}
	return addr, nil
}

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
	addr, err := vm.parseAddress(ctx, "address", a.Address)
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
	addr, err := vm.parseAddress(ctx, "address", a.Address)
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

type getBlockArgs struct {
	BlockID  string `json:"blockID"`
	Encoding string `json:"encoding"`
}

type getBlockByHeightArgs struct {
	Height   jsonrpc.Uint64 `json:"height"`
	Encoding string         `json:"encoding"`
}

type getBlockReply struct {
	Block    json.RawMessage `json:"block"`
	Encoding string          `json:"encoding"`
}

// errNotLinearized is the answer of the block methods during the vertex
// phase, avalanchego's text.
var errNotLinearized = errors.New("chain is not linearized")

// getBlock returns a block by ID.
func (vm *VM) getBlock(ctx context.Context, a getBlockArgs) (getBlockReply, error) {
	id, err := parseID("blockID", a.BlockID)
	if err != nil {
		return getBlockReply{}, err
	}
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return getBlockReply{}, err
	}
	h, err := vm.st.blockHeight(ctx, id)
	if errors.Is(err, host.ErrNotFound) {
		return getBlockReply{}, fmt.Errorf("block %s not found", id)
	}
	if err != nil {
		return getBlockReply{}, err
	}
	return vm.blockReply(ctx, h, enc)
}

// getBlockByHeight returns the block at a height.
func (vm *VM) getBlockByHeight(ctx context.Context, a getBlockByHeightArgs) (getBlockReply, error) {
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return getBlockReply{}, err
	}
	m := vm.currentMeta()
	if !m.Linearized {
		return getBlockReply{}, errNotLinearized
	}
	if uint64(a.Height) > m.Height {
		return getBlockReply{}, fmt.Errorf("no block at height %d: the last accepted block is at %d", a.Height, m.Height)
	}
	return vm.blockReply(ctx, uint64(a.Height), enc)
}

func (vm *VM) blockReply(ctx context.Context, height uint64, enc string) (getBlockReply, error) {
	b, err := vm.st.block(ctx, height)
	if err != nil {
		return getBlockReply{}, err
	}
	var v any = vm.blockJSON(b)
	if enc != avax.EncJSON {
		v = avax.EncodeBytes(enc, b.Bytes())
	}
	raw, err := json.Marshal(v)
	return getBlockReply{Block: raw, Encoding: enc}, err
}

type heightReply struct {
	Height jsonrpc.Uint64 `json:"height"`
}

// getHeight returns the height of the last accepted block.
func (vm *VM) getHeight(context.Context, struct{}) (heightReply, error) {
	m := vm.currentMeta()
	if !m.Linearized {
		return heightReply{}, errNotLinearized
	}
	return heightReply{Height: jsonrpc.Uint64(m.Height)}, nil
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
