package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/core/nodetest"
	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	cclient "github.com/chainhost/chainhost/plugins/evm/atomic/client"
	"github.com/chainhost/chainhost/plugins/xvm/client"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// atomicCrashRounds is how many times TestAtomicCrashSupply kills a
// process (at least 10): the host and the C-Chain's plugin in turn.
const atomicCrashRounds = 12

// cGenesisAmount is the local key's C-Chain genesis balance, in nAVAX.
const cGenesisAmount uint64 = 50_000_000_000_000_000

// atomicLedger remembers every atomic transaction the test built for C,
// so that the fees they burned can be counted whatever a kill did to
// their answers.
type atomicLedger struct {
	mu  sync.Mutex
	txs map[ids.ID]*atx.Tx
}

func (l *atomicLedger) add(tx *atx.Tx) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.txs[tx.ID()] = tx
}

func (l *atomicLedger) all() []*atx.Tx {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*atx.Tx, 0, len(l.txs))
	for _, t := range l.txs {
		out = append(out, t)
	}
	return out
}

// atomicSupply counts, in nAVAX, what X and C hold: the UTXOs of addrs on
// X, the EVM balances of accounts on C (which must be whole nAVAX), what
// each chain exported to the other and is still in shared memory, what
// X's transactions burned (from X/tx) and what C's accepted atomic
// transactions burned. It also checks that no accepted import's UTXO is
// still in shared memory.
func atomicSupply(t *testing.T, n *nodetest.Node, x xChainInfo, cctx cclient.Context, addrs []avax.ShortID, accounts []common.Address, ledger *atomicLedger) (uint64, map[string]uint64) {
	t.Helper()
	ctx := context.Background()
	parts := map[string]uint64{}
	xc := client.New(n.URL, "X", xHTTP)
	cc := cclient.New(n.URL, "C", xHTTP)
	var xNames, cNames []string
	for _, a := range addrs {
		s, _ := avax.FormatAddress("X", avax.HRP(x.networkID), a)
		xNames = append(xNames, s)
		s, _ = avax.FormatAddress("C", avax.HRP(x.networkID), a)
		cNames = append(cNames, s)
	}
	for _, c := range []struct {
		what   string
		source string
		read   func() ([]avax.UTXO, error)
	}{
		{"X UTXOs", "", func() ([]avax.UTXO, error) { return xc.AllUTXOs(ctx, xNames, "") }},
		{"exported by C to X", "C", func() ([]avax.UTXO, error) { return xc.AllUTXOs(ctx, xNames, "C") }},
		{"exported by X to C", "X", func() ([]avax.UTXO, error) { return cc.AllUTXOs(ctx, cNames, "X") }},
	} {
		utxos, err := c.read()
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		for _, u := range utxos {
			parts[c.what] += u.Out.Amt
		}
		if c.source == "X" {
			waiting := map[ids.ID]bool{}
			for _, u := range utxos {
				waiting[u.InputID()] = true
			}
			for _, tx := range ledger.all() {
				imp, ok := tx.Unsigned.(*atx.ImportTx)
				if !ok || status(t, cc, tx.ID()) != "Accepted" {
					continue
				}
				for i := range imp.ImportedIns {
					if waiting[imp.ImportedIns[i].InputID()] {
						t.Fatalf("import %s is accepted, and its UTXO %s is still in shared memory", tx.ID(), imp.ImportedIns[i].UTXOID)
					}
				}
			}
		}
	}
	for _, a := range accounts {
		wei, err := cc.Balance(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		q, r := new(big.Int).QuoRem(wei, big.NewInt(atx.X2CRate), new(big.Int))
		if r.Sign() != 0 || !q.IsUint64() {
			t.Fatalf("C balance of %s is %s wei: not whole nAVAX", a, wei)
		}
		parts["C balances"] += q.Uint64()
	}
	for _, ct := range indexedBytes(t, n, "X", "tx") {
		burned, err := xchainBurned(ct, x.feeAsset)
		if err != nil {
			t.Fatal(err)
		}
		parts["burned on X"] += burned
	}
	for _, tx := range ledger.all() {
		if status(t, cc, tx.ID()) != "Accepted" {
			continue
		}
		burned, err := atx.Burned(tx)
		if err != nil {
			t.Fatal(err)
		}
		parts["burned on C"] += burned
		parts["C atomic txs accepted"]++
	}
	var total uint64
	for k, v := range parts {
		if k != "C atomic txs accepted" {
			total += v
		}
	}
	return total, parts
}

func status(t *testing.T, cc *cclient.Client, id ids.ID) string {
	t.Helper()
	s, err := cc.GetAtomicTxStatus(context.Background(), id)
	if err != nil {
		t.Fatalf("status of %s: %v", id, err)
	}
	return s.Status
}

// TestAtomicCrashSupply: while workers stream exports and imports both
// ways between X and C, the host and the C-Chain's plugin (a pruning
// chain: its state is lost in a kill) are SIGKILLed in turn,
// atomicCrashRounds times, some kills during start-up. After every restart
// the supply over X's UTXOs, C's balances, shared memory both ways and the
// fees burned on both chains is exactly the two genesis amounts, and no
// accepted import's UTXO is still in shared memory: a block's atomic
// effects, its index entry and its shared-memory operations hold together,
// and a replay applies the same effects.
func TestAtomicCrashSupply(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("random delays from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	opts := nodetest.Options{Config: atomicXC(", pruning-enabled: true"), DataDir: t.TempDir(),
		Args: []string{"--plugin-restart-backoff=5ms", "--plugin-restart-max-backoff=50ms"}}
	n := nodetest.Start(t, opts)
	nodes := []*nodetest.Node{n}
	x := xchainInfo(t, n, "X")
	xw := x.wallet(n.URL, mustKey(t, ewoqKey))
	cID, err := xw.Client.BlockchainID(context.Background(), "C")
	if err != nil {
		t.Fatal(err)
	}
	cctx := cclient.Context{NetworkID: x.networkID, ChainID: cID, AVAXAssetID: x.feeAsset}
	ewoq := mustKey(t, ewoqKey)
	addrs := []avax.ShortID{ewoq.Address()}
	accounts := []common.Address{cclient.EVMAddress(ewoq)}
	var keys []*avax.PrivateKey
	for i := range 3 {
		sum := sha256.Sum256(fmt.Appendf(nil, "atomic crash worker %d", i))
		k := mustKey(t, hex.EncodeToString(sum[:]))
		keys = append(keys, k)
		addrs = append(addrs, k.Address())
		accounts = append(accounts, cclient.EVMAddress(k))
		if _, err := xw.Send(context.Background(), x.feeAsset, 1_000_000_000_000, k.Address()); err != nil {
			t.Fatal(err)
		}
	}
	ledger := &atomicLedger{txs: map[ids.ID]*atx.Tx{}}
	want := xGenesisAmount + cGenesisAmount
	var mu sync.Mutex
	cur := n
	current := func() *nodetest.Node { mu.Lock(); defer mu.Unlock(); return cur }
	// settle waits until no C transaction of the test is Processing (its
	// block built and reported, or it was lost or dropped), then checks
	// the supply.
	check := func(when string) map[string]uint64 {
		t.Helper()
		cc := cclient.New(current().URL, "C", xHTTP)
		plugintest.Eventually(t, 30*time.Second, func() error {
			busy := 0
			for _, tx := range ledger.all() {
				if status(t, cc, tx.ID()) == "Processing" {
					busy++
				}
			}
			if busy > 0 {
				return fmt.Errorf("%s: %d C transactions still Processing", when, busy)
			}
			return nil
		})
		got, parts := atomicSupply(t, current(), x, cctx, addrs, accounts, ledger)
		if got != want {
			t.Fatalf("%s: total supply %d, want %d: %v", when, got, want, parts)
		}
		return parts
	}
	check("before the kills")

	var ok, bad int
	work := func(ctx context.Context, w int) {
		r := rand.New(rand.NewPCG(seed, uint64(w+1)))
		key := keys[w]
		for ctx.Err() == nil {
			node := current()
			var err error
			switch r.IntN(4) {
			case 0: // X to C, step 1
				_, err = x.wallet(node.URL, key).Export(ctx, cID, x.feeAsset, uint64(50_000_000+r.IntN(50_000_000)), key.Address())
			case 1: // X to C, step 2
				cw := &cclient.Wallet{Client: cclient.New(node.URL, "C", xHTTP), Key: key, Ctx: cctx}
				var tx *atx.Tx
				if tx, err = cw.BuildImport(ctx, "X", x.chainID, cw.EVMAddress()); err == nil {
					ledger.add(tx)
					_, err = cw.Issue(ctx, tx)
				}
			case 2: // C to X, step 1
				cw := &cclient.Wallet{Client: cclient.New(node.URL, "C", xHTTP), Key: key, Ctx: cctx}
				var tx *atx.Tx
				if tx, err = cw.BuildExport(ctx, x.chainID, uint64(10_000_000+r.IntN(10_000_000)), key.Address()); err == nil {
					ledger.add(tx)
					_, err = cw.Issue(ctx, tx)
				}
			case 3: // C to X, step 2
				_, err = x.wallet(node.URL, key).Import(ctx, "C", key.Address())
			}
			mu.Lock()
			if err != nil {
				bad++
			} else {
				ok++
			}
			mu.Unlock()
			if err != nil {
				pause(ctx, 5*time.Millisecond)
			}
		}
	}
	pid := n.WaitNewPlugin(t, "evm", 0)
	for round := range atomicCrashRounds {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range keys {
			wg.Go(func() { work(ctx, w) })
		}
		time.Sleep(time.Duration(200+rng.IntN(600)) * time.Millisecond)
		hostKill := round%2 == 0
		if hostKill {
			current().Kill()
		} else if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("round %d: kill the C-Chain's plugin %d: %v", round, pid, err)
		}
		cancel()
		wg.Wait()
		if hostKill {
			if round%4 == 2 {
				killWhileStarting(t, opts, rng)
			}
			next := nodetest.Start(t, opts)
			nodes = append(nodes, next)
			mu.Lock()
			cur = next
			mu.Unlock()
			pid = 0
		}
		pid = current().WaitNewPlugin(t, "evm", pid)
		// The C-Chain serves again once its recovery is done.
		waitChain(t, current(), "C")
		check(fmt.Sprintf("after kill %d (%s)", round+1, map[bool]string{true: "host", false: "C plugin"}[hostKill]))
	}
	parts := check("at the end")
	t.Logf("%d kills: %d operations acknowledged, %d failed; supply %v", atomicCrashRounds, ok, bad, parts)
	if parts["C atomic txs accepted"] == 0 || parts["burned on C"] == 0 {
		t.Fatal("no C atomic transaction was accepted: the test proved nothing")
	}
	// The kills lost go-ethereum's state at least once, and the blocks
	// were re-executed with their atomic effects.
	reimports := 0
	for _, n := range nodes {
		reimports += strings.Count(n.Output(), "re-imported accepted blocks")
	}
	t.Logf("%d re-imports after the kills", reimports)
	if reimports == 0 {
		t.Fatal("no kill made the C-Chain re-import blocks: the test proved nothing about replays")
	}
}

// waitChain waits until a chain answers eth_blockNumber.
func waitChain(t *testing.T, n *nodetest.Node, chain string) {
	t.Helper()
	plugintest.Eventually(t, time.Minute, func() error {
		var h string
		if err := n.Call(context.Background(), "/ext/bc/"+chain+"/rpc", "eth_blockNumber", []any{}, &h); err != nil {
			return fmt.Errorf("chain %s does not answer after the kill: %w", chain, err)
		}
		return nil
	})
}

func mustKey(t *testing.T, s string) *avax.PrivateKey {
	t.Helper()
	k, err := avax.ParsePrivateKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
