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

// Owner is an owner as the API writes it.
type Owner struct {
	Locktime  jsonrpc.Uint64 `json:"locktime"`
	Threshold jsonrpc.Uint64 `json:"threshold"`
	Addresses []string       `json:"addresses"`
}

// Staker is a primary-network validator or delegator.
type Staker struct {
	TxID      ids.ID         `json:"txID"`
	NodeID    avax.NodeID    `json:"nodeID"`
	StartTime jsonrpc.Uint64 `json:"startTime"`
	EndTime   jsonrpc.Uint64 `json:"endTime"`
	Weight    jsonrpc.Uint64 `json:"weight"`
}

// Validator is a current primary-network validator with its delegators.
type Validator struct {
	Staker
	DelegationFee   string         `json:"delegationFee"`
	DelegatorCount  jsonrpc.Uint64 `json:"delegatorCount"`
	DelegatorWeight jsonrpc.Uint64 `json:"delegatorWeight"`
	Delegators      []Staker       `json:"delegators"`
	Signer          *struct {
		PublicKey string `json:"publicKey"`
	} `json:"signer"`
}

// L1Validator is an L1 validator; Balance is 0 when it is inactive.
type L1Validator struct {
	ValidationID          ids.ID         `json:"validationID"`
	SubnetID              ids.ID         `json:"subnetID"`
	NodeID                avax.NodeID    `json:"nodeID"`
	Weight                jsonrpc.Uint64 `json:"weight"`
	StartTime             jsonrpc.Uint64 `json:"startTime"`
	PublicKey             string         `json:"publicKey"`
	MinNonce              jsonrpc.Uint64 `json:"minNonce"`
	Balance               jsonrpc.Uint64 `json:"balance"`
	RemainingBalanceOwner Owner          `json:"remainingBalanceOwner"`
	DeactivationOwner     Owner          `json:"deactivationOwner"`
}

// GetCurrentValidators returns the primary network's current validators
// (nodeIDs empty: all of them).
func (c *Client) GetCurrentValidators(ctx context.Context, nodeIDs ...avax.NodeID) ([]Validator, error) {
	var r struct {
		Validators []Validator `json:"validators"`
	}
	err := c.CallAPI(ctx, "getCurrentValidators", map[string]any{"nodeIDs": nodeIDStrings(nodeIDs)}, &r)
	return r.Validators, err
}

// GetL1Validators returns an L1's validators, active and inactive.
func (c *Client) GetL1Validators(ctx context.Context, subnetID ids.ID) ([]L1Validator, error) {
	var r struct {
		Validators []L1Validator `json:"validators"`
	}
	if err := c.CallAPI(ctx, "getCurrentValidators", map[string]any{"subnetID": subnetID}, &r); err != nil {
		return nil, err
	}
	for i := range r.Validators {
		r.Validators[i].SubnetID = subnetID
	}
	return r.Validators, nil
}

func nodeIDStrings(list []avax.NodeID) []string {
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = n.String()
	}
	return out
}

// GetL1Validator returns an L1 validator by validation ID.
func (c *Client) GetL1Validator(ctx context.Context, id ids.ID) (L1Validator, error) {
	var r L1Validator
	err := c.CallAPI(ctx, "getL1Validator", map[string]any{"validationID": id}, &r)
	return r, err
}

// Subnet describes a subnet: its owner, and its manager once it is an L1.
type Subnet struct {
	IsPermissioned bool           `json:"isPermissioned"`
	ControlKeys    []string       `json:"controlKeys"`
	Threshold      jsonrpc.Uint64 `json:"threshold"`
	ConversionID   ids.ID         `json:"conversionID"`
	ManagerChainID ids.ID         `json:"managerChainID"`
	ManagerAddress string         `json:"managerAddress"`
}

// GetSubnet describes a subnet.
func (c *Client) GetSubnet(ctx context.Context, id ids.ID) (Subnet, error) {
	var r Subnet
	err := c.CallAPI(ctx, "getSubnet", map[string]any{"subnetID": id}, &r)
	return r, err
}

// Blockchain is a chain the P-Chain knows, with its subnet.
type Blockchain struct {
	ID       ids.ID `json:"id"`
	Name     string `json:"name"`
	SubnetID ids.ID `json:"subnetID"`
	VMID     ids.ID `json:"vmID"`
}

// GetBlockchains returns the chains the P-Chain knows.
func (c *Client) GetBlockchains(ctx context.Context) ([]Blockchain, error) {
	var r struct {
		Blockchains []Blockchain `json:"blockchains"`
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
