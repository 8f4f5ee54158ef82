// Package pchain reads the P-Chain for the metrics module: the read
// methods of pvmapi on the P-Chain VM's internal indexer handler, through
// host chain calls (docs/pchain.md, "chainhost's read methods").
package pchain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Client calls one P-Chain.
type Client struct {
	calls host.ChainCaller
	chain string
}

// New returns a client of chain (its ID or alias) through calls.
func New(calls host.ChainCaller, chain string) Client { return Client{calls: calls, chain: chain} }

// request is a JSON-RPC request.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// response is a JSON-RPC response.
type response struct {
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// call calls method of the internal indexer handler with params and
// decodes its result into result. A JSON-RPC error is returned as a
// *jsonrpc.Error.
func (c Client) call(ctx context.Context, method string, params, result any) error {
	return c.callOn(ctx, pvmapi.IndexerHandler, method, params, result)
}

// callOn is call on the chain's handler named handler.
func (c Client) callOn(ctx context.Context, handler, method string, params, result any) error {
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: 1, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	status, answer, err := c.calls.Call(ctx, c.chain, handler, body)
	if err != nil {
		return fmt.Errorf("%s on chain %s: %w", method, c.chain, err)
	}
	var resp response
	if err := json.Unmarshal(answer, &resp); err != nil {
		return fmt.Errorf("%s on chain %s: HTTP %d, not a JSON-RPC answer: %w", method, c.chain, status, err)
	}
	if resp.Error != nil {
		return resp.Error
	}
	if status != http.StatusOK {
		return fmt.Errorf("%s on chain %s: HTTP %d", method, c.chain, status)
	}
	if err := json.Unmarshal(resp.Result, result); err != nil {
		return fmt.Errorf("%s on chain %s: decode the result: %w", method, c.chain, err)
	}
	return nil
}

// Code returns the JSON-RPC error code of err; 0 for an error that is not
// a JSON-RPC error (the call itself failed).
func Code(err error) int {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// StakingTotals returns every subnet's validators and delegators after
// the block at height.
func (c Client) StakingTotals(ctx context.Context, height uint64) (pvmapi.StakingTotals, error) {
	h := jsonrpc.Uint64(height)
	var out pvmapi.StakingTotals
	err := c.call(ctx, pvmapi.GetStakingTotalsMethod, pvmapi.StakingTotalsArgs{Height: &h}, &out)
	return out, err
}

// L1ValidatorFees returns what an L1 validator paid in the UTC days that
// meet [start, end] (end 0: now); an unknown validation ID is error
// pvmapi.CodeNotFound.
func (c Client) L1ValidatorFees(ctx context.Context, validationID string, start, end uint64) (pvmapi.L1ValidatorFees, error) {
	var out pvmapi.L1ValidatorFees
	err := c.call(ctx, pvmapi.GetL1ValidatorFeesMethod, pvmapi.FeesArgs{
		ValidationID: validationID, StartTime: jsonrpc.Uint64(start), EndTime: jsonrpc.Uint64(end),
	}, &out)
	return out, err
}

// L1FeeTotals returns what all L1 validators paid in the UTC days that
// meet [start, end] (end 0: now), and how many paid.
func (c Client) L1FeeTotals(ctx context.Context, start, end uint64) (pvmapi.FeeTotals, error) {
	var out pvmapi.FeeTotals
	err := c.call(ctx, pvmapi.GetL1FeeTotalsMethod, pvmapi.FeesArgs{StartTime: jsonrpc.Uint64(start), EndTime: jsonrpc.Uint64(end)}, &out)
	return out, err
}

// Time returns the P-Chain's time (unix seconds): the asOf of a fee
// totals answer for no day, which the chain gives without reading its
// fee records. It is the clock platform.getTimestamp answers on the
// chain's public handler; the module calls the internal indexer handler,
// which serves the read methods alone (docs/pchain.md).
func (c Client) Time(ctx context.Context) (uint64, error) {
	t, err := c.L1FeeTotals(ctx, math.MaxUint64, 0)
	return uint64(t.AsOf), err
}

// Blockchains returns the chains the P-Chain knows, each with its subnet
// (platform.getBlockchains of its public API).
func (c Client) Blockchains(ctx context.Context) ([]pvmapi.Blockchain, error) {
	var out struct {
		Blockchains []pvmapi.Blockchain `json:"blockchains"`
	}
	err := c.callOn(ctx, "", "platform.getBlockchains", struct{}{}, &out)
	return out.Blockchains, err
}

// Validations returns the validations the blocks from height on started,
// at most count blocks (pvmapi.MaxValidationBlocks); fewer at the end of
// the accepted blocks.
func (c Client) Validations(ctx context.Context, height uint64, count int) ([]pvmapi.BlockValidations, error) {
	var out []pvmapi.BlockValidations
	err := c.call(ctx, pvmapi.GetValidationsMethod, pvmapi.ValidationsArgs{Height: jsonrpc.Uint64(height), Count: jsonrpc.Uint64(count)}, &out)
	return out, err
}
