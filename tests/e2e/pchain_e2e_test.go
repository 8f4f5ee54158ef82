package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The P-Chain of these tests: genesis at pT0 (2026-01-01T00:00:00Z), the
// ewoq key funded, one genesis validator until pT0 + 40 days, a manual
// clock that only the dev methods move, an L1 fee of pRate per second.
const (
	pT0       = 1_767_225_600
	pDay      = 86_400
	pRate     = 1_000
	pFee      = 1_000_000
	pFunded   = 300_000_000_000_000_000
	pMinStake = 2_000_000_000_000
	pAVAX     = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
	pEwoqAddr = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
)

// pGenesisNode validates from genesis.
var pGenesisNode = pchainNodeID(0xee)

func pBalance(t *testing.T, w *client.Wallet) uint64 {
	t.Helper()
	b, err := w.Client.GetBalance(context.Background(), []string{w.FormatAddress(w.Address())})
	if err != nil {
		t.Fatal(err)
	}
	return b.Unlocked
}

// pTotals is a subnet's totals at a time: counts and weights.
type pTotals struct{ vc, vw, dc, dw uint64 }

func pTotalsAt(t *testing.T, w *client.Wallet, subnet ids.ID, at uint64) pTotals {
	t.Helper()
	tt := jsonrpc.Uint64(at)
	r, err := w.Client.GetStakingTotals(context.Background(), pvmapi.StakingTotalsArgs{Time: &tt, SubnetID: subnet.String()})
	if err != nil || len(r.Subnets) != 1 {
		t.Fatalf("pvm.getStakingTotals of %s at %d: %+v, %v", subnet, at, r, err)
	}
	s := r.Subnets[0]
	return pTotals{uint64(s.ValidatorCount), uint64(s.ValidatorWeight), uint64(s.DelegatorCount), uint64(s.DelegatorWeight)}
}

// pCheckTotals checks a subnet's totals at several times.
func pCheckTotals(t *testing.T, w *client.Wallet, subnet ids.ID, want map[uint64]pTotals) {
	t.Helper()
	for at, tot := range want {
		if got := pTotalsAt(t, w, subnet, at); got != tot {
			t.Errorf("%s at t0%+ds: %+v, want %+v", subnet, int64(at)-pT0, got, tot)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestPChainStakingAndL1Fees is the issue's first acceptance test, on the
// real node with the dev clock: validators and delegators are added, the
// counts and weights read at several times are the ones they make, and
// their periods end with their stake back; a subnet becomes an L1, L1
// validators register, one is topped up, one changes weight, one is
// disabled, the others run out of balance and become inactive at the
// computed second; the fees per UTC day, cumulative and per validation ID,
// and the paying validators per day are the values computed here from the
// configured rate, across midnight and across a clean restart and a
// SIGKILL. Every block is in P/block, in order.
func TestPChainStakingAndL1Fees(t *testing.T) {
	t.Parallel()
	opts := nodetest.Options{Config: pchainConfig("manual"), DataDir: t.TempDir()}
	n := nodetest.Start(t, opts)
	ctx := context.Background()
	w := pchainWallet(t, n)
	primary := txs.PrimaryNetworkID

	// The primary network: A (with a BLS key) from t0 for 20 days, B from
	// day 1 to day 10; D1 delegates to A until day 5, D2 to B from day 2
	// to day 8.
	a, b := pchainNodeID(1), pchainNodeID(2)
	const stakeA, stakeB, d1, d2 = 3_000_000_000_000, 2_500_000_000_000, 100_000_000_000, 50_000_000_000
	popA := txs.NewProofOfPossession(w.DevBLSKey(a))
	for _, step := range []func() (ids.ID, error){
		func() (ids.ID, error) {
			return w.AddValidator(ctx, client.Stake{NodeID: a, Weight: stakeA, End: pT0 + 20*pDay}, 20_000, &popA)
		},
		func() (ids.ID, error) {
			return w.AddValidator(ctx, client.Stake{NodeID: b, Weight: stakeB, Start: pT0 + pDay, End: pT0 + 10*pDay}, 50_000, nil)
		},
		func() (ids.ID, error) {
			return w.AddDelegator(ctx, client.Stake{NodeID: a, Weight: d1, End: pT0 + 5*pDay})
		},
		func() (ids.ID, error) {
			return w.AddDelegator(ctx, client.Stake{NodeID: b, Weight: d2, Start: pT0 + 2*pDay, End: pT0 + 8*pDay})
		},
	} {
		if _, err := step(); err != nil {
			t.Fatal(err)
		}
	}
	staked := uint64(pFunded - stakeA - stakeB - d1 - d2 - 4*pFee)
	if got := pBalance(t, w); got != staked {
		t.Fatalf("balance after staking %d, want %d", got, staked)
	}
	vdrs, err := w.Client.GetCurrentValidators(ctx, a)
	if err != nil || len(vdrs) != 1 || vdrs[0].Weight != stakeA || vdrs[0].DelegatorCount != 1 || vdrs[0].DelegatorWeight != d1 ||
		len(vdrs[0].Delegators) != 1 || vdrs[0].Delegators[0].EndTime != pT0+5*pDay || vdrs[0].Signer == nil {
		t.Fatalf("getCurrentValidators A: %+v, %v", vdrs, err)
	}
	setPChainTime(t, w, pT0+3*pDay)
	early := map[uint64]pTotals{
		pT0:               {2, pMinStake + stakeA, 1, d1},
		pT0 + pDay - 1:    {2, pMinStake + stakeA, 1, d1},
		pT0 + pDay:        {3, pMinStake + stakeA + stakeB, 1, d1},
		pT0 + 2*pDay:      {3, pMinStake + stakeA + stakeB, 2, d1 + d2},
		pT0 + 3*pDay:      {3, pMinStake + stakeA + stakeB, 2, d1 + d2},
		pT0 + 3*pDay - 17: {3, pMinStake + stakeA + stakeB, 2, d1 + d2},
	}
	pCheckTotals(t, w, primary, early)

	// A clean restart keeps the history and the clock.
	n = n.Restart(t)
	w = pchainWallet(t, n)
	if ts, err := w.Client.GetTimestamp(ctx); err != nil || ts.Unix() != pT0+3*pDay {
		t.Fatalf("clock after a restart: %v, %v", ts, err)
	}
	pCheckTotals(t, w, primary, early)

	// The L1, made at 23:00 on day 3: V1 can pay 5000 s, V2 3 h; V3
	// registers with 7200.5 s worth (its last second pays 500).
	t1 := uint64(pT0 + 4*pDay - 3600)
	midnight := t1 + 3600
	setPChainTime(t, w, t1)
	subnet, err := w.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	manager, err := w.CreateChain(ctx, subnet, "manager", ids.ID{'s', 'u', 'b', 'n', 'e', 't', 'e', 'v', 'm'}, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	_, vids, err := w.ConvertSubnet(ctx, subnet, manager, []byte{0xab, 0xcd}, []client.NewL1Validator{
		{NodeID: pchainNodeID(11), Weight: 100, Balance: 5_000_000},
		{NodeID: pchainNodeID(12), Weight: 100, Balance: 10_800_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	v1, v2 := vids[0], vids[1]
	_, v3, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: pchainNodeID(13), Weight: 50, Balance: 7_200_500}, t1+3600)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := w.Client.GetL1Validators(ctx, subnet)
	if err != nil || len(l1) != 3 {
		t.Fatalf("L1 validators: %+v, %v", l1, err)
	}
	// At midnight: V2 gets another hour, V3 weighs 70, V4 registers with
	// 9000 s worth and is disabled 1000 s later.
	setPChainTime(t, w, midnight)
	if _, err := w.IncreaseBalance(ctx, v2, 3_600_000); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SetL1ValidatorWeight(ctx, v3, 70); err != nil {
		t.Fatal(err)
	}
	_, v4, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: pchainNodeID(14), Weight: 10, Balance: 9_000_000}, midnight+3600)
	if err != nil {
		t.Fatal(err)
	}
	setPChainTime(t, w, midnight+1000)
	before := pBalance(t, w)
	if _, err := w.Disable(ctx, v4); err != nil {
		t.Fatal(err)
	}
	if got := pBalance(t, w); got != before-pFee+8_000_000 {
		t.Fatalf("the disable refunded %d, want 8000000", int64(got)-int64(before-pFee))
	}
	if v, err := w.Client.GetL1Validator(ctx, v1); err != nil || uint64(v.Balance) != 5_000_000-(midnight+1000-t1)*pRate {
		t.Fatalf("V1 %+v, %v", v, err)
	}

	// Killed: everything accepted so far is there after the restart.
	n.Kill()
	n = nodetest.Start(t, opts)
	w = pchainWallet(t, n)

	// Past every run-out: V1 at t1+5000, V3 at t1+7201, V2 at t1+14400.
	setPChainTime(t, w, t1+20_000)
	pCheckTotals(t, w, subnet, map[uint64]pTotals{
		t1:              {3, 250, 0, 0},
		midnight:        {4, 280, 0, 0},
		midnight + 1000: {3, 270, 0, 0},
		t1 + 4999:       {3, 270, 0, 0},
		t1 + 5000:       {2, 170, 0, 0},
		t1 + 7200:       {2, 170, 0, 0},
		t1 + 7201:       {1, 100, 0, 0},
		t1 + 14399:      {1, 100, 0, 0},
		t1 + 14400:      {0, 0, 0, 0},
	})
	for _, id := range []ids.ID{v1, v2, v3, v4} {
		if v, err := w.Client.GetL1Validator(ctx, id); err != nil || v.Balance != 0 {
			t.Fatalf("validator %s still has a balance: %+v, %v", id, v, err)
		}
	}
	day3, day4 := uint64(pT0+3*pDay), uint64(pT0+4*pDay)
	checkFees := func(when string) {
		t.Helper()
		for _, c := range []struct {
			id         ids.ID
			name       string
			first, sec uint64
		}{
			{v1, "V1", 3600 * pRate, 1400 * pRate},
			{v2, "V2", 3600 * pRate, 10_800 * pRate},
			{v3, "V3", 3600 * pRate, 3600*pRate + 500},
			{v4, "V4", 0, 1000 * pRate},
		} {
			f, err := w.Client.GetL1ValidatorFees(ctx, pvmapi.FeesArgs{ValidationID: c.id.String(), StartTime: pT0, EndTime: jsonrpc.Uint64(day4 + pDay - 1)})
			if err != nil {
				t.Fatal(err)
			}
			want := []pvmapi.FeeDay{
				{Day: jsonrpc.Uint64(day3), Fees: jsonrpc.Uint64(c.first), CumulativeFees: jsonrpc.Uint64(c.first)},
				{Day: jsonrpc.Uint64(day4), Fees: jsonrpc.Uint64(c.sec), CumulativeFees: jsonrpc.Uint64(c.first + c.sec)},
			}
			if c.id == v4 {
				want = want[1:] // it started at midnight
			}
			if fmt.Sprint(f.Days) != fmt.Sprint(want) {
				t.Fatalf("%s: fees of %s: %+v, want %+v", when, c.name, f.Days, want)
			}
		}
		tot, err := w.Client.GetL1FeeTotals(ctx, pvmapi.FeesArgs{StartTime: pT0, EndTime: jsonrpc.Uint64(day4 + pDay - 1)})
		if err != nil {
			t.Fatal(err)
		}
		// Days 0 to 2 had no L1; day 3 had V1, V2, V3 from 23:00; day 4
		// all four.
		want := []struct{ fees, cum, paying uint64 }{
			{0, 0, 0}, {0, 0, 0}, {0, 0, 0},
			{3 * 3600 * pRate, 3 * 3600 * pRate, 3},
			{(1400+10_800+3600+1000)*pRate + 500, (3*3600+1400+10_800+3600+1000)*pRate + 500, 4},
		}
		if len(tot.Days) != len(want) {
			t.Fatalf("%s: %d days of totals, want %d", when, len(tot.Days), len(want))
		}
		for i, d := range tot.Days {
			if uint64(d.Day) != pT0+uint64(i)*pDay || uint64(d.Fees) != want[i].fees || uint64(d.CumulativeFees) != want[i].cum ||
				d.PayingValidators == nil || uint64(*d.PayingValidators) != want[i].paying {
				t.Fatalf("%s: totals of day %d: %+v, want %+v", when, i, d, want[i])
			}
		}
	}
	checkFees("after the run-outs")

	// The staking periods end: D1 at day 5, D2 at day 8, B at day 10, A at
	// day 20, the genesis validator at day 40; the stake comes back.
	setPChainTime(t, w, pT0+41*pDay)
	pCheckTotals(t, w, primary, map[uint64]pTotals{
		pT0 + 5*pDay - 1:  {3, pMinStake + stakeA + stakeB, 2, d1 + d2},
		pT0 + 5*pDay:      {3, pMinStake + stakeA + stakeB, 1, d2},
		pT0 + 8*pDay:      {3, pMinStake + stakeA + stakeB, 0, 0},
		pT0 + 10*pDay:     {2, pMinStake + stakeA, 0, 0},
		pT0 + 20*pDay:     {1, pMinStake, 0, 0},
		pT0 + 40*pDay - 1: {1, pMinStake, 0, 0},
		pT0 + 40*pDay:     {0, 0, 0, 0},
	})
	n = n.Restart(t)
	w = pchainWallet(t, n)
	checkFees("after a restart")
	// What the L1 cost the key: the subnet and the chain, the conversion
	// and the registrations with their balances, the top-up, the weight,
	// the disable, less its refund.
	spentOnL1 := uint64(2*100_000_000 + (pFee + 15_800_000) + (pFee + 7_200_500) + (pFee + 3_600_000) + pFee + (pFee + 9_000_000) + pFee - 8_000_000)
	if got := pBalance(t, w); got != pFunded-4*pFee+pMinStake-spentOnL1 {
		t.Fatalf("final balance %d, want %d", got, pFunded-4*pFee+pMinStake-spentOnL1)
	}
	blks := walkPChainBlocks(t, n, w)
	// The events made blocks at their exact seconds.
	times := map[uint64]bool{}
	for _, b := range blks {
		times[b.Time] = true
	}
	for _, at := range []uint64{pT0 + pDay, pT0 + 2*pDay, pT0 + 5*pDay, t1 + 5000, t1 + 7201, t1 + 14400, pT0 + 40*pDay} {
		if !times[at] {
			t.Errorf("no block at t0%+ds", int64(at)-pT0)
		}
	}
}

// TestPChainRefused is the issue's third acceptance test: overlapping
// validator periods, zero weight, an unknown subnet, an insufficient
// balance, a bad signature and a replay are refused with a clear error and
// change nothing: no balance, no block, nothing in the index.
func TestPChainRefused(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: pchainConfig("manual")})
	ctx := context.Background()
	w := pchainWallet(t, n)
	a := pchainNodeID(1)
	if _, err := w.AddValidator(ctx, client.Stake{NodeID: a, Weight: pMinStake, End: pT0 + 10*pDay}, 20_000, nil); err != nil {
		t.Fatal(err)
	}
	sent, err := w.BuildSend(ctx, 1_000, avax.ShortID{7})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Client.IssueTx(ctx, sent.Bytes()); err != nil {
		t.Fatal(err)
	}
	balance := pBalance(t, w)
	height, _ := w.Client.GetHeight(ctx)
	stranger, err := avax.PrivateKeyFromBytes([]byte("a key that owns nothing on P...."))
	if err != nil {
		t.Fatal(err)
	}
	forgery, err := w.BuildSend(ctx, 2_000, stranger.Address())
	if err != nil {
		t.Fatal(err)
	}
	forged := txs.Sign(forgery.Unsigned, [][]*avax.PrivateKey{{stranger}})
	// A transfer that gives more than its inputs hold.
	greedy, err := w.BuildSend(ctx, 3_000, avax.ShortID{8})
	if err != nil {
		t.Fatal(err)
	}
	for i := range greedy.Unsigned.Base().Outs {
		greedy.Unsigned.Base().Outs[i].Out.Amt += balance
	}
	overdrawn := w.Sign(greedy.Unsigned)
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"overlapping validator periods", func() error {
			_, err := w.AddValidator(ctx, client.Stake{NodeID: a, Weight: pMinStake, Start: pT0 + 9*pDay, End: pT0 + 12*pDay}, 20_000, nil)
			return err
		}, "periods overlap"},
		{"zero weight", func() error {
			_, err := w.AddDelegator(ctx, client.Stake{NodeID: a, Weight: 0, End: pT0 + pDay})
			return err
		}, "weight is zero"},
		{"unknown subnet", func() error {
			_, err := w.CreateChain(ctx, ids.ID{0x5b}, "x", ids.ID{1}, nil)
			return err
		}, "unknown subnet"},
		{"insufficient balance", func() error {
			_, err := w.Client.IssueTx(ctx, overdrawn.Bytes())
			return err
		}, "insufficient funds"},
		{"bad signature", func() error {
			_, err := w.Client.IssueTx(ctx, forged.Bytes())
			return err
		}, "not by the UTXO's owner"},
		{"replay", func() error {
			_, err := w.Client.IssueTx(ctx, sent.Bytes())
			return err
		}, "accepted already"},
	} {
		err := c.run()
		var rpcErrorCode *jsonrpc.Error
		if !errors.As(err, &rpcErrorCode) || !strings.Contains(rpcErrorCode.Message, c.want) {
			t.Errorf("%s: %v, want a JSON-RPC error saying %q", c.name, err, c.want)
		}
	}
	if got := pBalance(t, w); got != balance {
		t.Errorf("the refused transactions changed the balance: %d, want %d", got, balance)
	}
	if h, _ := w.Client.GetHeight(ctx); h != height {
		t.Errorf("the refused transactions made blocks: height %d, want %d", h, height)
	}
	if got := walkPChainBlocks(t, n, w); uint64(len(got)) != height {
		t.Errorf("P/block holds %d blocks, want %d", len(got), height)
	}
	if s, _ := w.Client.GetTxStatus(ctx, forged.ID()); s != "Unknown" {
		t.Errorf("status of the forged tx: %s", s)
	}
}

// TestPChainWallClock: on a wall clock the chain makes the block of a
// staking period's end at its exact second by itself (nobody calls the
// chain: the test watches the host's index), and pvm.increaseTime moves the
// clock forward for good, across a restart.
func TestPChainWallClock(t *testing.T) {
	t.Parallel()
	opts := nodetest.Options{Config: pchainConfig("wall"), DataDir: t.TempDir()}
	n := nodetest.Start(t, opts)
	ctx := context.Background()
	w := pchainWallet(t, n)
	now, err := w.Client.GetTimestamp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	end := uint64(now.Unix()) + 5 // the period lasts at least min-stake-duration (2 s) under load too
	if _, err := w.AddValidator(ctx, client.Stake{NodeID: pchainNodeID(1), Weight: pMinStake, End: end}, 20_000, nil); err != nil {
		t.Fatal(err)
	}
	added := len(walkIndexByIndex(t, n, "P", "block"))
	plugintest.Eventually(t, 30*time.Second, func() error {
		walked := walkIndexByIndex(t, n, "P", "block")
		if len(walked) <= added {
			return fmt.Errorf("no block at the validator's end %d", end)
		}
		b, err := blocks.Parse(walked[len(walked)-1].Bytes)
		if err != nil || b.Time != end || len(b.Txs) != 0 {
			t.Fatalf("the block after the validator's: %+v, %v; want an empty block at its end %d", b, err, end)
		}
		return nil
	})
	// The genesis validator's period ended before the node first started:
	// its block came at its own second too.
	found := false
	for _, c := range walkIndexByIndex(t, n, "P", "block") {
		if b, _ := blocks.Parse(c.Bytes); b != nil && b.Time == pT0+40*pDay {
			found = true
		}
	}
	if !found {
		t.Fatal("no block at the end of the genesis validator's period")
	}
	moved, err := w.Client.IncreaseTime(ctx, 30*pDay)
	if err != nil || moved < end+30*pDay {
		t.Fatalf("pvm.increaseTime: %d, %v", moved, err)
	}
	n = n.Restart(t)
	w = pchainWallet(t, n)
	if ts, err := w.Client.GetTimestamp(ctx); err != nil || uint64(ts.Unix()) < moved {
		t.Fatalf("after a restart the clock is at %v (%v), before %d", ts, err, moved)
	}
	var rpcErrorCode *jsonrpc.Error
	if _, err := w.Client.SetTime(ctx, pT0); !errors.As(err, &rpcErrorCode) || rpcErrorCode.Code != -32602 || !strings.Contains(rpcErrorCode.Message, "only moves forward") {
		t.Fatalf("setting the clock back: %v", err)
	}
}
