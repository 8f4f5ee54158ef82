// Package evmrpc calls an EVM chain's internal indexer handler
// (evmapi.IndexerHandler) through the host's chain calls: the bulk block
// read indexer_getBlocks, eth_chainId, eth_getBalance and batches of
// eth_call.
package evmrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/sdk/host"
)

// maxBatch is the most calls one JSON-RPC batch carries: the EVM's default
// api-max-batch-size.
const maxBatch = 40

// Error is a JSON-RPC error the chain answered.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error returns the message with its code.
func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Reverted reports whether err is a call that the contract reverted (or
// that hit no code), as opposed to one the node could not run.
func Reverted(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Code == 3 || strings.Contains(e.Message, "execution reverted"))
}

// Client calls one chain's indexer handler.
type Client struct {
	calls host.ChainCaller
	chain string
}

// New returns a client of chain (an ID or alias) through calls.
func New(calls host.ChainCaller, chain string) *Client {
	return &Client{calls: calls, chain: chain}
}

// request is a JSON-RPC request.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

// response is a JSON-RPC response.
type response struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// post sends body to the handler and returns the answer.
func (c *Client) post(ctx context.Context, body []byte) ([]byte, error) {
	status, resp, err := c.calls.Call(ctx, c.chain, evmapi.IndexerHandler, body)
	if err != nil {
		return nil, fmt.Errorf("chain %s: %w", c.chain, err)
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("chain %s: %s answered HTTP %d: %.200s", c.chain, evmapi.IndexerHandler, status, resp)
	}
	return resp, nil
}

// call makes one call and decodes its result into out.
func (c *Client) call(ctx context.Context, out any, method string, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: 1, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	raw, err := c.post(ctx, body)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var resp response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return fmt.Errorf("%s: chain %s answered %.200q: %w", method, c.chain, raw, err)
	}
	if resp.Error != nil {
		return fmt.Errorf("%s: %w", method, resp.Error)
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("%s: decode result: %w", method, err)
	}
	return nil
}

// ChainID returns the chain's EVM chain ID.
func (c *Client) ChainID(ctx context.Context) (uint64, error) {
	var id hexutil.Uint64
	err := c.call(ctx, &id, "eth_chainId")
	return uint64(id), err
}

// GetBlocks returns the accepted blocks from number from on, at most count
// of them; fewer at the head of the chain or when the answer reached
// evmapi.MaxTransactions.
func (c *Client) GetBlocks(ctx context.Context, from, count uint64) ([]evmapi.Block, error) {
	var blocks []evmapi.Block
	err := c.call(ctx, &blocks, evmapi.GetBlocksMethod, hexutil.Uint64(from), hexutil.Uint64(count))
	return blocks, err
}

// blockParam spells a block number for a call; nil is "latest".
func blockParam(block *uint64) string {
	if block == nil {
		return "latest"
	}
	return hexutil.EncodeUint64(*block)
}

// Balance returns addr's native balance after block (nil: latest).
func (c *Client) Balance(ctx context.Context, addr common.Address, block *uint64) (*big.Int, error) {
	var bal hexutil.Big
	if err := c.call(ctx, &bal, "eth_getBalance", addr, blockParam(block)); err != nil {
		return nil, err
	}
	return (*big.Int)(&bal), nil
}

// Call is one eth_call: data to contract To at Block (nil: latest).
type Call struct {
	To    common.Address
	Data  []byte
	Block *uint64
}

// Result is the answer to one Call: its return data, or why there is none
// (Reverted tells a revert from a failure to run it).
type Result struct {
	Data []byte
	Err  error
}

// CallMany runs calls in batches of maxBatch and returns their results in
// order. The error is for a batch that failed whole (the chain is
// unreachable); a call that failed alone has its Result.Err.
func (c *Client) CallMany(ctx context.Context, calls []Call) ([]Result, error) {
	out := make([]Result, len(calls))
	for start := 0; start < len(calls); start += maxBatch {
		end := min(start+maxBatch, len(calls))
		if err := c.callBatch(ctx, calls[start:end], out[start:end]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// callBatch runs one batch into out.
func (c *Client) callBatch(ctx context.Context, calls []Call, out []Result) error {
	reqs := make([]request, len(calls))
	for i, call := range calls {
		arg := map[string]any{"to": call.To, "data": hexutil.Bytes(call.Data)}
		reqs[i] = request{JSONRPC: "2.0", ID: i, Method: "eth_call", Params: []any{arg, blockParam(call.Block)}}
	}
	body, err := json.Marshal(reqs)
	if err != nil {
		return fmt.Errorf("eth_call batch: %w", err)
	}
	raw, err := c.post(ctx, body)
	if err != nil {
		return fmt.Errorf("eth_call batch: %w", err)
	}
	var resps []response
	if err := json.Unmarshal(bytes.TrimSpace(raw), &resps); err != nil {
		return fmt.Errorf("eth_call batch: chain %s answered %.200q: %w", c.chain, raw, err)
	}
	answered := make([]bool, len(calls))
	for _, r := range resps {
		if r.ID < 0 || r.ID >= len(calls) {
			continue
		}
		answered[r.ID] = true
		if r.Error != nil {
			out[r.ID] = Result{Err: r.Error}
			continue
		}
		var data hexutil.Bytes
		if err := json.Unmarshal(r.Result, &data); err != nil {
			out[r.ID] = Result{Err: fmt.Errorf("decode eth_call result: %w", err)}
			continue
		}
		out[r.ID] = Result{Data: data}
	}
	for i, ok := range answered {
		if !ok {
			return fmt.Errorf("eth_call batch: chain %s left call %s unanswered", c.chain, strconv.Itoa(i))
		}
	}
	return nil
}

// BlockNumber returns the number of the chain's head block.
func (c *Client) BlockNumber(ctx context.Context) (uint64, error) {
	var n hexutil.Uint64
	err := c.call(ctx, &n, "eth_blockNumber")
	return uint64(n), err
}
