package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/chainhost/chainhost/core/nodetest"
)

// transferOut is a transfer sent to a new address, with the block it
// landed in.
type transferOut struct {
	tx    *types.Transaction
	to    common.Address
	block uint64
}

// sendTransfers sends k transfers from the local key, each to a new
// address and waited for, so that automine puts each in its own block.
func sendTransfers(t *testing.T, ctx context.Context, eth *ethclient.Client, k int) []transferOut {
	t.Helper()
	key := evmKey(t)
	nonce, err := eth.PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]transferOut, k)
	for i := range out {
		to := newAddress(t)
		tx := evmTransfer(key, evmChainID, nonce+uint64(i), to, int64(1000+i))
		if err := eth.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		out[i] = transferOut{tx: tx, to: to, block: evmReceipt(t, ctx, eth, tx.Hash()).BlockNumber.Uint64()}
	}
	return out
}

// checkIncluded checks that each transfer is in the chain at its block,
// and its recipient holds its value.
func checkIncluded(t *testing.T, ctx context.Context, eth *ethclient.Client, txs []transferOut) {
	t.Helper()
	for _, s := range txs {
		r, err := eth.TransactionReceipt(ctx, s.tx.Hash())
		if err != nil || r.BlockNumber.Uint64() != s.block || r.BlockHash != headerAt(t, eth, s.block).Hash() {
			t.Fatalf("transfer %s: receipt %+v (%v), want in block %d", s.tx.Hash(), r, err, s.block)
		}
		if bal, err := eth.BalanceAt(ctx, s.to, nil); err != nil || bal.Cmp(s.tx.Value()) != 0 {
			t.Fatalf("balance of %s: %v (%v), want %v", s.to, bal, err, s.tx.Value())
		}
	}
}

// checkGone checks that the transfers of an abandoned branch are in no
// block and in no pool, and that their recipients hold nothing.
func checkGone(t *testing.T, ctx context.Context, eth *ethclient.Client, txs []transferOut) {
	t.Helper()
	for _, s := range txs {
		if tx, _, err := eth.TransactionByHash(ctx, s.tx.Hash()); !errors.Is(err, ethereum.NotFound) {
			t.Fatalf("abandoned transfer %s: eth_getTransactionByHash %v (%v), want null", s.tx.Hash(), tx, err)
		}
		if r, err := eth.TransactionReceipt(ctx, s.tx.Hash()); !errors.Is(err, ethereum.NotFound) {
			t.Fatalf("abandoned transfer %s: receipt %+v (%v), want null", s.tx.Hash(), r, err)
		}
		if bal, err := eth.BalanceAt(ctx, s.to, nil); err != nil || bal.Sign() != 0 {
			t.Fatalf("balance of %s, the recipient of an abandoned transfer: %v (%v), want 0", s.to, bal, err)
		}
	}
}

// setHead calls debug_setHead.
func setHead(ctx context.Context, eth *ethclient.Client, number uint64) error {
	return eth.Client().CallContext(ctx, nil, "debug_setHead", hexutil.Uint64(number))
}

// TestEVMSetHead: on a node without an index, with C's dev API on,
// debug_setHead rewinds C, and the blocks built next make a reorg that a
// client following by parent hash sees: of depth 1 by hand, and of depth
// 10 with reorgC, with transactions on both branches. The abandoned
// transactions are gone and balances follow; automine builds on the new
// head; a rewind past a block with atomic transactions is refused; a
// restart keeps the new chain, and the chain goes on.
func TestEVMSetHead(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: atomicXC(""), Args: []string{"--index-enabled=false"}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	eth := evmDial(t, n, "C", "rpc")

	// An import from X: a block with atomic transactions.
	x := xchainWallet(t, n, "X", ewoqKey)
	c := cWallet(t, n, x, x.Key)
	if _, err := x.Export(ctx, c.Ctx.ChainID, x.FeeAsset, 3_000_000_000, x.Address()); err != nil {
		t.Fatal(err)
	}
	imp, err := c.Import(ctx, "X", x.ChainID, c.EVMAddress())
	if err != nil {
		t.Fatal(err)
	}
	impStatus, err := c.Client.GetAtomicTxStatus(ctx, imp)
	if err != nil || impStatus.Status != "Accepted" {
		t.Fatalf("import status %+v (%v)", impStatus, err)
	}
	branch := sendTransfers(t, ctx, eth, 12)

	// Depth 1, by hand.
	head := branch[len(branch)-1].block
	oldTip := headerAt(t, eth, head)
	if err := setHead(ctx, eth, head-1); err != nil {
		t.Fatalf("debug_setHead(%d): %v", head-1, err)
	}
	if now, err := eth.BlockNumber(ctx); err != nil || now != head-1 {
		t.Fatalf("eth_blockNumber after debug_setHead(%d): %d (%v)", head-1, now, err)
	}
	if h, err := eth.HeaderByNumber(ctx, new(big.Int).SetUint64(head)); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("block %d after the rewind: %v (%v), want null", head, h, err)
	}
	checkGone(t, ctx, eth, branch[len(branch)-1:])
	replaced := sendTransfers(t, ctx, eth, 1)
	tip := headerAt(t, eth, head)
	if replaced[0].block != head || tip.Hash() == oldTip.Hash() || tip.ParentHash != oldTip.ParentHash {
		t.Fatalf("new block %d %s (parent %s) holding the new transfer at %d; the old was %s (parent %s)",
			head, tip.Hash(), tip.ParentHash, replaced[0].block, oldTip.Hash(), oldTip.ParentHash)
	}
	checkGone(t, ctx, eth, branch[len(branch)-1:])
	checkIncluded(t, ctx, eth, append(branch[:len(branch)-1:len(branch)-1], replaced...))

	// Depth 10, with the helper the data-module tests use.
	abandoned := append(branch[len(branch)-10:len(branch)-1:len(branch)-1], replaced...)
	kept := branch[:len(branch)-10]
	newHead := reorgC(t, n, 10)
	if newHead.Number.Uint64() != head+1 {
		t.Fatalf("head after a reorg of depth 10 from %d: %d, want %d", head, newHead.Number, head+1)
	}
	for b := head - 9; b <= head+1; b++ {
		if h := headerAt(t, eth, b); h.ParentHash != headerAt(t, eth, b-1).Hash() {
			t.Fatalf("block %d's parent %s is not block %d", b, h.ParentHash, b-1)
		}
	}
	checkGone(t, ctx, eth, abandoned)
	checkIncluded(t, ctx, eth, kept)

	// Never past a block with atomic transactions.
	err = setHead(ctx, eth, impStatus.Height-1)
	if want := fmt.Sprintf("block %d holds atomic transactions", impStatus.Height); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("debug_setHead(%d), below the import's block: %v, want a refusal saying %q", impStatus.Height-1, err, want)
	}
	if now, err := eth.HeaderByNumber(ctx, nil); err != nil || now.Hash() != newHead.Hash() {
		t.Fatalf("head after the refusal: %v (%v), want %s", now, err, newHead.Hash())
	}

	// A restart keeps the new chain, and the chain goes on.
	n = n.Restart(t)
	eth = evmDial(t, n, "C", "rpc")
	c = cWallet(t, n, xchainWallet(t, n, "X", ewoqKey), x.Key)
	if now, err := eth.HeaderByNumber(ctx, nil); err != nil || now.Hash() != newHead.Hash() {
		t.Fatalf("head after a restart: %v (%v), want %d %s", now, err, newHead.Number, newHead.Hash())
	}
	checkGone(t, ctx, eth, abandoned)
	checkIncluded(t, ctx, eth, kept)
	if s, err := c.Client.GetAtomicTxStatus(ctx, imp); err != nil || s != impStatus {
		t.Fatalf("import status after the restart %+v (%v), want %+v", s, err, impStatus)
	}
	next := sendTransfers(t, ctx, eth, 1)
	if h := headerAt(t, eth, next[0].block); next[0].block != newHead.Number.Uint64()+1 || h.ParentHash != newHead.Hash() {
		t.Fatalf("the next transfer's block %d (parent %s), want %d on %s", next[0].block, h.ParentHash, newHead.Number.Uint64()+1, newHead.Hash())
	}
	if out := n.Output(); strings.Contains(out, "blocks reported as accepted are lost") {
		t.Fatalf("the restart found the reported height above the head:\n%s", out)
	}
}

// TestEVMSetHeadRefused: debug_setHead is refused, saying what would allow
// it, on the embedded default config (its node keeps an index) and on a
// node without an index whose chain has the dev API off.
func TestEVMSetHeadRefused(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name string
		opts nodetest.Options
		want string
	}{
		{"default config", nodetest.Options{}, "this node keeps an index (--index-enabled)"},
		{"dev API off", nodetest.Options{Args: []string{"--index-enabled=false"}, Config: fmt.Sprintf(`
chains:
  - alias: C
    vm: evm
    genesis: %s
    config: {cache-mb: 32}
`, evmGenesis(evmChainID))}, "it rewinds the chain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := nodetest.Start(t, tc.opts)
			eth := evmDial(t, n, "C", "rpc")
			sendTransfers(t, ctx, eth, 1)
			head, err := eth.HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = setHead(ctx, eth, head.Number.Uint64()-1)
			for _, want := range []string{tc.want, "dev-api-enabled: true", "--index-enabled=false"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("debug_setHead: %v, want a refusal saying %q", err, want)
				}
			}
			if now, err := eth.HeaderByNumber(ctx, nil); err != nil || now.Hash() != head.Hash() {
				t.Fatalf("head after the refusal: %v (%v), want %s", now, err, head.Hash())
			}
		})
	}
}

// TestEVMSetHeadPruning: on a chain that prunes state (path scheme), a
// reorg of depth 10 rewinds to a recent state, and a restart keeps the new
// chain.
func TestEVMSetHeadPruning(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Args: []string{"--index-enabled=false"}, Config: fmt.Sprintf(`
chains:
  - alias: C
    vm: evm
    genesis: %s
    config: {pruning-enabled: true, dev-api-enabled: true, cache-mb: 32}
`, evmGenesis(evmChainID))})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eth := evmDial(t, n, "C", "rpc")
	kept := sendTransfers(t, ctx, eth, 12)[:2]
	head := reorgC(t, n, 10)
	checkIncluded(t, ctx, eth, kept)
	n = n.Restart(t)
	eth = evmDial(t, n, "C", "rpc")
	if now, err := eth.HeaderByNumber(ctx, nil); err != nil || now.Hash() != head.Hash() {
		t.Fatalf("head after a restart: %v (%v), want %d %s", now, err, head.Number, head.Hash())
	}
	checkIncluded(t, ctx, eth, kept)
	sendTransfers(t, ctx, eth, 1)
}
