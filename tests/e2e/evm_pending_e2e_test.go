package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/chainhost/chainhost/core/nodetest"
)

// evmManualChain runs C alone, building blocks only on evm_mine.
func evmManualChain() string {
	return fmt.Sprintf(`
chains:
  - alias: C
    vm: evm
    genesis: %s
    config:
      block-production: manual
      dev-api-enabled: true
      cache-mb: 32
`, evmGenesis(evmChainID))
}

// evmPendingTx is the full form of a newPendingTransactions notification:
// the transaction as eth_getTransactionByHash returns it, without a block.
type evmPendingTx struct {
	Hash        common.Hash    `json:"hash"`
	From        common.Address `json:"from"`
	BlockHash   *common.Hash   `json:"blockHash"`
	BlockNumber *hexutil.Big   `json:"blockNumber"`
}

// TestEVMPendingTransactions: eth_subscribe newPendingTransactions over
// the host's WebSocket, in the hash form and the full-transaction form
// (`true`), notifies every transaction sent, once, as it enters the pool;
// the full form carries the transaction itself, signed as sent, with no
// block yet. Mining them notifies nothing more.
func TestEVMPendingTransactions(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: evmManualChain()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := evmDial(t, n, "C", "rpc")
	ws := evmDial(t, n, "C", "ws").Client()

	hashes := make(chan common.Hash, 64)
	hashSub, err := ws.EthSubscribe(ctx, hashes, "newPendingTransactions")
	if err != nil {
		t.Fatal(err)
	}
	defer hashSub.Unsubscribe()
	fulls := make(chan json.RawMessage, 64)
	fullSub, err := ws.EthSubscribe(ctx, fulls, "newPendingTransactions", true)
	if err != nil {
		t.Fatal(err)
	}
	defer fullSub.Unsubscribe()

	key := evmKey(t)
	from := common.HexToAddress(evmLocalAddr)
	to := common.HexToAddress("0x00000000000000000000000000000000000000dd")
	const count = 8
	sent := map[common.Hash]*types.Transaction{}
	for nonce := range uint64(count) {
		tx := evmTransfer(key, evmChainID, nonce, to, int64(100+nonce))
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send %d: %v", nonce, err)
		}
		sent[tx.Hash()] = tx
	}

	gotHash := map[common.Hash]int{}
	gotFull := map[common.Hash]int{}
	for len(gotHash) < count || len(gotFull) < count {
		select {
		case h := <-hashes:
			if sent[h] == nil {
				t.Fatalf("hash form: notified %s, which was not sent", h)
			}
			gotHash[h]++
		case raw := <-fulls:
			var p evmPendingTx
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatalf("full form: %s: %v", raw, err)
			}
			want := sent[p.Hash]
			if want == nil {
				t.Fatalf("full form: notified %s, which was not sent", p.Hash)
			}
			var tx types.Transaction
			if err := json.Unmarshal(raw, &tx); err != nil {
				t.Fatalf("full form: decode transaction %s: %v", raw, err)
			}
			// The hash recomputed from the notified fields and signature.
			if tx.Hash() != p.Hash || tx.Nonce() != want.Nonce() || tx.Value().Cmp(want.Value()) != 0 || *tx.To() != to {
				t.Fatalf("full form: %s differs from the transaction sent", raw)
			}
			if p.From != from || p.BlockHash != nil || p.BlockNumber != nil {
				t.Fatalf("full form: from %s, block %v %v; want %s and no block", p.From, p.BlockHash, p.BlockNumber, from)
			}
			gotFull[p.Hash]++
		case err := <-hashSub.Err():
			t.Fatalf("hash subscription: %v", err)
		case err := <-fullSub.Err():
			t.Fatalf("full subscription: %v", err)
		case <-ctx.Done():
			t.Fatalf("after %d hash and %d full notifications of %d transactions: %v", len(gotHash), len(gotFull), count, ctx.Err())
		}
	}

	// The transactions were pending: mining includes them all, and the
	// subscriptions notify nothing more (in particular no duplicate).
	var mined common.Hash
	if err := c.Client().CallContext(ctx, &mined, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	blk, err := c.BlockByHash(ctx, mined)
	if err != nil {
		t.Fatal(err)
	}
	if len(blk.Transactions()) != count {
		t.Fatalf("block %d holds %d transactions, want %d", blk.NumberU64(), len(blk.Transactions()), count)
	}
	for _, tx := range blk.Transactions() {
		if sent[tx.Hash()] == nil {
			t.Fatalf("block %d holds %s, which was not sent", blk.NumberU64(), tx.Hash())
		}
	}
	// One more transaction, after the mined ones: its notification must be
	// the next one on each subscription.
	last := evmTransfer(key, evmChainID, count, to, 1)
	if err := c.SendTransaction(ctx, last); err != nil {
		t.Fatal(err)
	}
	select {
	case h := <-hashes:
		if h != last.Hash() {
			t.Fatalf("hash form: after mining, notified %s (count %d before), want %s", h, gotHash[h], last.Hash())
		}
	case <-ctx.Done():
		t.Fatal("hash form: no notification for the last transaction")
	}
	select {
	case raw := <-fulls:
		var p evmPendingTx
		if err := json.Unmarshal(raw, &p); err != nil || p.Hash != last.Hash() {
			t.Fatalf("full form: after mining, notified %s (%v), want %s", raw, err, last.Hash())
		}
	case <-ctx.Done():
		t.Fatal("full form: no notification for the last transaction")
	}
	for h, k := range gotHash {
		if k != 1 || gotFull[h] != 1 {
			t.Fatalf("%s notified %d times in the hash form, %d in the full form; want once", h, k, gotFull[h])
		}
	}
	if _, err := c.TransactionReceipt(ctx, last.Hash()); err == nil {
		t.Fatal("the last transaction was mined without evm_mine")
	}
}
