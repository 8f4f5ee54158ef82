package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/sdk/host"
)

// chainIDRequest asks an EVM chain for its EVM chain ID.
var chainIDRequest = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)

// evmChainID returns the EVM chain ID of an EVM chain, asked once through
// its internal indexer handler (docs/evm.md); ok is false for another
// chain, or one that does not answer now.
func (s *Server) evmChainID(ctx context.Context, c host.ChainInfo) (uint64, bool) {
	if c.VMName != evmapi.VMName || !slices.Contains(c.InternalHandlers, evmapi.IndexerHandler) {
		return 0, false
	}
	s.mu.Lock()
	id, ok := s.evmChain[c.ID]
	s.mu.Unlock()
	if ok {
		return id, true
	}
	status, body, err := s.opts.Host.Calls.Call(ctx, c.ID.String(), evmapi.IndexerHandler, chainIDRequest)
	if err != nil || status != http.StatusOK {
		s.opts.Logger.Debug("eth_chainId failed", "chain", c.ID, "status", status, "error", err)
		return 0, false
	}
	var answer struct {
		Result *hexutil.Uint64 `json:"result"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || answer.Result == nil {
		s.opts.Logger.Debug("eth_chainId answered no chain ID", "chain", c.ID, "body", string(body))
		return 0, false
	}
	s.mu.Lock()
	s.evmChain[c.ID] = uint64(*answer.Result)
	s.mu.Unlock()
	return uint64(*answer.Result), true
}
