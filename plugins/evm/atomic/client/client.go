// Package client is a Go client of an EVM chain's atomic API
// (/ext/bc/<chain>/avax, docs/evm.md) and a wallet of one key on it: it
// builds, signs and issues imports into the chain and exports from it in
// coreth's formats, paying the chain's atomic fee. The chainhost command's
// `c` subcommands use it, with the X-Chain's client for the other side.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/utxoclient"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Client calls one EVM chain's atomic API and the few EVM methods a wallet
// needs (balance, nonce, base fee, the fee rule).
type Client struct {
	utxoclient.Conn
	rpc, admin string
	http       *http.Client
}

// namespace is the atomic API's.
const namespace = "avax"

// New returns a client of chain (an alias such as "C", or a chain ID) on
// the node at nodeURL. httpClient nil means http.DefaultClient.
func New(nodeURL, chain string, httpClient *http.Client) *Client {
	base := strings.TrimRight(nodeURL, "/") + "/ext/bc/" + chain + "/"
	return &Client{Conn: utxoclient.New(nodeURL, chain, "/avax", namespace, httpClient), rpc: base + "rpc", admin: base + "admin", http: httpClient}
}

// NewEndpoints returns a client of a chain whose atomic API, JSON-RPC and
// administration are served at the given URLs, and whose addresses start
// with chainAlias.
func NewEndpoints(avaxURL, rpcURL, adminURL, chainAlias string, httpClient *http.Client) *Client {
	return &Client{Conn: utxoclient.NewEndpoint(avaxURL, chainAlias, namespace, httpClient), rpc: rpcURL, admin: adminURL, http: httpClient}
}

// Status is an atomic transaction's status: Accepted (with the height of
// its block), Processing, Dropped or Unknown.
type Status struct {
	Status string
	Height uint64
}

// GetAtomicTxStatus returns a transaction's status.
func (c *Client) GetAtomicTxStatus(ctx context.Context, id ids.ID) (Status, error) {
	var r struct {
		Status      string          `json:"status"`
		BlockHeight *jsonrpc.Uint64 `json:"blockHeight"`
	}
	if err := c.CallAPI(ctx, "getAtomicTxStatus", map[string]string{"txID": id.String()}, &r); err != nil {
		return Status{}, err
	}
	s := Status{Status: r.Status}
	if r.BlockHeight != nil {
		s.Height = uint64(*r.BlockHeight)
	}
	return s, nil
}

// GetAtomicTx returns the bytes of a transaction the chain knows.
func (c *Client) GetAtomicTx(ctx context.Context, id ids.ID) ([]byte, error) {
	return c.GetTxBytes(ctx, "getAtomicTx", id)
}

// pollEvery spaces the status reads of WaitAccepted.
const pollEvery = 50 * time.Millisecond

// ErrDropped is matched by the error of WaitAccepted for a transaction
// the chain dropped: it met a conflict after it was issued.
var ErrDropped = errors.New("atomic transaction dropped")

// WaitAccepted polls a transaction's status until it is Accepted and
// returns the height of its block.
func (c *Client) WaitAccepted(ctx context.Context, id ids.ID) (uint64, error) {
	for {
		s, err := c.GetAtomicTxStatus(ctx, id)
		if err != nil {
			return 0, err
		}
		switch s.Status {
		case "Accepted":
			return s.Height, nil
		case "Dropped":
			return 0, fmt.Errorf("tx %s: %w", id, ErrDropped)
		case "Unknown":
			return 0, fmt.Errorf("tx %s: the chain does not know it (lost from its mempool in a restart?)", id)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("tx %s is still %s: %w", id, s.Status, ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// Balance returns an account's EVM balance at the head, in wei.
func (c *Client) Balance(ctx context.Context, addr common.Address) (*big.Int, error) {
	var r hexutil.Big
	if err := jsonrpc.Call(ctx, c.http, c.rpc, "eth_getBalance", []any{addr, "latest"}, &r); err != nil {
		return nil, err
	}
	return r.ToInt(), nil
}

// Nonce returns an account's nonce at the head.
func (c *Client) Nonce(ctx context.Context, addr common.Address) (uint64, error) {
	var r hexutil.Uint64
	err := jsonrpc.Call(ctx, c.http, c.rpc, "eth_getTransactionCount", []any{addr, "latest"}, &r)
	return uint64(r), err
}

// BaseFee returns the base fee of the next block, in wei (eth_baseFee).
func (c *Client) BaseFee(ctx context.Context) (*big.Int, error) {
	var r hexutil.Big
	if err := jsonrpc.Call(ctx, c.http, c.rpc, "eth_baseFee", []any{}, &r); err != nil {
		return nil, err
	}
	return r.ToInt(), nil
}

// FeeRule is the chain's fee rule of atomic transactions: coreth's dynamic
// fee (gas × base fee), or a fixed fee in nAVAX.
type FeeRule struct {
	Dynamic bool
	Fixed   uint64
}

// FeeRule reads the chain's atomic-tx-fee (admin_getVMConfig).
func (c *Client) FeeRule(ctx context.Context) (FeeRule, error) {
	var r struct {
		Config struct {
			Fee json.RawMessage `json:"atomic-tx-fee"`
		} `json:"config"`
	}
	if err := jsonrpc.Call(ctx, c.http, c.admin, "admin_getVMConfig", []any{}, &r); err != nil {
		return FeeRule{}, fmt.Errorf("the chain's atomic fee: %w", err)
	}
	var s string
	if json.Unmarshal(r.Config.Fee, &s) == nil && s == "dynamic" {
		return FeeRule{Dynamic: true}, nil
	}
	var n uint64
	if err := json.Unmarshal(r.Config.Fee, &n); err != nil {
		return FeeRule{}, fmt.Errorf("the chain's atomic fee: %s is not \"dynamic\" or a number", r.Config.Fee)
	}
	return FeeRule{Fixed: n}, nil
}
