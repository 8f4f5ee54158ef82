// Package client is a Go client of the P-Chain API (docs/pchain.md), and a
// wallet on it: one key's balance, validators and delegators, subnets and
// L1 validators, built and signed in avalanchego's formats. The chainhost
// command's `p` subcommands use it.
package client

import (
	"context"
	"net/http"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Client calls one P-Chain's API on a node, and the node's info API.
type Client struct {
	utxoclient.ChainConn
}

// namespace is the P-Chain API's.
const namespace = "platform"

// New returns a client of chain (an alias such as "P", or a chain ID) on
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

// GetTx returns an accepted transaction.
func (c *Client) GetTx(ctx context.Context, id ids.ID) (*txs.Tx, error) {
	b, err := c.ChainConn.GetTx(ctx, id)
	if err != nil {
		return nil, err
	}
	return txs.Parse(b)
}

// GetTimestamp returns the chain's time.
func (c *Client) GetTimestamp(ctx context.Context) (time.Time, error) {
	var r struct {
		Timestamp time.Time `json:"timestamp"`
	}
	err := c.CallAPI(ctx, "getTimestamp", nil, &r)
	return r.Timestamp, err
}

// Balance is what addresses hold: unlocked, and locked until a later time.
type Balance struct {
	Unlocked           uint64
	LockedNotStakeable uint64
}

// GetBalance returns what addresses hold.
func (c *Client) GetBalance(ctx context.Context, addrs []string) (Balance, error) {
	var r struct {
		Unlocked           jsonrpc.Uint64 `json:"unlocked"`
		LockedNotStakeable jsonrpc.Uint64 `json:"lockedNotStakeable"`
	}
	err := c.CallAPI(ctx, "getBalance", map[string]any{"addresses": addrs}, &r)
	return Balance{Unlocked: uint64(r.Unlocked), LockedNotStakeable: uint64(r.LockedNotStakeable)}, err
}

// GetCurrentValidators returns the primary network's current validators
// (nodeIDs empty: all of them).
func (c *Client) GetCurrentValidators(ctx context.Context, nodeIDs ...avax.NodeID) ([]pvmapi.Validator, error) {
	var r struct {
		Validators []pvmapi.Validator `json:"validators"`
	}
	err := c.CallAPI(ctx, "getCurrentValidators", map[string]any{"nodeIDs": nodeIDStrings(nodeIDs)}, &r)
	return r.Validators, err
}

// GetL1Validators returns an L1's validators, active and inactive.
func (c *Client) GetL1Validators(ctx context.Context, subnetID ids.ID) ([]pvmapi.L1Validator, error) {
	var r struct {
		Validators []pvmapi.L1Validator `json:"validators"`
	}
	err := c.CallAPI(ctx, "getCurrentValidators", map[string]any{"subnetID": subnetID}, &r)
	return r.Validators, err
}

func nodeIDStrings(list []avax.NodeID) []string {
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = n.String()
	}
	return out
}

// GetL1Validator returns an L1 validator by validation ID.
func (c *Client) GetL1Validator(ctx context.Context, id ids.ID) (pvmapi.L1ValidatorReply, error) {
	var r pvmapi.L1ValidatorReply
	err := c.CallAPI(ctx, "getL1Validator", map[string]any{"validationID": id}, &r)
	return r, err
}

// GetSubnet describes a subnet.
func (c *Client) GetSubnet(ctx context.Context, id ids.ID) (pvmapi.Subnet, error) {
	var r pvmapi.Subnet
	err := c.CallAPI(ctx, "getSubnet", map[string]any{"subnetID": id}, &r)
	return r, err
}

// GetBlockchains returns the chains the P-Chain knows.
func (c *Client) GetBlockchains(ctx context.Context) ([]pvmapi.Blockchain, error) {
	var r struct {
		Blockchains []pvmapi.Blockchain `json:"blockchains"`
	}
	err := c.CallAPI(ctx, "getBlockchains", nil, &r)
	return r.Blockchains, err
}

// GetConfig returns the chain's fees and staking rules.
func (c *Client) GetConfig(ctx context.Context) (pvmapi.Config, error) {
	return utxoclient.Result[pvmapi.Config](ctx, c.Conn, pvmapi.GetConfigMethod, nil)
}

// GetStakingTotals returns the subnets' validators and delegators at a
// time or height (pvmapi.StakingTotalsArgs).
func (c *Client) GetStakingTotals(ctx context.Context, args pvmapi.StakingTotalsArgs) (pvmapi.StakingTotals, error) {
	return utxoclient.Result[pvmapi.StakingTotals](ctx, c.Conn, pvmapi.GetStakingTotalsMethod, args)
}

// GetL1ValidatorFees returns what an L1 validator paid per UTC day.
func (c *Client) GetL1ValidatorFees(ctx context.Context, args pvmapi.FeesArgs) (pvmapi.L1ValidatorFees, error) {
	return utxoclient.Result[pvmapi.L1ValidatorFees](ctx, c.Conn, pvmapi.GetL1ValidatorFeesMethod, args)
}

// GetL1FeeTotals returns what all L1 validators paid per UTC day.
func (c *Client) GetL1FeeTotals(ctx context.Context, args pvmapi.FeesArgs) (pvmapi.FeeTotals, error) {
	return utxoclient.Result[pvmapi.FeeTotals](ctx, c.Conn, pvmapi.GetL1FeeTotalsMethod, args)
}

// IncreaseTime moves the chain's clock forward (a dev method) and returns
// its new time.
func (c *Client) IncreaseTime(ctx context.Context, seconds uint64) (uint64, error) {
	var r pvmapi.TimeReply
	err := c.Call(ctx, pvmapi.IncreaseTimeMethod, map[string]any{"seconds": seconds}, &r)
	return uint64(r.Time), err
}

// SetTime moves the chain's clock to t (a dev method).
func (c *Client) SetTime(ctx context.Context, t uint64) (uint64, error) {
	var r pvmapi.TimeReply
	err := c.Call(ctx, pvmapi.SetTimeMethod, map[string]any{"time": t}, &r)
	return uint64(r.Time), err
}
