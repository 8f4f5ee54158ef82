package evm_test

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// TestTransferAndIndex: a signed transfer is mined in auto mode, its
// receipt is there, and every block is in the index in order, with its hash
// as ID and its RLP as bytes.
func TestTransferAndIndex(t *testing.T) {
	c := startChain(t, 43112, "")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	id, err := c.client.ChainID(ctx)
	if err != nil || id.Uint64() != 43112 {
		t.Fatalf("chain id %v, %v", id, err)
	}
	key := localKey(t)
	to := common.HexToAddress("0x0100000000000000000000000000000000000001")
	var last *types.Transaction
	for n := uint64(0); n < 3; n++ {
		last = transfer(t, ctx, c.client, key, n, to, big.NewInt(1000))
	}
	r := waitReceipt(t, ctx, c.client, last.Hash())
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("receipt status %d", r.Status)
	}
	bal, err := c.client.BalanceAt(ctx, to, nil)
	if err != nil || bal.Int64() != 3000 {
		t.Fatalf("balance %v, %v", bal, err)
	}
	head, err := c.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Eventually(t, 10*time.Second, func() error {
		if got := uint64(len(c.h.Containers(evm.Kind))); got < head {
			return fmt.Errorf("index holds %d blocks, head is %d", got, head)
		}
		return nil
	})
	cts := c.h.Containers(evm.Kind)
	if uint64(len(cts)) != head {
		t.Fatalf("index holds %d blocks, head is %d", len(cts), head)
	}
	for i, ct := range cts {
		blk, err := c.client.BlockByNumber(ctx, big.NewInt(int64(i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if common.Hash(ct.ID) != blk.Hash() {
			t.Fatalf("index %d: id %x, block %d hash %s", i, ct.ID, i+1, blk.Hash())
		}
		var dec types.Block
		if err := rlp.DecodeBytes(ct.Bytes, &dec); err != nil || dec.Hash() != blk.Hash() {
			t.Fatalf("index %d: bytes decode to %v, %v", i, dec.Hash(), err)
		}
		got, err := c.h.GetAccepted(ctx, evm.Kind, uint64(i))
		if err != nil || got.ID != ct.ID || !bytes.Equal(got.Bytes, ct.Bytes) {
			t.Fatalf("GetAccepted(%d) = %x, %v", i, got.ID, err)
		}
	}
	if n, err := c.h.AcceptedCount(ctx, evm.Kind); err != nil || n != head {
		t.Fatalf("AcceptedCount = %d, %v; want %d", n, err, head)
	}
}
