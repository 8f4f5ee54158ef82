// Package utxoapi is what the UTXO chains' JSON-RPC services share: the
// X-Chain's and the P-Chain's (docs/xvm.md, docs/pchain.md) and an EVM
// chain's atomic methods (docs/evm.md). It reads their params the same
// way (IDs, addresses of this chain, encoded transactions, getUTXOs'
// paging) and writes getUTXOs' answer, in avalanchego's shapes.
package utxoapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Limits of getUTXOs, as avalanchego's and coreth's.
const (
	MaxAddrs = 1024 // addresses one call names
	MaxPage  = 1024 // UTXOs one page holds
)

// ParseID reads a CB58 ID param.
func ParseID(param, s string) (ids.ID, error) {
	if s == "" {
		return ids.ID{}, jsonrpc.InvalidParams("%q is required", param)
	}
	id, err := ids.FromString(s)
	if err != nil {
		return ids.ID{}, jsonrpc.InvalidParams("%q: %v", param, err)
	}
	return id, nil
}

// IssueTxArgs are issueTx's params.
type IssueTxArgs struct {
	Tx       string `json:"tx"`
	Encoding string `json:"encoding"`
}

// TxIDReply is the answer that names a transaction.
type TxIDReply struct {
	TxID ids.ID `json:"txID"`
}

// TxBytes reads issueTx's encoding and the transaction's bytes.
func (a IssueTxArgs) TxBytes() ([]byte, error) {
	enc, err := avax.ParseEncoding(a.Encoding, false)
	if err != nil {
		return nil, err
	}
	if a.Tx == "" {
		return nil, jsonrpc.InvalidParams(`"tx" is required`)
	}
	raw, err := avax.DecodeBytes(enc, a.Tx)
	if err != nil {
		return nil, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	return raw, nil
}

// Chain is the chain a service answers for, whose addresses it reads.
type Chain struct {
	Env *sdk.Env
	HRP string // the network's
}

// ParseAddress reads an address param: "<chain>-<hrp>1..." of this chain
// (any of its aliases or its ID), or a CB58 short ID.
func (c Chain) ParseAddress(ctx context.Context, param, s string) (avax.ShortID, error) {
	if a, err := avax.ShortIDFromString(s); err == nil {
		return a, nil
	}
	chain, hrp, addr, err := avax.ParseAddress(s)
	if err != nil {
		return avax.ShortID{}, jsonrpc.InvalidParams("%q: want an address like %s-%s1... or a CB58 short ID: %v", param, c.Env.Name, c.HRP, err)
	}
	if hrp != c.HRP {
		return avax.ShortID{}, jsonrpc.InvalidParams("%q: address %q has HRP %q; this network's is %q", param, s, hrp, c.HRP)
	}
	if chain != c.Env.Name && chain != c.Env.ChainID.String() && !slices.Contains(c.Env.Aliases, chain) {
		info, err := c.Env.Host.Chains.Resolve(ctx, chain)
		if err != nil || info.ID != c.Env.ChainID {
			return avax.ShortID{}, jsonrpc.InvalidParams("%q: address %q is of chain %q, not of this chain (%s)", param, s, chain, c.Env.Name)
		}
	}
	return addr, nil
}

// CheckAddressCount refuses a list of no address, or of more than
// MaxAddrs.
func CheckAddressCount(param string, list []string) error {
	switch {
	case len(list) == 0:
		return jsonrpc.InvalidParams("%q must name at least one address", param)
	case len(list) > MaxAddrs:
		return jsonrpc.InvalidParams("%q: %d addresses, more than %d", param, len(list), MaxAddrs)
	}
	return nil
}

// ParseAddressList reads each address of a list param, and returns them
// sorted and unique.
func (c Chain) ParseAddressList(ctx context.Context, param string, list []string) ([]avax.ShortID, error) {
	out := make([]avax.ShortID, 0, len(list))
	for i, s := range list {
		a, err := c.ParseAddress(ctx, fmt.Sprintf("%s[%d]", param, i), s)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	slices.SortFunc(out, avax.ShortID.Compare)
	return slices.Compact(out), nil
}

// Index is where a page of getUTXOs ends, and the next starts.
type Index struct {
	Address string `json:"address"`
	UTXO    string `json:"utxo"`
}

// GetUTXOsArgs are getUTXOs' params.
type GetUTXOsArgs struct {
	Addresses   []string       `json:"addresses"`
	SourceChain string         `json:"sourceChain"`
	Limit       jsonrpc.Uint64 `json:"limit"`
	StartIndex  Index          `json:"startIndex"`
	Encoding    string         `json:"encoding"`
}

// GetUTXOsReply is getUTXOs' answer.
type GetUTXOsReply struct {
	NumFetched jsonrpc.Uint64 `json:"numFetched"`
	UTXOs      []string       `json:"utxos"`
	EndIndex   Index          `json:"endIndex"`
	Encoding   string         `json:"encoding"`
}

// Page is where a page of getUTXOs starts and how long it is at most.
type Page struct {
	StartAddr avax.ShortID
	StartUTXO ids.ID
	Limit     int
}

// ParsePage reads getUTXOs' startIndex (none: the first page) and limit
// (0: MaxPage, and never more).
func (c Chain) ParsePage(ctx context.Context, a GetUTXOsArgs) (Page, error) {
	var p Page
	if a.StartIndex.Address != "" || a.StartIndex.UTXO != "" {
		var err error
		if p.StartAddr, err = c.ParseAddress(ctx, "startIndex.address", a.StartIndex.Address); err != nil {
			return Page{}, err
		}
		if p.StartUTXO, err = ParseID("startIndex.utxo", a.StartIndex.UTXO); err != nil {
			return Page{}, err
		}
	}
	p.Limit = int(min(a.Limit, MaxPage))
	if p.Limit == 0 {
		p.Limit = MaxPage
	}
	return p, nil
}

// UTXOsQuery is what getUTXOs' params ask for besides sourceChain, which
// each chain reads its own way.
type UTXOsQuery struct {
	// Encoding is the answer's.
	Encoding string
	// Addrs are the owners, sorted and unique.
	Addrs []avax.ShortID
	Page  Page
}

// ParseUTXOsQuery reads getUTXOs' encoding, addresses and page, in that
// order; the caller checks the address count first.
func (c Chain) ParseUTXOsQuery(ctx context.Context, a GetUTXOsArgs) (UTXOsQuery, error) {
	enc, err := avax.ParseEncoding(a.Encoding, false)
	if err != nil {
		return UTXOsQuery{}, err
	}
	addrs, err := c.ParseAddressList(ctx, "addresses", a.Addresses)
	if err != nil {
		return UTXOsQuery{}, err
	}
	page, err := c.ParsePage(ctx, a)
	if err != nil {
		return UTXOsQuery{}, err
	}
	return UTXOsQuery{Encoding: enc, Addrs: addrs, Page: page}, nil
}

// NewGetUTXOsReply writes a page of UTXOs in enc, ending at endAddress
// (as the chain writes it) and endUTXO.
func NewGetUTXOsReply(enc string, raw [][]byte, endAddress string, endUTXO ids.ID) GetUTXOsReply {
	r := GetUTXOsReply{NumFetched: jsonrpc.Uint64(len(raw)), UTXOs: make([]string, len(raw)), Encoding: enc,
		EndIndex: Index{Address: endAddress, UTXO: endUTXO.String()}}
	for i, b := range raw {
		r.UTXOs[i] = avax.EncodeBytes(enc, b)
	}
	return r
}

// GetTxArgs are getTx's params.
type GetTxArgs struct {
	TxID     string `json:"txID"`
	Encoding string `json:"encoding"`
}

// GetTxReply is getTx's answer: the transaction in the encoding asked for.
type GetTxReply struct {
	Tx       json.RawMessage `json:"tx"`
	Encoding string          `json:"encoding"`
}

// GetTx answers getTx on a chain whose accepted transactions find reads;
// asJSON writes one in its JSON form.
func GetTx[T interface{ Bytes() []byte }](ctx context.Context, a GetTxArgs, find func(context.Context, ids.ID) (T, bool, error), asJSON func(T) any) (GetTxReply, error) {
	id, err := ParseID("txID", a.TxID)
	if err != nil {
		return GetTxReply{}, err
	}
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return GetTxReply{}, err
	}
	t, found, err := find(ctx, id)
	if err != nil {
		return GetTxReply{}, err
	}
	if !found {
		return GetTxReply{}, fmt.Errorf("tx %s not found (not accepted by this chain)", id)
	}
	b, err := Encode(enc, t.Bytes(), func() any { return asJSON(t) })
	return GetTxReply{Tx: b, Encoding: enc}, err
}

// Encode writes a transaction or block in enc: its JSON form (asJSON), or
// its bytes as a string.
func Encode(enc string, b []byte, asJSON func() any) (json.RawMessage, error) {
	var v any
	if enc == avax.EncJSON {
		v = asJSON()
	} else {
		v = avax.EncodeBytes(enc, b)
	}
	return json.Marshal(v)
}

// GetBlockArgs are getBlock's params.
type GetBlockArgs struct {
	BlockID  string `json:"blockID"`
	Encoding string `json:"encoding"`
}

// GetBlockByHeightArgs are getBlockByHeight's params.
type GetBlockByHeightArgs struct {
	Height   jsonrpc.Uint64 `json:"height"`
	Encoding string         `json:"encoding"`
}

// GetBlockReply is the answer of getBlock and getBlockByHeight.
type GetBlockReply struct {
	Block    json.RawMessage `json:"block"`
	Encoding string          `json:"encoding"`
}

// HeightReply is getHeight's answer.
type HeightReply struct {
	Height jsonrpc.Uint64 `json:"height"`
}

// GetTxStatusArgs are getTxStatus's params.
type GetTxStatusArgs struct {
	TxID string `json:"txID"`
	// IncludeReason is read and ignored: avalanche.js 3 sends it to the
	// P-Chain, whose older avalanchego answered why a transaction was
	// dropped; chainhost answers no Dropped status.
	IncludeReason bool `json:"includeReason"`
}

// GetTxStatusReply is getTxStatus's answer.
type GetTxStatusReply struct {
	Status string `json:"status"`
}

// GetTxStatus answers getTxStatus: accepted (the chain's word for it) when
// isAccepted says so, Processing when waiting says the mempool holds it,
// else Unknown.
func GetTxStatus(ctx context.Context, a GetTxStatusArgs, accepted string, isAccepted func(context.Context, ids.ID) (bool, error), waiting func(ids.ID) bool) (GetTxStatusReply, error) {
	id, err := ParseID("txID", a.TxID)
	if err != nil {
		return GetTxStatusReply{}, err
	}
	ok, err := isAccepted(ctx, id)
	switch {
	case err != nil:
		return GetTxStatusReply{}, err
	case ok:
		return GetTxStatusReply{Status: accepted}, nil
	case waiting(id):
		return GetTxStatusReply{Status: "Processing"}, nil
	}
	return GetTxStatusReply{Status: "Unknown"}, nil
}

// PageAddresses reads a page of the UTXOs of addrs (sorted) from a
// chain's UTXO set in db (utxostore), by address, then UTXO ID, after p's
// start; a UTXO owned by several of the addresses
// comes once per page. It returns them and where the page ends.
func PageAddresses(ctx context.Context, db host.Database, addrs []avax.ShortID, p Page) ([][]byte, avax.ShortID, ids.ID, error) {
	var out [][]byte
	endAddr, endUTXO := p.StartAddr, p.StartUTXO
	seen := map[ids.ID]bool{}
	for _, addr := range addrs {
		c := addr.Compare(p.StartAddr)
		if c < 0 {
			continue
		}
		prefix := utxostore.AddrPrefix(addr)
		var start []byte
		if c == 0 {
			start = utxostore.AddrKey(addr, p.StartUTXO)
		}
		full := false
		err := db.Iterate(ctx, prefix, start, func(k, _ []byte) error {
			id, err := ids.FromBytes(k[len(prefix):])
			if err != nil {
				return fmt.Errorf("address index entry %x: %w", k, err)
			}
			if c == 0 && id == p.StartUTXO {
				return nil // the page starts after it
			}
			endAddr, endUTXO = addr, id
			if !seen[id] {
				seen[id] = true
				b, err := db.Get(ctx, utxostore.UTXOKey(id))
				if err != nil {
					return fmt.Errorf("UTXO %s of %s: %w", id, addr, err)
				}
				out = append(out, b)
			}
			if len(out) == p.Limit {
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

// PageShared reads a page of the UTXOs that source put in shared memory
// for this chain and that addrs own, as PageAddresses reads the chain's
// own: by address, then UTXO ID, after p's start (docs/shared-memory.md).
func PageShared(ctx context.Context, sm host.SharedMemory, source ids.ID, addrs []avax.ShortID, p Page) ([][]byte, avax.ShortID, ids.ID, error) {
	traits := make([][]byte, len(addrs))
	for i, a := range addrs {
		traits[i] = bytes.Clone(a[:])
	}
	var startTrait, startKey []byte
	if !p.StartAddr.IsZero() || p.StartUTXO != (ids.ID{}) {
		startTrait, startKey = p.StartAddr[:], p.StartUTXO[:]
	}
	vals, lastTrait, lastKey, err := sm.Indexed(ctx, source, traits, startTrait, startKey, p.Limit)
	if err != nil {
		return nil, avax.ShortID{}, ids.ID{}, fmt.Errorf("read shared memory from %s: %w", source, err)
	}
	endAddr, endUTXO := p.StartAddr, p.StartUTXO
	if a, err := avax.ShortIDFromBytes(lastTrait); err == nil {
		endAddr = a
	}
	if u, err := ids.FromBytes(lastKey); err == nil {
		endUTXO = u
	}
	return vals, endAddr, endUTXO, nil
}
