package evm_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
)

// TestLogLimits: eth_getLogs refuses a block range wider than
// rpc-logs-block-range (invalid params) and more addresses than
// rpc-logs-query-limit (go-ethereum's -32000); a range within the limit is
// answered.
func TestLogLimits(t *testing.T) {
	c := startChain(t, 43112, `{"rpc-logs-block-range": 3, "rpc-logs-query-limit": 2, "block-production": "manual", "dev-api-enabled": true}`)
	for range 6 {
		mine(t, c.rpc)
	}
	ctx := t.Context()
	wantErr := func(what string, err error, code int, msg string) {
		t.Helper()
		var rpcErr rpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != code || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %d %q", what, err, code, msg)
		}
	}
	_, err := c.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(1), ToBlock: big.NewInt(5)})
	wantErr("range of 4", err, -32602, "exceed maximum block range 3")
	if _, err := c.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(2), ToBlock: big.NewInt(5)}); err != nil {
		t.Errorf("range of 3: %v", err)
	}
	// go-ethereum counts a range to "latest" as unbounded.
	_, err = c.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(5)})
	wantErr("range to latest", err, -32602, "exceed maximum block range 3")
	_, err = c.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(1), ToBlock: big.NewInt(1),
		Addresses: []common.Address{{1}, {2}, {3}}})
	wantErr("three addresses", err, -32000, "exceed max addresses or topics per search position")
}
