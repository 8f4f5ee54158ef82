package fakeevm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
)

type rpcRequest struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// Serve answers a JSON-RPC body (one request or a batch) as the EVM's
// indexer handler would: HTTP status and body.
func (c *Chain) Serve(_ context.Context, body []byte) (int, []byte, error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var reqs []rpcRequest
		if err := json.Unmarshal(body, &reqs); err != nil {
			return 400, nil, nil
		}
		out := make([]rpcResponse, len(reqs))
		for i, r := range reqs {
			out[i] = c.answer(r)
		}
		b, err := json.Marshal(out)
		return 200, b, err
	}
	var req rpcRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return 400, nil, nil
	}
	b, err := json.Marshal(c.answer(req))
	return 200, b, err
}

func (c *Chain) answer(r rpcRequest) rpcResponse {
	res, err := c.dispatch(r)
	out := rpcResponse{JSONRPC: "2.0", ID: r.ID}
	if err != nil {
		out.Error = err
	} else {
		out.Result = res
	}
	return out
}

func (c *Chain) dispatch(r rpcRequest) (any, *rpcError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[r.Method]++
	head := uint64(len(c.blocks) - 1)
	switch r.Method {
	case "eth_chainId":
		return hexutil.Uint64(c.ID), nil
	case "eth_blockNumber":
		return hexutil.Uint64(head), nil
	case evmapi.GetBlocksMethod:
		var from, count hexutil.Uint64
		if len(r.Params) != 2 || json.Unmarshal(r.Params[0], &from) != nil || json.Unmarshal(r.Params[1], &count) != nil {
			return nil, &rpcError{-32602, "invalid params"}
		}
		if c.failNext > 0 {
			c.failNext--
			return nil, &rpcError{-32000, "injected failure"}
		}
		if c.empties > 0 && from > 0 {
			c.empties--
			return []evmapi.Block{}, nil
		}
		return c.getBlocks(uint64(from), uint64(count), head), nil
	case "eth_getBalance":
		var a common.Address
		if len(r.Params) != 2 || json.Unmarshal(r.Params[0], &a) != nil {
			return nil, &rpcError{-32602, "invalid params"}
		}
		n, err := c.stateAt(r.Params[1], head)
		if err != nil {
			return nil, err
		}
		return (*hexutil.Big)(at(c.native[a], n)), nil
	case "eth_call":
		var arg struct {
			To   common.Address `json:"to"`
			Data hexutil.Bytes  `json:"data"`
		}
		if len(r.Params) != 2 || json.Unmarshal(r.Params[0], &arg) != nil {
			return nil, &rpcError{-32602, "invalid params"}
		}
		n, err := c.stateAt(r.Params[1], head)
		if err != nil {
			return nil, err
		}
		return c.call(arg.To, arg.Data, n)
	}
	return nil, &rpcError{-32601, fmt.Sprintf("the method %s does not exist/is not available", r.Method)}
}

// blockArg reads a block parameter.
func blockArg(raw json.RawMessage, head uint64) (uint64, *rpcError) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, &rpcError{-32602, "invalid block"}
	}
	if s == "latest" {
		return head, nil
	}
	n, err := hexutil.DecodeUint64(s)
	if err != nil || n > head {
		return 0, &rpcError{-32000, "header not found"}
	}
	return n, nil
}

// stateAt reads a block parameter whose state is needed.
func (c *Chain) stateAt(raw json.RawMessage, head uint64) (uint64, *rpcError) {
	n, err := blockArg(raw, head)
	if err == nil && n < c.pruned {
		return 0, &rpcError{-32000, fmt.Sprintf("required historical state unavailable (reexec=%d)", n)}
	}
	return n, err
}

// getBlocks answers indexer_getBlocks.
func (c *Chain) getBlocks(from, count, head uint64) []evmapi.Block {
	maxTxs := c.MaxTxs
	if maxTxs == 0 {
		maxTxs = evmapi.MaxTransactions
	}
	out := []evmapi.Block{}
	if from == 0 && c.NoGenesis {
		from, count = 1, max(count, 1)-1
		if count == 0 {
			return out
		}
	}
	txs := 0
	for n := from; n <= head && n < from+min(count, evmapi.MaxBlocks); n++ {
		if len(out) > 0 && txs >= maxTxs {
			break
		}
		out = append(out, c.blocks[n])
		txs += len(c.blocks[n].Transactions)
	}
	return out
}

var (
	errRevert = &rpcError{3, "execution reverted"}
	selectors = map[string]string{
		"06fdde03": "name", "95d89b41": "symbol", "313ce567": "decimals", "c87b56dd": "tokenURI",
		"0e89341c": "uri", "01ffc9a7": "supportsInterface", "70a08231": "balanceOf", "00fdd58e": "balanceOf1155",
	}
)

// call answers an eth_call at block n.
func (c *Chain) call(to common.Address, data []byte, n uint64) (any, *rpcError) {
	tok := c.tokens[to]
	if tok == nil || len(data) < 4 {
		return hexutil.Bytes{}, nil // no code: an empty answer
	}
	arg := func(i int) []byte {
		if len(data) < 4+32*(i+1) {
			return make([]byte, 32)
		}
		return data[4+32*i : 4+32*(i+1)]
	}
	switch selectors[fmt.Sprintf("%x", data[:4])] {
	case "name":
		if tok.Kind == Plain || tok.Name == "" {
			return nil, errRevert
		}
		return abiString(tok.Name), nil
	case "symbol":
		if tok.Kind == Plain || tok.Symbol == "" {
			return nil, errRevert
		}
		return abiString(tok.Symbol), nil
	case "decimals":
		if tok.Kind != ERC20 {
			return nil, errRevert
		}
		return hexutil.Bytes(word(big.NewInt(int64(tok.Decimals)))), nil
	case "tokenURI", "uri":
		if tok.URI == nil {
			return nil, errRevert
		}
		uri := tok.URI(new(big.Int).SetBytes(arg(0)))
		if uri == "" {
			return nil, errRevert
		}
		return abiString(uri), nil
	case "supportsInterface":
		id := fmt.Sprintf("%x", arg(0)[:4])
		yes := (id == "80ac58cd" && tok.Kind == ERC721) || (id == "d9b67a26" && tok.Kind == ERC1155) || id == "01ffc9a7" && tok.Kind != Plain && tok.Kind != ERC20
		if tok.Kind == ERC20 || tok.Kind == Plain {
			return nil, errRevert
		}
		return hexutil.Bytes(word(boolInt(yes))), nil
	case "balanceOf":
		holder := common.BytesToAddress(arg(0))
		return hexutil.Bytes(word(at(c.balances[balKey{holder: holder, token: to}], n))), nil
	case "balanceOf1155":
		holder := common.BytesToAddress(arg(0))
		return hexutil.Bytes(word(at(c.balances[balKey{holder: holder, token: to, id: common.BytesToHash(arg(1))}], n))), nil
	}
	return nil, errRevert
}

func boolInt(b bool) *big.Int {
	if b {
		return big.NewInt(1)
	}
	return new(big.Int)
}

// abiString returns s as an ABI-encoded string return value.
func abiString(s string) hexutil.Bytes {
	out := append(word(big.NewInt(32)), word(big.NewInt(int64(len(s))))...)
	padded := make([]byte, (len(s)+31)/32*32)
	copy(padded, s)
	return append(out, padded...)
}
