// Package blockinfo is the light read of a chain's blocks that a VM offers
// modules on its internal indexer handler: the ID, height, time and
// transaction count of the blocks at positions of its block index
// (docs/modules.md, "Reading a chain's blocks"). The VM is the one
// authority on its block format, so a module reads what is in a block from
// the VM, never by decoding the index's bytes itself; the metrics module's
// throughput series are made of this read. The method's name, params and
// answer are defined here once, for the VMs that serve it (the shipped
// evm, xvm and pvm do) and the modules that call it.
package blockinfo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Handler is the internal handler that serves Method.
const Handler = "indexer"

// Method answers the blocks at positions of the chain's "block" index.
// Params: one Args (an object, or an array holding it). Result: []Block,
// the blocks from position From on, in order, at most Count and at most
// MaxBlocks of them; fewer at the end of what the VM accepted, none past
// it. The name fits go-ethereum's RPC server (namespace_method) as well as
// sdk/jsonrpc's.
const Method = "indexer_getBlockInfo"

// MaxBlocks is the most blocks one answer holds.
const MaxBlocks = 1024

// Args names the positions Method answers.
type Args struct {
	From  jsonrpc.Uint64 `json:"from"`
	Count jsonrpc.Uint64 `json:"count"`
}

// Block is what Method tells of one accepted block.
type Block struct {
	// Position is the block's position in the chain's block index.
	Position uint64 `json:"position"`
	ID       ids.ID `json:"id"`
	Height   uint64 `json:"height"`
	// Time is the block's own timestamp, unix seconds.
	Time int64 `json:"time"`
	// Txs is how many transactions it holds.
	Txs int `json:"txCount"`
}

// Answer is Method for a VM that has accepted the blocks at positions
// below accepted: it reads each block the answer holds with at.
func Answer(ctx context.Context, a Args, accepted uint64, at func(ctx context.Context, position uint64) (Block, error)) ([]Block, error) {
	from := uint64(a.From)
	if from >= accepted {
		return []Block{}, nil
	}
	n := min(uint64(a.Count), MaxBlocks, accepted-from)
	out := make([]Block, 0, n)
	for p := from; p < from+n; p++ {
		b, err := at(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("block at position %d: %w", p, err)
		}
		b.Position = p
		out = append(out, b)
	}
	return out, nil
}

// ErrNotServed is Get's error when the chain's VM does not serve Method.
var ErrNotServed = errors.New("the chain's VM does not serve " + Method)

// Get calls Method on chain (an ID or alias) through calls: the blocks at
// positions from on, at most count. It checks that the answer holds
// consecutive positions from from.
func Get(ctx context.Context, calls host.ChainCaller, chain string, from uint64, count int) ([]Block, error) {
	req := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  []Args `json:"params"`
	}{"2.0", 1, Method, []Args{{From: jsonrpc.Uint64(from), Count: jsonrpc.Uint64(count)}}}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Method, err)
	}
	status, answer, err := calls.Call(ctx, chain, Handler, body)
	if err != nil {
		return nil, fmt.Errorf("%s on chain %s: %w", Method, chain, err)
	}
	var resp struct {
		Result []Block        `json:"result"`
		Error  *jsonrpc.Error `json:"error"`
	}
	switch err := json.Unmarshal(answer, &resp); {
	case err == nil && resp.Error != nil && resp.Error.Code == jsonrpc.CodeMethodNotFound:
		return nil, fmt.Errorf("%s on chain %s: %w: %w", Method, chain, ErrNotServed, resp.Error)
	case err == nil && resp.Error != nil:
		return nil, fmt.Errorf("%s on chain %s: %w", Method, chain, resp.Error)
	case status != http.StatusOK:
		return nil, fmt.Errorf("%s on chain %s: HTTP %d: %.200s", Method, chain, status, answer)
	case err != nil:
		return nil, fmt.Errorf("%s on chain %s: decode the answer: %w", Method, chain, err)
	}
	if len(resp.Result) > count {
		return nil, fmt.Errorf("%s(%d, %d) on chain %s: %d blocks", Method, from, count, chain, len(resp.Result))
	}
	for i, b := range resp.Result {
		if b.Position != from+uint64(i) {
			return nil, fmt.Errorf("%s(%d, %d) on chain %s: position %d answered %d-th", Method, from, count, chain, b.Position, i)
		}
	}
	return resp.Result, nil
}
