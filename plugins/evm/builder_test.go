package evm_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// TestBuilder: the chain's own builder orders the pool's transactions by
// tip, then nonce, leaves out what does not fit, fills the header as the
// forks want it, marks the head safe and every 32nd block finalized, and
// refuses an empty block at a set time while transactions wait.
func TestBuilder(t *testing.T) {
	c := startChain(t, 43112, `{"block-production": "manual", "dev-api-enabled": true}`)
	ctx := t.Context()
	key := localKey(t)
	chainID := big.NewInt(43112)
	signer := types.LatestSignerForChainID(chainID)
	other, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	otherAddr := crypto.PubkeyToAddress(other.PublicKey)
	send := func(k any, nonce uint64, tip int64, gas uint64) *types.Transaction {
		t.Helper()
		to := common.HexToAddress("0x0400000000000000000000000000000000000004")
		value := big.NewInt(1)
		if k == key {
			to, value = otherAddr, big.NewInt(1e18)
		}
		priv := key
		if k != key {
			priv = other
		}
		tx := types.MustSignNewTx(priv, signer, &types.DynamicFeeTx{
			ChainID: chainID, Nonce: nonce, To: &to, Value: value, Gas: gas,
			GasTipCap: big.NewInt(tip), GasFeeCap: big.NewInt(100e9),
		})
		if err := c.client.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send: %v", err)
		}
		return tx
	}
	send(key, 0, 1, 21000)
	mine(t, c.rpc)

	// Two senders: the better tip goes first, a sender's nonces in order.
	low0 := send(key, 1, 1, 21000)
	low1 := send(key, 2, 1, 21000)
	high0 := send(other, 0, 5, 21000)
	high1 := send(other, 1, 5, 21000)
	mine(t, c.rpc)
	blk, err := c.client.BlockByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []common.Hash
	for _, tx := range blk.Transactions() {
		got = append(got, tx.Hash())
	}
	want := []common.Hash{high0.Hash(), high1.Hash(), low0.Hash(), low1.Hash()}
	if len(got) != len(want) {
		t.Fatalf("block %d holds %d transactions, want %d", blk.NumberU64(), len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("transaction %d is %s, want %s (by tip, then nonce)", i, got[i], want[i])
		}
	}

	// The header: what the forks of the genesis want, as a beacon chain
	// would give it.
	parent, err := c.client.HeaderByNumber(ctx, new(big.Int).Sub(blk.Number(), common.Big1))
	if err != nil {
		t.Fatal(err)
	}
	h := blk.Header()
	cfg := &params.ChainConfig{ChainID: chainID, LondonBlock: common.Big0}
	switch {
	case h.Coinbase != (common.Address{}):
		t.Fatalf("coinbase %s, want zero", h.Coinbase)
	case h.MixDigest == (common.Hash{}):
		t.Fatal("no randomness in mixHash")
	case h.Difficulty.Sign() != 0:
		t.Fatalf("difficulty %d, want 0 (proof of stake)", h.Difficulty)
	case h.BaseFee == nil || h.BaseFee.Cmp(eip1559.CalcBaseFee(cfg, parent)) != 0:
		t.Fatalf("base fee %v, want %v", h.BaseFee, eip1559.CalcBaseFee(cfg, parent))
	case h.GasUsed != 4*params.TxGas:
		t.Fatalf("gas used %d, want %d", h.GasUsed, 4*params.TxGas)
	case h.ParentBeaconRoot == nil || *h.ParentBeaconRoot != (common.Hash{}):
		t.Fatalf("parent beacon root %v, want the zero hash", h.ParentBeaconRoot)
	case h.WithdrawalsHash == nil || *h.WithdrawalsHash != types.EmptyWithdrawalsHash:
		t.Fatalf("withdrawals hash %v, want the empty list's", h.WithdrawalsHash)
	case h.BlobGasUsed == nil || *h.BlobGasUsed != 0 || h.ExcessBlobGas == nil:
		t.Fatalf("blob gas used %v, excess %v", h.BlobGasUsed, h.ExcessBlobGas)
	case h.Time <= parent.Time:
		t.Fatalf("time %d not after the parent's %d", h.Time, parent.Time)
	}

	// A transaction over the block's gas left waits for the next block.
	small := send(other, 2, 9, 21000)
	large := send(key, 3, 1, blk.GasLimit()-21000+1)
	mine(t, c.rpc)
	first, err := c.client.BlockByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(first.Transactions()); n != 1 || first.Transactions()[0].Hash() != small.Hash() {
		t.Fatalf("block %d holds %d transactions, want only the small one", first.NumberU64(), n)
	}
	mine(t, c.rpc)
	if r := waitReceipt(t, ctx, c.client, large.Hash()); r.BlockNumber.Uint64() != first.NumberU64()+1 {
		t.Fatalf("the large transaction is in block %d, want %d", r.BlockNumber, first.NumberU64()+1)
	}

	// An empty block at a set time is refused while a transaction waits.
	send(other, 3, 1, 21000)
	var hash common.Hash
	err = c.rpc.CallContext(ctx, &hash, "evm_mine", h.Time+1000)
	if err == nil || !strings.Contains(err.Error(), "executable transactions") {
		t.Fatalf("evm_mine at a time with a transaction waiting: %v, want a refusal", err)
	}
	mine(t, c.rpc)

	// Safe is the head; finalized is the last multiple of 32.
	for {
		head, err := c.client.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if head >= 33 {
			break
		}
		mine(t, c.rpc)
	}
	tag := func(name string) *types.Header {
		t.Helper()
		var hd *types.Header
		if err := c.rpc.CallContext(ctx, &hd, "eth_getBlockByNumber", name, false); err != nil || hd == nil {
			t.Fatalf("%s block: %v, %v", name, hd, err)
		}
		return hd
	}
	head := tag("latest")
	if safe := tag("safe"); safe.Hash() != head.Hash() {
		t.Fatalf("safe block %d, want the head %d", safe.Number, head.Number)
	}
	if fin := tag(rpc.FinalizedBlockNumber.String()); fin.Number.Uint64() != 32 {
		t.Fatalf("finalized block %d, want 32", fin.Number)
	}
}
