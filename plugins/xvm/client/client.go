// Package client is a Go client of the X-Chain API (docs/xvm.md), and a
// wallet on it: one key's balances, transfers, exports to another chain
// and imports from one, built and signed in avalanchego's formats. The
// chainhost command's `x` subcommands use it.
package client

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Client calls one X-Chain's API on a node, and the node's info API.
type Client struct {
	utxoclient.Conn
}

// New returns a client of chain (an alias such as "X", or a chain ID) on
// the node at nodeURL ("http://127.0.0.1:9650"). httpClient nil means
// http.DefaultClient.
func New(nodeURL, chain string, httpClient *http.Client) *Client {
	return &Client{utxoclient.New(nodeURL, chain, httpClient)}
}

// NewEndpoint returns a client of a chain API served at endpoint, whose
// addresses start with chainAlias; it reaches no info API, so a Wallet of
// it is built by hand rather than by NewWallet.
func NewEndpoint(endpoint, chainAlias string, httpClient *http.Client) *Client {
	return &Client{utxoclient.NewEndpoint(endpoint, chainAlias, httpClient)}
}

func (c *Client) call(ctx context.Context, method string, params, result any) error {
	return c.Call(ctx, "avm."+method, params, result)
}

// BlockchainID returns the ID of a chain of the node, by alias
// (info.getBlockchainID).
func (c *Client) BlockchainID(ctx context.Context, alias string) (ids.ID, error) {
	var r struct {
		BlockchainID ids.ID `json:"blockchainID"`
	}
	err := c.CallInfo(ctx, "info.getBlockchainID", map[string]string{"alias": alias}, &r)
	return r.BlockchainID, err
}

// IssueTx issues signed transaction bytes and returns the transaction ID;
// the node answers once the transaction is accepted (or still processing
// after its issue-wait).
func (c *Client) IssueTx(ctx context.Context, tx []byte) (ids.ID, error) {
	var r struct {
		TxID ids.ID `json:"txID"`
	}
	err := c.call(ctx, "issueTx", map[string]string{"tx": ids.HexWithChecksum(tx), "encoding": "hex"}, &r)
	return r.TxID, err
}

// GetTx returns the bytes of an accepted transaction.
func (c *Client) GetTx(ctx context.Context, id ids.ID) ([]byte, error) {
	var r struct {
		Tx string `json:"tx"`
	}
	if err := c.call(ctx, "getTx", map[string]string{"txID": id.String(), "encoding": "hex"}, &r); err != nil {
		return nil, err
	}
	return ids.DecodeHexWithChecksum(r.Tx)
}

// GetTxJSON returns an accepted transaction in its JSON form.
func (c *Client) GetTxJSON(ctx context.Context, id ids.ID) (json.RawMessage, error) {
	var r struct {
		Tx json.RawMessage `json:"tx"`
	}
	err := c.call(ctx, "getTx", map[string]string{"txID": id.String(), "encoding": "json"}, &r)
	return r.Tx, err
}

// GetTxStatus returns Accepted, Processing or Unknown.
func (c *Client) GetTxStatus(ctx context.Context, id ids.ID) (string, error) {
	var r struct {
		Status string `json:"status"`
	}
	err := c.call(ctx, "getTxStatus", map[string]string{"txID": id.String()}, &r)
	return r.Status, err
}

// Page is a page of getUTXOs: the UTXOs, and where the next page starts.
type Page = utxoclient.Page

// GetUTXOs returns a page of the UTXOs addrs own (see utxoclient.GetUTXOs).
func (c *Client) GetUTXOs(ctx context.Context, addrs []string, sourceChain string, limit int, startAddress, startUTXO string) (Page, error) {
	return utxoclient.GetUTXOs(ctx, c.call, addrs, sourceChain, limit, startAddress, startUTXO)
}

// AllUTXOs returns every UTXO addrs own (see GetUTXOs), page by page, each
// once.
func (c *Client) AllUTXOs(ctx context.Context, addrs []string, sourceChain string) ([]avax.UTXO, error) {
	return utxoclient.AllUTXOs(ctx, c.call, addrs, sourceChain)
}

// Balance is an address's balance of one asset.
type Balance struct {
	Asset   string
	Balance uint64
}

// GetAllBalances returns an address's balance of each asset it holds
// alone and unlocked (with includePartial, of every UTXO it is an owner
// of).
func (c *Client) GetAllBalances(ctx context.Context, addr string, includePartial bool) ([]Balance, error) {
	var r struct {
		Balances []struct {
			Asset   string         `json:"asset"`
			Balance jsonrpc.Uint64 `json:"balance"`
		} `json:"balances"`
	}
	if err := c.call(ctx, "getAllBalances", map[string]any{"address": addr, "includePartial": includePartial}, &r); err != nil {
		return nil, err
	}
	out := make([]Balance, len(r.Balances))
	for i, b := range r.Balances {
		out[i] = Balance{Asset: b.Asset, Balance: uint64(b.Balance)}
	}
	return out, nil
}

// GetBalance returns an address's balance of one asset (alias or ID).
func (c *Client) GetBalance(ctx context.Context, addr, asset string) (uint64, error) {
	var r struct {
		Balance jsonrpc.Uint64 `json:"balance"`
	}
	err := c.call(ctx, "getBalance", map[string]any{"address": addr, "assetID": asset}, &r)
	return uint64(r.Balance), err
}

// Asset describes an asset.
type Asset struct {
	ID           ids.ID
	Name         string
	Symbol       string
	Denomination uint8
}

// GetAssetDescription describes an asset, by alias ("AVAX") or ID.
func (c *Client) GetAssetDescription(ctx context.Context, asset string) (Asset, error) {
	var r struct {
		AssetID      ids.ID         `json:"assetID"`
		Name         string         `json:"name"`
		Symbol       string         `json:"symbol"`
		Denomination jsonrpc.Uint64 `json:"denomination"`
	}
	err := c.call(ctx, "getAssetDescription", map[string]string{"assetID": asset}, &r)
	return Asset{ID: r.AssetID, Name: r.Name, Symbol: r.Symbol, Denomination: uint8(r.Denomination)}, err
}

// GetTxFee returns the fee of a transaction.
func (c *Client) GetTxFee(ctx context.Context) (uint64, error) {
	var r struct {
		TxFee jsonrpc.Uint64 `json:"txFee"`
	}
	err := c.call(ctx, "getTxFee", nil, &r)
	return uint64(r.TxFee), err
}

// GetHeight returns the height of the last accepted block.
func (c *Client) GetHeight(ctx context.Context) (uint64, error) {
	var r struct {
		Height jsonrpc.Uint64 `json:"height"`
	}
	err := c.call(ctx, "getHeight", nil, &r)
	return uint64(r.Height), err
}

// GetBlockByHeight returns the bytes of the block at a height.
func (c *Client) GetBlockByHeight(ctx context.Context, height uint64) ([]byte, error) {
	var r struct {
		Block string `json:"block"`
	}
	if err := c.call(ctx, "getBlockByHeight", map[string]any{"height": height, "encoding": "hex"}, &r); err != nil {
		return nil, err
	}
	return ids.DecodeHexWithChecksum(r.Block)
}
