package e2e

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// pCrashRounds is how many times TestPChainCrash kills the host (at least
// 10).
const pCrashRounds = 12

// pStream is a stream of P-Chain work, one step at a time: top-ups of L1
// validators, transfers and moves of the clock. It keeps what the chain
// acknowledged and what it may have accepted without saying (the host
// killed mid-call), to settle once the node is back.
type pStream struct {
	base    *client.Wallet // the wallet's key, network and rules
	vids    []ids.ID
	to      avax.ShortID
	current func() *nodetest.Node

	clock     uint64              // the clock's time, as last set
	accepted  map[ids.ID]bool     // every transaction the chain holds
	topUps    map[ids.ID][]uint64 // validation ID -> the accepted top-ups
	sent      uint64              // the accepted transfers to `to`
	acks      int
	uncertain int
}

func (s *pStream) wallet() *client.Wallet {
	w := *s.base
	w.Client = client.New(s.current().URL, "P", xHTTP)
	return &w
}

// settle learns whether a transaction whose issue failed was accepted:
// asked again until a node answers.
func (s *pStream) settle(ctx context.Context, id ids.ID) bool {
	for ctx.Err() == nil {
		st, err := s.wallet().Client.GetTxStatus(ctx, id)
		if err == nil && st != "Processing" {
			return st == "Committed"
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// step does the k-th piece of work; a failure (the node killed) is
// settled before the next step.
func (s *pStream) step(ctx context.Context, k int) {
	w := s.wallet()
	switch k % 3 {
	case 0, 1:
		var (
			tx  *txs.Tx
			err error
			vid ids.ID
			amt = uint64(1_000_000 + k)
		)
		if k%3 == 0 {
			vid = s.vids[(k/3)%len(s.vids)]
			tx, err = w.BuildIncreaseBalance(ctx, vid, amt)
		} else {
			tx, err = w.BuildSend(ctx, amt, s.to)
		}
		if err != nil {
			return // the node is down: nothing was issued
		}
		_, err = w.Client.IssueTx(ctx, tx.Bytes())
		ok := err == nil
		if ok {
			s.acks++
		} else {
			s.uncertain++
			ok = s.settle(ctx, tx.ID())
		}
		if !ok {
			return
		}
		s.accepted[tx.ID()] = true
		if k%3 == 0 {
			s.topUps[vid] = append(s.topUps[vid], amt)
		} else {
			s.sent += amt
		}
	case 2:
		// Hours to most of a day: the clock crosses midnights.
		next := s.clock + 3600 + uint64(k*7919)%(20*3600)
		for ctx.Err() == nil {
			if _, err := s.wallet().Client.SetTime(ctx, next); err == nil {
				s.clock = next
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestPChainCrash is the issue's second acceptance test: the host is
// SIGKILLed pCrashRounds times (some during start-up) while a stream tops
// up three L1 validators, makes transfers and moves the clock across
// midnights. No transaction the chain acknowledged is lost: each is
// committed, once, in a block of P/block, which holds every block in
// order; the transfers and top-ups that were accepted, and only they, are
// in the balances; and the fees per UTC day and per validator are exactly
// the configured rate for every second each validator was active.
func TestPChainCrash(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("random delays from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	opts := nodetest.Options{Config: pchainConfig("manual"), DataDir: t.TempDir()}
	n := nodetest.Start(t, opts)
	ctx := context.Background()
	w := pchainWallet(t, n)

	// An L1 of three validators whose balances outlast the test: each
	// pays the rate for every second from tA on.
	tA := uint64(pT0 + 10*3600)
	setPChainTime(t, w, tA)
	subnet, err := w.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	manager, err := w.CreateChain(ctx, subnet, "manager", ids.ID{'e', 'v', 'm'}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const initial = 1_000_000_000_000_000 // 1,000,000 AVAX: 31 years at pRate
	_, vids, err := w.ConvertSubnet(ctx, subnet, manager, []byte{1}, []client.NewL1Validator{
		{NodeID: pchainNodeID(21), Weight: 10, Balance: initial}, {NodeID: pchainNodeID(22), Weight: 10, Balance: initial}, {NodeID: pchainNodeID(23), Weight: 10, Balance: initial},
	})
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	cur := n
	s := &pStream{base: w, vids: vids, to: avax.ShortID{0x70}, clock: tA,
		current:  func() *nodetest.Node { mu.Lock(); defer mu.Unlock(); return cur },
		accepted: map[ids.ID]bool{}, topUps: map[ids.ID][]uint64{}}
	for round := range pCrashRounds {
		// The stream stops between steps: a step caught by the kill
		// settles against the next node before it ends.
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for k := round * 1000; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				s.step(ctx, k)
			}
		}()
		time.Sleep(time.Duration(100+rng.IntN(600)) * time.Millisecond)
		s.current().Kill()
		if round%4 == 3 {
			killWhileStarting(t, opts, rng)
		}
		next := nodetest.Start(t, opts)
		mu.Lock()
		cur = next
		mu.Unlock()
		close(stop)
		<-done
	}
	n = s.current()
	w = pchainWallet(t, n)
	t.Logf("%d kills: %d transactions acknowledged, %d failed calls settled; %d accepted; clock at t0%+ds",
		pCrashRounds, s.acks, s.uncertain, len(s.accepted), int64(s.clock)-pT0)
	if s.acks == 0 || s.clock < tA+pDay {
		t.Fatal("the stream did too little: the test proved nothing")
	}
	setPChainTime(t, w, s.clock) // the clock is where the stream last set it

	// Every accepted transaction is in one block of P/block, and every
	// transaction of the stream's blocks is one of them.
	inBlocks := map[ids.ID]int{}
	for _, b := range walkPChainBlocks(t, n, w) {
		for _, tx := range b.Txs {
			inBlocks[tx.ID()]++
		}
	}
	for id := range s.accepted {
		if inBlocks[id] != 1 {
			t.Fatalf("accepted tx %s is in %d blocks", id, inBlocks[id])
		}
		if st, err := w.Client.GetTxStatus(ctx, id); err != nil || st != "Committed" {
			t.Fatalf("accepted tx %s: %s, %v", id, st, err)
		}
	}
	if got := len(inBlocks); got != len(s.accepted)+3 { // the subnet, chain and conversion
		t.Fatalf("P/block holds %d transactions, the stream's %d and 3", got, len(s.accepted))
	}
	if b, err := w.Client.GetBalance(ctx, []string{w.FormatAddress(s.to)}); err != nil || b.Unlocked != s.sent {
		t.Fatalf("the recipient holds %d (%v), the accepted transfers sent %d", b.Unlocked, err, s.sent)
	}

	// The fees: each validator paid the rate for each second from tA to
	// the clock, split by UTC day.
	paid := (s.clock - tA) * pRate
	perDay := map[uint64]uint64{}
	for at := tA; at < s.clock; {
		d := at / pDay
		end := min((d+1)*pDay, s.clock)
		perDay[d*pDay] += (end - at) * pRate
		at = end
	}
	for _, id := range vids {
		var added uint64
		for _, a := range s.topUps[id] {
			added += a
		}
		v, err := w.Client.GetL1Validator(ctx, id)
		if err != nil || uint64(v.Balance) != initial+added-paid {
			t.Fatalf("validator %s: balance %d (%v), want %d + %d top-ups - %d paid", id, v.Balance, err, uint64(initial), added, paid)
		}
		f, err := w.Client.GetL1ValidatorFees(ctx, pvmapi.FeesArgs{ValidationID: id.String()})
		if err != nil {
			t.Fatal(err)
		}
		var cum uint64
		for _, d := range f.Days {
			cum += perDay[uint64(d.Day)]
			if uint64(d.Fees) != perDay[uint64(d.Day)] || uint64(d.CumulativeFees) != cum {
				t.Fatalf("validator %s on day %d: %d (cumulative %d), want %d (%d)", id, d.Day, d.Fees, d.CumulativeFees, perDay[uint64(d.Day)], cum)
			}
		}
		if cum != paid {
			t.Fatalf("validator %s paid %d over its days, want %d", id, cum, paid)
		}
	}
	tot, err := w.Client.GetL1FeeTotals(ctx, pvmapi.FeesArgs{StartTime: jsonrpc.Uint64(tA)})
	if err != nil {
		t.Fatal(err)
	}
	var cum uint64
	for _, d := range tot.Days {
		want := 3 * perDay[uint64(d.Day)]
		cum += want
		if uint64(d.Fees) != want || uint64(d.CumulativeFees) != cum || uint64(*d.PayingValidators) != 3 {
			t.Fatalf("fee totals of day %d: %+v, want %d (cumulative %d), 3 paying", d.Day, d, want, cum)
		}
	}
	if cum != 3*paid {
		t.Fatalf("the fee totals sum to %d, want %d", cum, 3*paid)
	}
}
