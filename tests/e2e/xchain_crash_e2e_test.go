package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/xvm/client"
	"github.com/chainhost/chainhost/sdk/ids"
)

// xCrashRounds is how many times TestXChainCrashSupply kills the host (at
// least 10).
const xCrashRounds = 12

// xChainInfo is what a wallet needs of a chain, read once.
type xChainInfo struct {
	alias     string
	networkID uint32
	chainID   ids.ID
	feeAsset  ids.ID
	fee       uint64
}

// wallet returns a wallet of key on the chain of the node at url.
func (c xChainInfo) wallet(url string, key *avax.PrivateKey) *client.Wallet {
	return &client.Wallet{Client: client.New(url, c.alias, xHTTP), Account: utxoclient.Account{Key: key, NetworkID: c.networkID, ChainID: c.chainID},
		FeeAsset: c.feeAsset, Fee: c.fee}
}

// xSupply counts what the two chains hold: the UTXOs of addrs on X and on
// X2, the UTXOs each exported to the other (in shared memory), and what
// the transactions of X/tx and X2/tx burned (their inputs less their
// outputs, read from the index).
func xSupply(t *testing.T, n *nodetest.Node, infos []xChainInfo, addrs []avax.ShortID) (total uint64, parts map[string]uint64) {
	t.Helper()
	ctx := context.Background()
	parts = map[string]uint64{}
	for _, c := range infos {
		cl := client.New(n.URL, c.alias, xHTTP)
		var names []string
		for _, a := range addrs {
			s, _ := avax.FormatAddress(c.alias, avax.HRP(c.networkID), a)
			names = append(names, s)
		}
		for _, source := range []string{"", infos[0].alias, infos[1].alias} {
			if source == c.alias {
				continue
			}
			utxos, err := cl.AllUTXOs(ctx, names, source)
			if err != nil {
				t.Fatalf("%s UTXOs from %q: %v", c.alias, source, err)
			}
			what := c.alias + " UTXOs"
			if source != "" {
				what = "exported by " + source + " to " + c.alias
			}
			for _, u := range utxos {
				parts[what] += u.Out.Amt
			}
		}
		for _, ct := range indexedBytes(t, n, c.alias, "tx") {
			burned, err := xchainBurned(ct, c.feeAsset)
			if err != nil {
				t.Fatalf("%s: %v", c.alias, err)
			}
			parts["burned on "+c.alias] += burned
		}
	}
	for _, v := range parts {
		total += v
	}
	return total, parts
}

// TestXChainCrashSupply: the host is SIGKILLed xCrashRounds times, at
// random moments, while workers stream transfers, exports and imports
// between X and X2 (and some kills land during start-up). After every
// restart the total supply (the UTXOs on both chains, the UTXOs in shared
// memory both ways, and what both chains burned) is exactly the two
// genesis amounts: an accepted block, its transactions, its index entries
// and its shared-memory writes commit together or not at all.
func TestXChainCrashSupply(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("random delays from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	opts := nodetest.Options{Config: twoXChainsConfig("{tx-fee: 1000000}"), DataDir: t.TempDir()}
	n := nodetest.Start(t, opts)
	infos := []xChainInfo{xchainInfo(t, n, "X"), xchainInfo(t, n, "X2")}
	ewoq, _ := avax.ParsePrivateKey(ewoqKey)
	keys := []*avax.PrivateKey{}
	addrs := []avax.ShortID{ewoq.Address()}
	for i := range 3 {
		sum := sha256.Sum256([]byte(fmt.Sprintf("xchain crash worker %d", i)))
		k, err := avax.ParsePrivateKey(hex.EncodeToString(sum[:]))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
		addrs = append(addrs, k.Address())
	}
	// Fund the workers on both chains.
	for _, c := range infos {
		for _, k := range keys {
			if _, err := c.wallet(n.URL, ewoq).Send(context.Background(), c.feeAsset, 1_000_000_000_000, k.Address()); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := 2 * xGenesisAmount
	check := func(when string) map[string]uint64 {
		t.Helper()
		got, parts := xSupply(t, n, infos, addrs)
		if got != want {
			t.Fatalf("%s: total supply %d, want %d: %v", when, got, want, parts)
		}
		return parts
	}
	check("before the kills")

	var (
		mu  sync.Mutex
		ok  int
		bad int
		cur = n
	)
	current := func() *nodetest.Node { mu.Lock(); defer mu.Unlock(); return cur }
	work := func(ctx context.Context, w int) {
		r := rand.New(rand.NewPCG(seed, uint64(w+1)))
		for ctx.Err() == nil {
			node := current()
			key := keys[w]
			from, to := infos[0], infos[1]
			if r.IntN(2) == 1 {
				from, to = to, from
			}
			wal := from.wallet(node.URL, key)
			var err error
			switch r.IntN(3) {
			case 0:
				_, err = wal.Send(ctx, from.feeAsset, uint64(1+r.IntN(1_000_000)), keys[r.IntN(len(keys))].Address())
			case 1:
				_, err = wal.Export(ctx, to.chainID, from.feeAsset, uint64(2_000_000+r.IntN(1_000_000)), key.Address())
			case 2:
				_, err = wal.Import(ctx, to.alias, key.Address())
			}
			mu.Lock()
			if err != nil {
				bad++
			} else {
				ok++
			}
			mu.Unlock()
			if err != nil {
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Millisecond):
				}
			}
		}
	}
	for round := range xCrashRounds {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range keys {
			wg.Go(func() { work(ctx, w) })
		}
		time.Sleep(time.Duration(100+rng.IntN(600)) * time.Millisecond)
		current().Kill()
		cancel()
		wg.Wait()
		if round%4 == 3 {
			killWhileStarting(t, opts, rng)
		}
		next := nodetest.Start(t, opts)
		mu.Lock()
		cur = next
		mu.Unlock()
		n = next
		check(fmt.Sprintf("after kill %d", round+1))
	}
	parts := check("at the end")
	t.Logf("%d kills: %d transactions acknowledged, %d failed; supply %v", xCrashRounds, ok, bad, parts)
	if ok == 0 || parts["exported by X to X2"]+parts["X2 UTXOs"] == 0 {
		t.Fatal("no transaction was acknowledged: the test proved nothing")
	}
	// The X index is whole: every transaction once, each one getTx-able.
	seen := map[ids.ID]bool{}
	for _, b := range indexedBytes(t, n, "X", "tx") {
		id := ids.ID(sha256.Sum256(b))
		if seen[id] {
			t.Fatalf("X/tx holds %s twice", id)
		}
		seen[id] = true
	}
	var r struct {
		Tx json.RawMessage `json:"tx"`
	}
	for id := range seen {
		if err := n.Call(context.Background(), "/ext/bc/X", "avm.getTx", map[string]string{"txID": id.String()}, &r); err != nil {
			t.Fatalf("getTx %s of the index: %v", id, err)
		}
		break
	}
}
