// Package utxoclient is what the Go clients and wallets of the UTXO chains
// share: the X-Chain's and the P-Chain's (docs/xvm.md, docs/pchain.md) and
// an EVM chain's atomic API (docs/evm.md). It holds a chain's endpoint and
// the node's info API, makes the calls their APIs answer alike (issueTx,
// getUTXOs page by page, and the X- and P-Chains' getTx, getTxStatus,
// getHeight, getBlockByHeight), writes and reads a key's addresses as the
// network shows them, and picks, spends and signs the UTXOs a key alone
// may spend.
package utxoclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Conn calls one chain's UTXO API on a node (the methods of one
// namespace: "avm", "platform", "avax"), and the node's info API.
type Conn struct {
	endpoint  string // the chain's API
	namespace string // of the chain API's methods
	info      string // the node's info API; "" when out of reach
	chain     string
	http      *http.Client
}

// New returns a Conn to the API at path ("" or "/avax") of chain (an
// alias such as "X", or a chain ID) on the node at nodeURL
// ("http://127.0.0.1:9650"), whose methods are in namespace. httpClient
// nil means http.DefaultClient.
func New(nodeURL, chain, path, namespace string, httpClient *http.Client) Conn {
	node := strings.TrimRight(nodeURL, "/")
	return Conn{endpoint: node + "/ext/bc/" + chain + path, namespace: namespace, info: node + "/ext/info", chain: chain, http: httpClient}
}

// NewEndpoint returns a Conn to a chain API served at endpoint, whose
// methods are in namespace and whose addresses start with chainAlias; it
// reaches no info API.
func NewEndpoint(endpoint, chainAlias, namespace string, httpClient *http.Client) Conn {
	return Conn{endpoint: endpoint, namespace: namespace, chain: chainAlias, http: httpClient}
}

// Chain returns the chain the Conn calls.
func (c Conn) Chain() string { return c.chain }

// Call calls a method of the chain's API by its full name
// ("platform.getHeight").
func (c Conn) Call(ctx context.Context, method string, params, result any) error {
	return jsonrpc.Call(ctx, c.http, c.endpoint, method, params, result)
}

// CallAPI calls a method of the Conn's namespace by its name without the
// namespace ("getUTXOs").
func (c Conn) CallAPI(ctx context.Context, method string, params, result any) error {
	return c.Call(ctx, c.namespace+"."+method, params, result)
}

// CallInfo calls a method of the node's info API.
func (c Conn) CallInfo(ctx context.Context, method string, params, result any) error {
	if c.info == "" {
		return fmt.Errorf("%s: this client reaches no info API", method)
	}
	return jsonrpc.Call(ctx, c.http, c.info, method, params, result)
}

// Result calls a method of c's API by its full name and returns its
// result.
func Result[T any](ctx context.Context, c Conn, method string, params any) (T, error) {
	var r T
	err := c.Call(ctx, method, params, &r)
	return r, err
}

// NetworkID returns the node's network ID (info.getNetworkID).
func (c Conn) NetworkID(ctx context.Context) (uint32, error) {
	var r struct {
		NetworkID jsonrpc.Uint64 `json:"networkID"`
	}
	err := c.CallInfo(ctx, "info.getNetworkID", nil, &r)
	return uint32(r.NetworkID), err
}

// BlockchainID returns the ID of a chain of the node, by alias
// (info.getBlockchainID).
func (c Conn) BlockchainID(ctx context.Context, alias string) (ids.ID, error) {
	var r struct {
		BlockchainID ids.ID `json:"blockchainID"`
	}
	err := c.CallInfo(ctx, "info.getBlockchainID", map[string]string{"alias": alias}, &r)
	return r.BlockchainID, err
}

// ResolveChain returns the ID of a chain of the node named by alias
// (info.getBlockchainID) or by ID.
func (c Conn) ResolveChain(ctx context.Context, chain string) (ids.ID, error) {
	id, err := c.BlockchainID(ctx, chain)
	if err == nil {
		return id, nil
	}
	if id, perr := ids.FromString(chain); perr == nil {
		return id, nil
	}
	return ids.ID{}, fmt.Errorf("chain %q: %w", chain, err)
}

// txArgs names a transaction, in an encoding ("" for none).
func txArgs(id ids.ID, encoding string) map[string]string {
	args := map[string]string{"txID": id.String()}
	if encoding != "" {
		args["encoding"] = encoding
	}
	return args
}

// IssueTx issues signed transaction bytes and returns the transaction ID;
// the node answers once the transaction is accepted (or still processing
// after its issue-wait; an EVM chain, once it waits for its next block).
func (c Conn) IssueTx(ctx context.Context, tx []byte) (ids.ID, error) {
	var r struct {
		TxID ids.ID `json:"txID"`
	}
	err := c.CallAPI(ctx, "issueTx", map[string]string{"tx": ids.HexWithChecksum(tx), "encoding": "hex"}, &r)
	return r.TxID, err
}

// getHex calls a method whose result holds hex bytes in field, and
// returns the bytes.
func (c Conn) getHex(ctx context.Context, method string, params any, field string) ([]byte, error) {
	var r map[string]json.RawMessage
	if err := c.CallAPI(ctx, method, params, &r); err != nil {
		return nil, err
	}
	var s string
	if raw, ok := r[field]; ok {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", method, field, err)
		}
	}
	return ids.DecodeHexWithChecksum(s)
}

// GetTxBytes returns the bytes of a transaction the chain knows, by the
// method that reads one ("getTx"; an EVM chain's "getAtomicTx").
func (c Conn) GetTxBytes(ctx context.Context, method string, id ids.ID) ([]byte, error) {
	return c.getHex(ctx, method, txArgs(id, "hex"), "tx")
}

// ChainConn is a Conn to a chain of its own blocks and transactions, the
// X- or P-Chain.
type ChainConn struct {
	Conn
}

// GetTx returns the bytes of an accepted transaction.
func (c ChainConn) GetTx(ctx context.Context, id ids.ID) ([]byte, error) {
	return c.GetTxBytes(ctx, "getTx", id)
}

// GetTxJSON returns an accepted transaction in its JSON form.
func (c ChainConn) GetTxJSON(ctx context.Context, id ids.ID) (json.RawMessage, error) {
	var r struct {
		Tx json.RawMessage `json:"tx"`
	}
	err := c.CallAPI(ctx, "getTx", txArgs(id, "json"), &r)
	return r.Tx, err
}

// GetTxStatus returns a transaction's status: Accepted (the P-Chain:
// Committed), Processing or Unknown.
func (c ChainConn) GetTxStatus(ctx context.Context, id ids.ID) (string, error) {
	var r struct {
		Status string `json:"status"`
	}
	err := c.CallAPI(ctx, "getTxStatus", txArgs(id, ""), &r)
	return r.Status, err
}

// GetHeight returns the height of the last accepted block.
func (c ChainConn) GetHeight(ctx context.Context) (uint64, error) {
	var r struct {
		Height jsonrpc.Uint64 `json:"height"`
	}
	err := c.CallAPI(ctx, "getHeight", nil, &r)
	return uint64(r.Height), err
}

// GetBlockByHeight returns the bytes of the block at a height.
func (c ChainConn) GetBlockByHeight(ctx context.Context, height uint64) ([]byte, error) {
	return c.getHex(ctx, "getBlockByHeight", map[string]any{"height": height, "encoding": "hex"}, "block")
}

// Page is a page of UTXOs, and where the next one starts.
type Page struct {
	UTXOs      [][]byte
	EndAddress string
	EndUTXO    string
}

// GetUTXOs returns a page of the UTXOs addrs own (addresses as the chain
// shows them, or CB58 short IDs). sourceChain "" lists the chain's own
// UTXOs; another chain's alias or ID lists the UTXOs it exported to this
// chain. startAddress and startUTXO are the previous page's end, or "".
func (c Conn) GetUTXOs(ctx context.Context, addrs []string, sourceChain string, limit int, startAddress, startUTXO string) (Page, error) {
	params := map[string]any{"addresses": addrs, "limit": limit, "encoding": "hex"}
	if sourceChain != "" {
		params["sourceChain"] = sourceChain
	}
	if startAddress != "" || startUTXO != "" {
		params["startIndex"] = map[string]string{"address": startAddress, "utxo": startUTXO}
	}
	var r struct {
		UTXOs    []string `json:"utxos"`
		EndIndex struct {
			Address string `json:"address"`
			UTXO    string `json:"utxo"`
		} `json:"endIndex"`
	}
	if err := c.CallAPI(ctx, "getUTXOs", params, &r); err != nil {
		return Page{}, err
	}
	p := Page{EndAddress: r.EndIndex.Address, EndUTXO: r.EndIndex.UTXO}
	for _, s := range r.UTXOs {
		b, err := ids.DecodeHexWithChecksum(s)
		if err != nil {
			return Page{}, fmt.Errorf("getUTXOs: %w", err)
		}
		p.UTXOs = append(p.UTXOs, b)
	}
	return p, nil
}

// pageLimit is how many UTXOs AllUTXOs asks for per page.
const pageLimit = 1024

// AllUTXOs returns every UTXO addrs own (see GetUTXOs), page by page, each
// once.
func (c Conn) AllUTXOs(ctx context.Context, addrs []string, sourceChain string) ([]avax.UTXO, error) {
	var out []avax.UTXO
	seen := map[ids.ID]bool{}
	startAddr, startUTXO := "", ""
	for {
		p, err := c.GetUTXOs(ctx, addrs, sourceChain, pageLimit, startAddr, startUTXO)
		if err != nil {
			return nil, err
		}
		for _, b := range p.UTXOs {
			u, err := avax.ParseUTXO(b)
			if err != nil {
				return nil, err
			}
			if !seen[u.InputID()] {
				seen[u.InputID()] = true
				out = append(out, u)
			}
		}
		if len(p.UTXOs) < pageLimit {
			return out, nil
		}
		startAddr, startUTXO = p.EndAddress, p.EndUTXO
	}
}

// FormatAddress returns an address as chain shows it on the network
// ("X-local1..."), or as a CB58 short ID when the chain's alias cannot
// prefix one.
func FormatAddress(chain string, networkID uint32, a avax.ShortID) string {
	s, err := avax.FormatAddress(chain, avax.HRP(networkID), a)
	if err != nil {
		return a.String()
	}
	return s
}

// ParseAddress reads "<chain>-<hrp>1..." (any chain prefix), "<hrp>1..."
// or a CB58 short ID, and checks the HRP is the network's.
func ParseAddress(s string, networkID uint32) (avax.ShortID, error) {
	if a, err := avax.ShortIDFromString(s); err == nil {
		return a, nil
	}
	bech := s
	if _, rest, ok := strings.Cut(s, "-"); ok {
		bech = rest
	}
	hrp, a, err := avax.ParseBech32(bech)
	if err != nil {
		return avax.ShortID{}, fmt.Errorf("address %q: %w", s, err)
	}
	if want := avax.HRP(networkID); hrp != want {
		return avax.ShortID{}, fmt.Errorf("address %q is for HRP %q; this network's is %q", s, hrp, want)
	}
	return a, nil
}
