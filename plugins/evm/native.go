package evm

import (
	"context"
	"errors"
	"fmt"
	"slices"

	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Limits of getUTXOs, coreth's.
const (
	maxUTXOsAddrs = 1024
	maxUTXOsPage  = 1024
)

// newNativeHandler serves the chain-native methods of docs/api/atomic.md
// (atomic transactions, docs/evm.md) under prefix: "native" or
// "avax" (what existing clients call).
func newNativeHandler(prefix string, maxBatch int, a *atomicVM) *jsonrpc.Server {
	s := jsonrpc.NewServer(jsonrpc.Options{MaxBatchSize: maxBatch})
	for name, h := range map[string]jsonrpc.Handler{
		"getUTXOs":          jsonrpc.Method(a.getUTXOs),
		"issueTx":           jsonrpc.Method(a.issueTx),
		"getAtomicTxStatus": jsonrpc.Method(a.getAtomicTxStatus),
		"getAtomicTx":       jsonrpc.Method(a.getAtomicTx),
	} {
		s.Register(prefix+"."+name, h)
	}
	return s
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

// getUTXOs returns a page of the UTXOs sourceChain exported to this chain
// (in shared memory, to import) that the addresses own.
func (a *atomicVM) getUTXOs(ctx context.Context, args getUTXOsArgs) (getUTXOsReply, error) {
	switch {
	case len(args.Addresses) == 0:
		return getUTXOsReply{}, jsonrpc.InvalidParams(`"addresses" must name at least one address`)
	case len(args.Addresses) > maxUTXOsAddrs:
		return getUTXOsReply{}, jsonrpc.InvalidParams(`"addresses": %d addresses, more than %d`, len(args.Addresses), maxUTXOsAddrs)
	case args.SourceChain == "":
		return getUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain" is required: the chain that exported the UTXOs`)
	}
	enc, err := avax.ParseEncoding(args.Encoding, false)
	if err != nil {
		return getUTXOsReply{}, err
	}
	addrs := make([]avax.ShortID, 0, len(args.Addresses))
	for i, s := range args.Addresses {
		addr, err := a.parseAddress(ctx, fmt.Sprintf("addresses[%d]", i), s)
		if err != nil {
			return getUTXOsReply{}, err
		}
		addrs = append(addrs, addr)
	}
	slices.SortFunc(addrs, avax.ShortID.Compare)
	addrs = slices.Compact(addrs)
	var startAddr avax.ShortID
	var startUTXO ids.ID
	if args.StartIndex.Address != "" || args.StartIndex.UTXO != "" {
		if startAddr, err = a.parseAddress(ctx, "startIndex.address", args.StartIndex.Address); err != nil {
			return getUTXOsReply{}, err
		}
		if startUTXO, err = parseID("startIndex.utxo", args.StartIndex.UTXO); err != nil {
			return getUTXOsReply{}, err
		}
	}
	limit := int(min(args.Limit, maxUTXOsPage))
	if limit == 0 {
		limit = maxUTXOsPage
	}
	source, err := a.env.Host.Chains.Resolve(ctx, args.SourceChain)
	if errors.Is(err, host.ErrNotFound) {
		return getUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain": no chain %q on this node`, args.SourceChain)
	}
	if err != nil {
		return getUTXOsReply{}, err
	}
	if source.ID == a.env.ChainID {
		return getUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain": %q is this chain; name the chain that exported the UTXOs`, args.SourceChain)
	}
	raw, endAddr, endUTXO, err := a.utxos(ctx, source.ID, addrs, startAddr, startUTXO, limit)
	if err != nil {
		return getUTXOsReply{}, err
	}
	out := getUTXOsReply{NumFetched: jsonrpc.Uint64(len(raw)), UTXOs: make([]string, len(raw)), Encoding: enc}
	for i, b := range raw {
		out.UTXOs[i] = avax.EncodeBytes(enc, b)
	}
	endAddress, err := avax.FormatAddress(a.env.Name, a.hrp, endAddr)
	if err != nil {
		return getUTXOsReply{}, err
	}
	out.EndIndex = indexJSON{Address: endAddress, UTXO: endUTXO.String()}
	return out, nil
}

// parseAddress reads an address param: "<chain>-<hrp>1..." of this chain
// (any of its aliases or its ID), or a CB58 short ID.
func (a *atomicVM) parseAddress(ctx context.Context, param, s string) (avax.ShortID, error) {
	if addr, err := avax.ShortIDFromString(s); err == nil {
		return addr, nil
	}
	chain, hrp, addr, err := avax.ParseAddress(s)
	if err != nil {
		return avax.ShortID{}, jsonrpc.InvalidParams("%q: want an address like %s-%s1... or a CB58 short ID: %v", param, a.env.Name, a.hrp, err)
	}
	if hrp != a.hrp {
		return avax.ShortID{}, jsonrpc.InvalidParams("%q: address %q has HRP %q; this network's is %q", param, s, hrp, a.hrp)
	}
	if chain != a.env.Name && chain != a.env.ChainID.String() && !slices.Contains(a.env.Aliases, chain) {
		info, err := a.env.Host.Chains.Resolve(ctx, chain)
		if err != nil || info.ID != a.env.ChainID {
			return avax.ShortID{}, jsonrpc.InvalidParams("%q: address %q is of chain %q, not of this chain (%s)", param, s, chain, a.env.Name)
		}
	}
	return addr, nil
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

type issueTxArgs struct {
	Tx       string `json:"tx"`
	Encoding string `json:"encoding"`
}

type txIDReply struct {
	TxID ids.ID `json:"txID"`
}

// issueTx checks a signed import or export and adds it to the next block;
// it answers at once, as coreth does: getAtomicTxStatus follows it.
func (a *atomicVM) issueTx(ctx context.Context, args issueTxArgs) (txIDReply, error) {
	enc, err := avax.ParseEncoding(args.Encoding, false)
	if err != nil {
		return txIDReply{}, err
	}
	if args.Tx == "" {
		return txIDReply{}, jsonrpc.InvalidParams(`"tx" is required`)
	}
	raw, err := avax.DecodeBytes(enc, args.Tx)
	if err != nil {
		return txIDReply{}, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	t, err := atx.Parse(raw)
	if err != nil {
		return txIDReply{}, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	if err := a.issue(ctx, t); err != nil {
		return txIDReply{}, err
	}
	return txIDReply{TxID: t.ID()}, nil
}

type txIDArgs struct {
	TxID string `json:"txID"`
}

type statusReply struct {
	Status      string          `json:"status"`
	BlockHeight *jsonrpc.Uint64 `json:"blockHeight,omitempty"`
}

// getAtomicTxStatus answers coreth's statuses: Accepted (with the block's
// height), Processing, Dropped or Unknown.
func (a *atomicVM) getAtomicTxStatus(ctx context.Context, args txIDArgs) (statusReply, error) {
	id, err := parseID("txID", args.TxID)
	if err != nil {
		return statusReply{}, err
	}
	st, err := a.status(ctx, id)
	if err != nil {
		return statusReply{}, err
	}
	return statusReply{Status: st.status, BlockHeight: heightJSON(st.height)}, nil
}

type getAtomicTxArgs struct {
	TxID     string `json:"txID"`
	Encoding string `json:"encoding"`
}

type getAtomicTxReply struct {
	Tx          string          `json:"tx"`
	Encoding    string          `json:"encoding"`
	BlockHeight *jsonrpc.Uint64 `json:"blockHeight,omitempty"`
}

// getAtomicTx returns the bytes of a transaction the chain knows (any
// status but Unknown), with the height of its block once accepted.
func (a *atomicVM) getAtomicTx(ctx context.Context, args getAtomicTxArgs) (getAtomicTxReply, error) {
	id, err := parseID("txID", args.TxID)
	if err != nil {
		return getAtomicTxReply{}, err
	}
	enc, err := avax.ParseEncoding(args.Encoding, false)
	if err != nil {
		return getAtomicTxReply{}, err
	}
	st, err := a.status(ctx, id)
	if err != nil {
		return getAtomicTxReply{}, err
	}
	if st.tx == nil {
		return getAtomicTxReply{}, fmt.Errorf("could not find tx %s", id)
	}
	return getAtomicTxReply{Tx: avax.EncodeBytes(enc, st.tx.Bytes()), Encoding: enc, BlockHeight: heightJSON(st.height)}, nil
}

func heightJSON(h *uint64) *jsonrpc.Uint64 {
	if h == nil {
		return nil
	}
	v := jsonrpc.Uint64(*h)
	return &v
}
