package evm_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// TestSetHeadRefused: debug_setHead is refused, saying what would allow it,
// on a chain without the dev API and on a node that keeps an index (the
// harness's host keeps one); the chain is unchanged.
func TestSetHeadRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"dev API off", "", []string{"rewinds the chain", "dev-api-enabled", "--index-enabled=false"}},
		{"index kept", `{"dev-api-enabled": true}`, []string{"keeps an index", "dev-api-enabled", "--index-enabled=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startChain(t, 43112, tc.config)
			waitReceipt(t, ctx, c.client, transfer(t, ctx, c.client, localKey(t), 0, common.Address{1}, big.NewInt(1)).Hash())
			head, err := c.client.BlockByNumber(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = c.rpc.CallContext(ctx, nil, "debug_setHead", "0x0")
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("debug_setHead: %v, want a refusal naming %q", err, w)
				}
			}
			if now, err := c.client.BlockByNumber(ctx, nil); err != nil || now.Hash() != head.Hash() {
				t.Fatalf("head after the refusal %v (%v), want %d %s", now.Number(), err, head.NumberU64(), head.Hash())
			}
		})
	}
}
