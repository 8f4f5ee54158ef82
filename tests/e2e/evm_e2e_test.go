package e2e

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The local network's funded key on C (public test values).
const (
	evmLocalKey  = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
	evmLocalAddr = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
	evmChainID   = 43112
)

func evmKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA(evmLocalKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// evmDial connects go-ethereum's client to a chain's handler through the
// host (rpc or ws).
func evmDial(t testing.TB, n *nodetest.Node, chain, handler string) *ethclient.Client {
	t.Helper()
	url := n.URL + "/ext/bc/" + chain + "/" + handler
	if handler == "ws" {
		url = "ws" + strings.TrimPrefix(url, "http")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := rpc.DialContext(ctx, url)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(c.Close)
	return ethclient.NewClient(c)
}

// evmTransfer signs a transfer of value wei with the local key.
func evmTransfer(key *ecdsa.PrivateKey, chainID uint64, nonce uint64, to common.Address, value int64) *types.Transaction {
	return types.MustSignNewTx(key, types.LatestSignerForChainID(new(big.Int).SetUint64(chainID)), &types.DynamicFeeTx{
		ChainID: new(big.Int).SetUint64(chainID), Nonce: nonce, To: &to, Value: big.NewInt(value), Gas: 21000,
		GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9),
	})
}

// evmReceipt polls for a receipt.
func evmReceipt(t testing.TB, ctx context.Context, c *ethclient.Client, hash common.Hash) *types.Receipt {
	t.Helper()
	var r *types.Receipt
	plugintest.Eventually(t, 30*time.Second, func() error {
		var err error
		if r, err = c.TransactionReceipt(ctx, hash); err != nil {
			return fmt.Errorf("no receipt for %s: %w", hash, err)
		}
		return nil
	})
	return r
}

// evmCheckIndex checks that /ext/index/<chain>/block holds exactly blocks
// 1..head of the chain, in order: ID = block hash (CB58), bytes = RLP.
func evmCheckIndex(t testing.TB, ctx context.Context, n *nodetest.Node, chain string, c *ethclient.Client, head uint64) {
	t.Helper()
	plugintest.Eventually(t, 20*time.Second, func() error {
		var last containerWire
		err := n.Call(ctx, "/ext/index/"+chain+"/block", "index.getLastAccepted", map[string]string{"encoding": "hex"}, &last)
		if err != nil || last.Index != itoa(head-1) {
			return fmt.Errorf("index last accepted %+v (%v), want index %d", last.Index, err, head-1)
		}
		return nil
	})
	for start := uint64(0); start < head; start += 1024 {
		var got []containerWire
		err := n.Call(ctx, "/ext/index/"+chain+"/block", "index.getContainerRange",
			map[string]any{"startIndex": start, "numToFetch": min(1024, head-start), "encoding": "hex"}, &got)
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range got {
			i := start + uint64(k)
			blk, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(i+1))
			if err != nil {
				t.Fatalf("block %d: %v", i+1, err)
			}
			if w.ID != ids.ID(blk.Hash()).String() || w.Index != itoa(i) {
				t.Fatalf("index %d: id %s index %s, want block %d hash %s", i, w.ID, w.Index, i+1, ids.ID(blk.Hash()))
			}
			raw, err := ids.DecodeHexWithChecksum(w.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			var dec types.Block
			if err := rlp.DecodeBytes(raw, &dec); err != nil || dec.Hash() != blk.Hash() {
				t.Fatalf("index %d: bytes decode to %s, %v", i, dec.Hash(), err)
			}
		}
	}
}

// TestEVMDefaultNode: the default node runs the C-Chain: chain ID 43112, a
// transfer signed with the local key is mined with a receipt, a WebSocket
// newHeads subscription sees the block, and the index holds every block.
func TestEVMDefaultNode(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The banner's chain lines follow the health line that Start waits for.
	waitOutput(t, n, "0x"+evmLocalKey)
	if !strings.Contains(n.Output(), evmLocalAddr) {
		t.Errorf("banner lacks the funded address:\n%s", n.Output())
	}
	for _, alias := range []string{"C", chainIDOf(t, n, "C")} {
		id, err := evmDial(t, n, alias, "rpc").ChainID(ctx)
		if err != nil || id.Uint64() != evmChainID {
			t.Fatalf("eth_chainId at %s: %v, %v", alias, id, err)
		}
	}
	c := evmDial(t, n, "C", "rpc")
	ws := evmDial(t, n, "C", "ws")
	heads := make(chan *types.Header, 16)
	sub, err := ws.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()

	key := evmKey(t)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx := evmTransfer(key, evmChainID, 0, to, 12345)
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	r := evmReceipt(t, ctx, c, tx.Hash())
	if r.Status != types.ReceiptStatusSuccessful || r.BlockNumber.Uint64() != 1 {
		t.Fatalf("receipt: status %d block %v", r.Status, r.BlockNumber)
	}
	select {
	case h := <-heads:
		if h.Hash() != r.BlockHash {
			t.Fatalf("newHeads sent %s, receipt block %s", h.Hash(), r.BlockHash)
		}
	case err := <-sub.Err():
		t.Fatalf("subscription: %v", err)
	case <-ctx.Done():
		t.Fatal("no newHeads notification")
	}
	if bal, err := c.BalanceAt(ctx, to, nil); err != nil || bal.Int64() != 12345 {
		t.Fatalf("balance %v, %v", bal, err)
	}
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evmCheckIndex(t, ctx, n, "C", c, head)
}

// chainIDOf returns a chain's CB58 blockchain ID from the banner.
func chainIDOf(t testing.TB, n *nodetest.Node, alias string) string {
	t.Helper()
	var id string
	plugintest.Eventually(t, 10*time.Second, func() error {
		for _, line := range strings.Split(n.Output(), "\n") {
			line = strings.TrimSpace(line)
			if rest, ok := strings.CutPrefix(line, "chain "+alias+" ("); ok {
				id, _, _ = strings.Cut(rest, ",")
				return nil
			}
		}
		return fmt.Errorf("no chain %s in the banner", alias)
	})
	return id
}

// TestEVMPluginKillUnderLoad: the EVM plugin SIGKILLed while transfers
// stream in is restarted; no accepted block is lost and the index holds
// every block in order.
func TestEVMPluginKillUnderLoad(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := evmDial(t, n, "C", "rpc")
	key := evmKey(t)
	from := common.HexToAddress(evmLocalAddr)
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")

	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for loadCtx.Err() == nil {
			nonce, err := c.PendingNonceAt(loadCtx, from)
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			for k := uint64(0); k < 20 && loadCtx.Err() == nil; k++ {
				if c.SendTransaction(loadCtx, evmTransfer(key, evmChainID, nonce+k, to, 1)) != nil {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	defer func() { stopLoad(); wg.Wait() }()

	waitHead := func(min uint64) uint64 {
		t.Helper()
		var h uint64
		plugintest.Eventually(t, time.Minute, func() error {
			var err error
			if h, err = c.BlockNumber(ctx); err != nil || h < min {
				return fmt.Errorf("head %d (%v) did not reach %d", h, err, min)
			}
			return nil
		})
		return h
	}
	before := waitHead(5)
	seen := map[uint64]common.Hash{}
	for i := uint64(1); i <= before; i++ {
		h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(i))
		if err != nil {
			t.Fatal(err)
		}
		seen[i] = h.Hash()
	}
	old := nodetest.PluginPID(t, n, "evm")
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	n.WaitNewPlugin(t, "evm", old)
	after := waitHead(before + 5)
	stopLoad()
	wg.Wait()
	// Let the last block settle, then compare.
	time.Sleep(500 * time.Millisecond)
	head, err := c.BlockNumber(ctx)
	if err != nil || head < after {
		t.Fatalf("head %d after restart, had %d (%v)", head, after, err)
	}
	for i, want := range seen {
		h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(i))
		if err != nil || h.Hash() != want {
			t.Fatalf("block %d lost or replaced after the kill: %v, %v", i, h, err)
		}
	}
	evmCheckIndex(t, ctx, n, "C", c, head)
}
