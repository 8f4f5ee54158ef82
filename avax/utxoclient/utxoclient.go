// Package utxoclient is what the Go clients and wallets of the UTXO chains
// share: the X-Chain's and the P-Chain's (docs/xvm.md, docs/pchain.md) and
// an EVM chain's atomic API (docs/evm.md). It holds a chain's endpoint and
// the node's info API, pages through getUTXOs, writes and reads a key's
// addresses as the network shows them, and picks the UTXOs a key alone may
// spend.
package utxoclient

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Conn calls one chain's API on a node, and the node's info API.
type Conn struct {
	endpoint string // the chain's API
	info     string // the node's info API; "" when out of reach
	chain    string
	http     *http.Client
}

// New returns a Conn to chain (an alias such as "X", or a chain ID) on the
// node at nodeURL ("http://127.0.0.1:9650"). httpClient nil means
// http.DefaultClient.
func New(nodeURL, chain string, httpClient *http.Client) Conn {
	node := strings.TrimRight(nodeURL, "/")
	return Conn{endpoint: node + "/ext/bc/" + chain, info: node + "/ext/info", chain: chain, http: httpClient}
}

// NewEndpoint returns a Conn to a chain API served at endpoint, whose
// addresses start with chainAlias; it reaches no info API.
func NewEndpoint(endpoint, chainAlias string, httpClient *http.Client) Conn {
	return Conn{endpoint: endpoint, chain: chainAlias, http: httpClient}
}

// Chain returns the chain the Conn calls.
func (c Conn) Chain() string { return c.chain }

// Call calls a method of the chain's API.
func (c Conn) Call(ctx context.Context, method string, params, result any) error {
	return jsonrpc.Call(ctx, c.http, c.endpoint, method, params, result)
}

// CallInfo calls a method of the node's info API.
func (c Conn) CallInfo(ctx context.Context, method string, params, result any) error {
	if c.info == "" {
		return fmt.Errorf("%s: this client reaches no info API", method)
	}
	return jsonrpc.Call(ctx, c.http, c.info, method, params, result)
}

// NetworkID returns the node's network ID (info.getNetworkID).
func (c Conn) NetworkID(ctx context.Context) (uint32, error) {
	var r struct {
		NetworkID jsonrpc.Uint64 `json:"networkID"`
	}
	err := c.CallInfo(ctx, "info.getNetworkID", nil, &r)
	return uint32(r.NetworkID), err
}

// CallFunc calls a method of a chain's API by its name without the
// namespace ("getUTXOs"): each chain's client adds its own.
type CallFunc func(ctx context.Context, method string, params, result any) error

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
func GetUTXOs(ctx context.Context, call CallFunc, addrs []string, sourceChain string, limit int, startAddress, startUTXO string) (Page, error) {
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
	if err := call(ctx, "getUTXOs", params, &r); err != nil {
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
func AllUTXOs(ctx context.Context, call CallFunc, addrs []string, sourceChain string) ([]avax.UTXO, error) {
	var out []avax.UTXO
	seen := map[ids.ID]bool{}
	startAddr, startUTXO := "", ""
	for {
		p, err := GetUTXOs(ctx, call, addrs, sourceChain, pageLimit, startAddr, startUTXO)
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

// Spendable keeps, in order, the UTXOs of all that owner alone may spend
// at now (time.Now when nil): one signature of owner's, no locktime left.
// It reuses all's array.
func Spendable(all []avax.UTXO, owner avax.ShortID, now func() time.Time) []avax.UTXO {
	if now == nil {
		now = time.Now
	}
	t := uint64(now().Unix())
	return slices.DeleteFunc(all, func(u avax.UTXO) bool {
		return u.Out.Threshold != 1 || !slices.Contains(u.Out.Addrs, owner) || u.Out.Locktime > t
	})
}
