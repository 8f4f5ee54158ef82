package series

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// The topics of the token transfer events the active addresses count
// (docs/metrics-api.md, "Chain metrics").
var (
	// Transfer(address indexed from, address indexed to, ...) of ERC-20
	// and ERC-721.
	transferTopic = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
	// TransferSingle and TransferBatch(address indexed operator, address
	// indexed from, address indexed to, ...) of ERC-1155.
	transferSingleTopic = common.HexToHash("0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62")
	transferBatchTopic  = common.HexToHash("0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb")
)

// evmCounts is what the series count of an EVM block: its time, its
// transactions and its chain metrics.
func evmCounts(b *evmapi.Block) store.Block {
	e := &store.EVMBlock{GasUsed: uint64(b.GasUsed), Txs: make([]store.EVMTx, len(b.Transactions))}
	for i := range b.Transactions {
		tx := &b.Transactions[i]
		e.Txs[i] = store.EVMTx{From: tx.From, To: tx.To, GasUsed: uint64(tx.GasUsed), GasPrice: (*big.Int)(tx.GasPrice)}
		for _, l := range tx.Logs {
			if len(l.Topics) == 0 {
				continue
			}
			switch t := l.Topics; {
			case t[0] == transferTopic && len(t) >= 3:
				e.Transfers = append(e.Transfers, [2]common.Address{common.BytesToAddress(t[1][:]), common.BytesToAddress(t[2][:])})
			case (t[0] == transferSingleTopic || t[0] == transferBatchTopic) && len(t) >= 4:
				e.Transfers = append(e.Transfers, [2]common.Address{common.BytesToAddress(t[2][:]), common.BytesToAddress(t[3][:])})
			}
		}
		e.Deployers = appendDeployers(e.Deployers, tx)
	}
	return store.Block{Time: int64(b.Timestamp), Txs: len(b.Transactions), EVM: e}
}

// appendDeployers appends the creator of each contract tx created: its
// CREATE and CREATE2 frames that were not undone, neither by their own
// failure nor by that of a frame above them.
func appendDeployers(out []common.Address, tx *evmapi.Transaction) []common.Address {
	undone := -1 // the depth of the failed frame whose subtree is being skipped
	for _, f := range tx.Calls {
		if undone >= 0 && f.Depth > undone {
			continue
		}
		undone = -1
		if f.Reverted {
			undone = f.Depth
			continue
		}
		if f.Type == evmapi.CreateType || f.Type == evmapi.Create2Type {
			out = append(out, f.From)
		}
	}
	return out
}

// getEVMBlocks calls evmapi.GetBlocksMethod on a chain of the node: the
// blocks numbered from on, at most count (fewer at the head of the chain
// or past evmapi.MaxTransactions).
func getEVMBlocks(ctx context.Context, calls host.ChainCaller, chain string, from uint64, count int) ([]evmapi.Block, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": evmapi.GetBlocksMethod,
		"params": []hexutil.Uint64{hexutil.Uint64(from), hexutil.Uint64(count)}})
	if err != nil {
		return nil, err
	}
	status, answer, err := calls.Call(ctx, chain, evmapi.IndexerHandler, body)
	if err != nil {
		return nil, fmt.Errorf("%s on chain %s: %w", evmapi.GetBlocksMethod, chain, err)
	}
	var resp struct {
		Result []evmapi.Block `json:"result"`
		Error  *jsonrpc.Error `json:"error"`
	}
	switch err := json.Unmarshal(answer, &resp); {
	case err == nil && resp.Error != nil:
		return nil, fmt.Errorf("%s on chain %s: %w", evmapi.GetBlocksMethod, chain, resp.Error)
	case status != http.StatusOK:
		return nil, fmt.Errorf("%s on chain %s: HTTP %d: %.200s", evmapi.GetBlocksMethod, chain, status, answer)
	case err != nil:
		return nil, fmt.Errorf("%s on chain %s: decode the answer: %w", evmapi.GetBlocksMethod, chain, err)
	}
	if len(resp.Result) > count {
		return nil, fmt.Errorf("%s(%d, %d) on chain %s: %d blocks", evmapi.GetBlocksMethod, from, count, chain, len(resp.Result))
	}
	for i, b := range resp.Result {
		if uint64(b.Number) != from+uint64(i) {
			return nil, fmt.Errorf("%s(%d, %d) on chain %s: block %d answered %d-th", evmapi.GetBlocksMethod, from, count, chain, b.Number, i)
		}
	}
	return resp.Result, nil
}
