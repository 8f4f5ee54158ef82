// Package client is a Go client of the X-Chain API (docs/xvm.md), and a
// wallet on it: one key's balances, transfers, exports to another chain,
// imports from one and new assets, built and signed in avalanchego's
// formats. The
// chainhost command's `x` subcommands use it.
package client

import (
	"context"
	"net/http"

	"github.com/chainhost/chainhost/avax/utxoclient"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Client calls one X-Chain's API on a node, and the node's info API.
type Client struct {
	utxoclient.ChainConn
}

// namespace is the X-Chain API's.
const namespace = "avm"

// New returns a client of chain (an alias such as "X", or a chain ID) on
// the node at nodeURL ("http://127.0.0.1:9650"). httpClient nil means
// http.DefaultClient.
func New(nodeURL, chain string, httpClient *http.Client) *Client {
	return &Client{utxoclient.ChainConn{Conn: utxoclient.New(nodeURL, chain, "", namespace, httpClient)}}
}

// NewEndpoint returns a client of a chain API served at endpoint, whose
// addresses start with chainAlias; it reaches no info API, so a Wallet of
// it is built by hand rather than by NewWallet.
func NewEndpoint(endpoint, chainAlias string, httpClient *http.Client) *Client {
	return &Client{utxoclient.ChainConn{Conn: utxoclient.NewEndpoint(endpoint, chainAlias, namespace, httpClient)}}
}

// Page is a page of getUTXOs: the UTXOs, and where the next page starts.
type Page = utxoclient.Page

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
	if err := c.CallAPI(ctx, "getAllBalances", map[string]any{"address": addr, "includePartial": includePartial}, &r); err != nil {
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
	err := c.CallAPI(ctx, "getBalance", map[string]any{"address": addr, "assetID": asset}, &r)
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
	err := c.CallAPI(ctx, "getAssetDescription", map[string]string{"assetID": asset}, &r)
	return Asset{ID: r.AssetID, Name: r.Name, Symbol: r.Symbol, Denomination: uint8(r.Denomination)}, err
}

// GetTxFee returns the fee of a transaction, and that of a CreateAssetTx.
func (c *Client) GetTxFee(ctx context.Context) (txFee, createAssetTxFee uint64, err error) {
	var r struct {
		TxFee            jsonrpc.Uint64 `json:"txFee"`
		CreateAssetTxFee jsonrpc.Uint64 `json:"createAssetTxFee"`
	}
	err = c.CallAPI(ctx, "getTxFee", nil, &r)
	return uint64(r.TxFee), uint64(r.CreateAssetTxFee), err
}

// GetHeight returns the height of the last accepted block.
func (c *Client) GetHeight(ctx context.Context) (uint64, error) {
	var r struct {
		Height jsonrpc.Uint64 `json:"height"`
	}
	err := c.CallAPI(ctx, "getHeight", nil, &r)
	return uint64(r.Height), err
}

// GetBlockByHeight returns the bytes of the block at a height.
func (c *Client) GetBlockByHeight(ctx context.Context, height uint64) ([]byte, error) {
	var r struct {
		Block string `json:"block"`
	}
	if err := c.CallAPI(ctx, "getBlockByHeight", map[string]any{"height": height, "encoding": "hex"}, &r); err != nil {
		return nil, err
	}
	return ids.DecodeHexWithChecksum(r.Block)
}
