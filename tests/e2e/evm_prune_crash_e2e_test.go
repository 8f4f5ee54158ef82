package e2e

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// pruneCrashKills is how many times TestEVMPruneCrash kills the plugin
// under load; every pruneCrashEarly-th kill lands as soon as the new
// process exists (while go-ethereum starts or re-imports blocks).
const (
	pruneCrashKills = 12
	pruneCrashEarly = 4
)

// evmPruneChain runs C alone, pruning state (path scheme), with automatic
// block production.
func evmPruneChain() string {
	return fmt.Sprintf(`
chains:
  - alias: C
    vm: evm
    genesis: %s
    config:
      pruning-enabled: true
      block-production: auto
      cache-mb: 32
`, evmGenesis(evmChainID))
}

// evmSeen is a transaction whose receipt the node returned.
type evmSeen struct {
	tx     common.Hash
	block  common.Hash
	number uint64
}

// evmLoad sends transfers in rounds of a few and keeps the receipts the
// node returns; transactions lost with a killed plugin's pool are
// abandoned, and the next round starts from the pending nonce.
type evmLoad struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	seen []evmSeen
}

func startEVMLoad(t *testing.T, c *ethclient.Client) *evmLoad {
	ctx, cancel := context.WithCancel(context.Background())
	l := &evmLoad{cancel: cancel}
	key := evmKey(t)
	from := common.HexToAddress(evmLocalAddr)
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	l.wg.Go(func() {
		for ctx.Err() == nil {
			nonce, err := c.PendingNonceAt(ctx, from)
			if err != nil {
				pause(ctx, 20*time.Millisecond)
				continue
			}
			var sent []common.Hash
			for k := range uint64(4) {
				tx := evmTransfer(key, evmChainID, nonce+k, to, 1)
				if c.SendTransaction(ctx, tx) != nil {
					break
				}
				sent = append(sent, tx.Hash())
			}
			// Collect the receipts; a transaction without one after 3s was
			// in the pool of a killed process.
			deadline := time.Now().Add(3 * time.Second)
			for len(sent) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
				r, err := c.TransactionReceipt(ctx, sent[0])
				if err != nil {
					pause(ctx, 10*time.Millisecond)
					continue
				}
				l.mu.Lock()
				l.seen = append(l.seen, evmSeen{tx: sent[0], block: r.BlockHash, number: r.BlockNumber.Uint64()})
				l.mu.Unlock()
				sent = sent[1:]
			}
		}
	})
	return l
}

// count is how many receipts were returned so far.
func (l *evmLoad) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seen)
}

// stop ends the load and returns the receipts seen.
func (l *evmLoad) stop() []evmSeen {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]evmSeen(nil), l.seen...)
}

// TestEVMPruneCrash: a pruning chain (state in memory, flushed only on a
// clean stop) whose plugin is SIGKILLed under load, pruneCrashKills times,
// loses no accepted block: go-ethereum rewinds to its last flushed state,
// and the VM re-imports the blocks above it before it serves or builds:
// those of the host index, then those go-ethereum made head but the index
// did not get yet (read before go-ethereum's repair wipes them). Afterwards the index is one contiguous chain equal to
// go-ethereum's canonical chain, the head is not below it, and every
// receipt the node returned before a kill is still there, in the same
// block.
func TestEVMPruneCrash(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: evmPruneChain(),
		Args: []string{"--plugin-restart-backoff=5ms", "--plugin-restart-max-backoff=50ms"}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := evmDial(t, n, "C", "rpc")
	load := startEVMLoad(t, c)
	defer load.stop()

	pid := n.WaitNewPlugin(t, "evm", 0)
	for round := range pruneCrashKills {
		if round%pruneCrashEarly != pruneCrashEarly-1 {
			// Kill under load, once blocks were built by this process.
			want := load.count() + 6
			plugintest.Eventually(t, time.Minute, func() error {
				if got := load.count(); got < want {
					return fmt.Errorf("round %d: no receipts after the restart (%d, want %d)", round, got, want)
				}
				return nil
			})
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("round %d: kill plugin %d: %v", round, pid, err)
		}
		pid = n.WaitNewPlugin(t, "evm", pid)
	}
	// Some receipts from the last process, then stop and let the index
	// catch up with the head.
	want := load.count() + 6
	plugintest.Eventually(t, time.Minute, func() error {
		if got := load.count(); got < want {
			return fmt.Errorf("no receipts after the last restart (%d, want %d)", got, want)
		}
		return nil
	})
	seen := load.stop()
	// Transactions sent but not yet mined still make blocks: wait for an
	// empty pool and an index caught up with the head.
	plugintest.Eventually(t, 30*time.Second, func() error {
		var pool struct{ Pending, Queued hexutil.Uint64 }
		var last containerWire
		h, err := c.BlockNumber(ctx)
		if err == nil && c.Client().CallContext(ctx, &pool, "txpool_status") == nil && pool.Pending+pool.Queued == 0 &&
			n.Call(ctx, "/ext/index/C/block", "index.getLastAccepted", map[string]string{"encoding": "hex"}, &last) == nil &&
			last.Index == itoa(h-1) {
			return nil
		}
		return fmt.Errorf("the index (last %s) did not catch up with head %d (%v), or the pool is not empty (%+v)", last.Index, h, err, pool)
	})

	got := walkIndexRange(t, n, "/ext/index/C/block", 1024)
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kills: %d receipts returned, index holds %d blocks, head %d", pruneCrashKills, len(seen), len(got), head)
	if uint64(len(got)) > head {
		t.Fatalf("the index holds %d blocks, go-ethereum's head is %d", len(got), head)
	}
	// The test killed the plugin while go-ethereum held unflushed state.
	if !strings.Contains(n.Output(), "re-imported accepted blocks") {
		t.Fatal("no start re-imported blocks: the kills did not exercise the recovery")
	}
	genesis, err := c.HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	parent := genesis.Hash()
	for i, ct := range got {
		var blk types.Block
		if err := rlp.DecodeBytes(ct.Bytes, &blk); err != nil {
			t.Fatalf("index %d: decode block: %v", i, err)
		}
		if blk.NumberU64() != uint64(i+1) || common.Hash(ct.ID) != blk.Hash() {
			t.Fatalf("index %d: block %d %s under ID %s", i, blk.NumberU64(), blk.Hash(), ct.ID)
		}
		if blk.ParentHash() != parent {
			t.Fatalf("index %d: block %d's parent is %s, block %d is %s", i, i+1, blk.ParentHash(), i, parent)
		}
		parent = blk.Hash()
		h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(uint64(i+1)))
		if err != nil {
			t.Fatalf("block %d: %v", i+1, err)
		}
		if h.Hash() != blk.Hash() {
			t.Fatalf("block %d: go-ethereum has %s, the index %s (accepted block lost)", i+1, h.Hash(), blk.Hash())
		}
	}
	if len(seen) == 0 {
		t.Fatal("no receipt was returned: the test proved nothing")
	}
	for _, s := range seen {
		r, err := c.TransactionReceipt(ctx, s.tx)
		if err != nil {
			t.Fatalf("transaction %s (receipt returned in block %d) has no receipt after the kills: %v", s.tx, s.number, err)
		}
		if r.BlockHash != s.block || r.BlockNumber.Uint64() != s.number {
			t.Fatalf("transaction %s: receipt in block %d %s, was in block %d %s", s.tx, r.BlockNumber, r.BlockHash, s.number, s.block)
		}
	}
}
