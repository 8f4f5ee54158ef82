package e2e

import (
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/chainhost/chainhost/core/nodetest"
)

// reorgC makes a reorg of depth blocks on node n's C-Chain, which must run
// with the dev API on and automine, on a node started with
// --index-enabled=false (docs/evm.md, Rewinding the chain): debug_setHead
// rewinds the chain by depth blocks, then depth+1 blocks are built on the
// new head, each with one transfer from the local key to a new address, so
// that every block of the abandoned branch is replaced by one with other
// transactions and the chain grows by one. It returns the new head. A
// sender that counts its own nonces must read them again afterwards.
func reorgC(t *testing.T, n *nodetest.Node, depth int) *types.Header {
	t.Helper()
	ctx := t.Context()
	eth := evmDial(t, n, "C", "rpc")
	head, err := eth.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if depth < 1 || uint64(depth) > head.Number.Uint64() {
		t.Fatalf("reorgC: depth %d on a chain of %d blocks", depth, head.Number)
	}
	base := head.Number.Uint64() - uint64(depth)
	abandoned := make([]common.Hash, depth) // the blocks base+1..head
	for i := range abandoned {
		abandoned[i] = headerAt(t, eth, base+1+uint64(i)).Hash()
	}
	if err := eth.Client().CallContext(ctx, nil, "debug_setHead", hexutil.Uint64(base)); err != nil {
		t.Fatalf("debug_setHead(%d): %v", base, err)
	}
	key := evmKey(t)
	nonce, err := eth.PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	for i := range depth + 1 {
		tx := evmTransfer(key, evmChainID, nonce+uint64(i), newAddress(t), int64(i+1))
		if err := eth.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("reorgC: send transfer %d of the new branch: %v", i, err)
		}
		evmReceipt(t, ctx, eth, tx.Hash())
	}
	for i, old := range abandoned {
		if h := headerAt(t, eth, base+1+uint64(i)); h.Hash() == old {
			t.Fatalf("reorgC: block %d is still %s after the reorg", h.Number, old)
		}
	}
	now, err := eth.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if now.Number.Uint64() <= head.Number.Uint64() {
		t.Fatalf("reorgC: head %d after the reorg, want above the old head %d", now.Number, head.Number)
	}
	return now
}

// headerAt returns the header of block number.
func headerAt(t *testing.T, eth *ethclient.Client, number uint64) *types.Header {
	t.Helper()
	h, err := eth.HeaderByNumber(t.Context(), new(big.Int).SetUint64(number))
	if err != nil {
		t.Fatalf("block %d: %v", number, err)
	}
	return h
}

// newAddress returns an address no transaction has touched.
func newAddress(t *testing.T) common.Address {
	t.Helper()
	var a common.Address
	if _, err := rand.Read(a[:]); err != nil {
		t.Fatal(err)
	}
	return a
}
