package pvm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"slices"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax"
	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

const (
	avaxAssetID   = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
	genesisAmount = 300_000_000_000_000_000
	// t0 is the genesis time: 2026-01-01T00:00:00Z.
	t0 = 1_767_225_600
	// Rules of the test chain (its config below).
	fee       = 1_000_000
	subnetFee = 100_000_000
	rate      = 1_000 // nAVAX per second per active L1 validator
	day       = 86_400
	minStake  = 2_000_000_000_000
)

// genesisNode is the validator of the genesis, until t0 + 30 days.
var genesisNode = nodeID(0xee)

func nodeID(b byte) avax.NodeID { return avax.NodeID{b, 0x01, 0x02} }

// nodeKey is a key that owns nothing.
func nodeKey(t *testing.T) *avax.PrivateKey {
	k, err := avax.PrivateKeyFromBytes([]byte("a key that owns nothing on P...."))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func testGenesis() string {
	return fmt.Sprintf(`{"avaxAssetID":%q,"timestamp":%d,
		"allocations":[{"address":"P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u","amount":"%d"}],
		"validators":[{"nodeID":%q,"weight":"%d","endTime":%d,"rewardAddress":"P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u","delegationFee":20000}]}`,
		avaxAssetID, t0, uint64(genesisAmount), genesisNode, uint64(minStake), t0+30*day)
}

const testConfig = `{"clock":"manual","dev-api-enabled":true,"l1-fee-rate":1000,"min-stake-duration":3600,"tx-fee":1000000,"create-subnet-tx-fee":100000000,"create-chain-tx-fee":100000000}`

// peer is another chain of the node (the X-Chain of the tests).
var peer = host.ChainInfo{ID: ids.Derive([]byte("peer")), VMName: "avm", Aliases: []string{"X"}, Running: true}

type chain struct {
	t      *testing.T
	h      *plugintest.Harness
	url    string
	wallet *client.Wallet
}

func start(t *testing.T) *chain {
	t.Helper()
	h := plugintest.Start(t, pvm.New(), plugintest.Options{
		Name: "P", NetworkID: avax.LocalID, Genesis: []byte(testGenesis()), Config: []byte(testConfig),
		Chains: []host.ChainInfo{peer},
	})
	c := &chain{t: t, h: h, url: h.URL("")}
	key, err := avax.ParsePrivateKey("0x" + vectors.EwoqKey)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewEndpoint(c.url, "P", nil)
	cfg, err := cl.GetConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.wallet = &client.Wallet{Client: cl, Account: utxoclient.Account{Key: key, NetworkID: avax.LocalID, ChainID: h.ChainID()}, Config: cfg}
	return c
}

func (c *chain) call(method string, params, result any) error {
	return jsonrpc.Call(context.Background(), nil, c.url, method, params, result)
}

func (c *chain) balance(a avax.ShortID) uint64 {
	c.t.Helper()
	b, err := c.wallet.Client.GetBalance(context.Background(), []string{c.wallet.FormatAddress(a)})
	if err != nil {
		c.t.Fatal(err)
	}
	return b.Unlocked
}

func (c *chain) setTime(t uint64) {
	c.t.Helper()
	if got, err := c.wallet.Client.SetTime(context.Background(), t); err != nil || got != t {
		c.t.Fatalf("set time %d: %d, %v", t, got, err)
	}
}

// totals returns the primary network's totals at a time.
func (c *chain) totals(at uint64) pvmapi.SubnetTotals {
	c.t.Helper()
	tt := jsonrpc.Uint64(at)
	r, err := c.wallet.Client.GetStakingTotals(context.Background(), pvmapi.StakingTotalsArgs{Time: &tt, SubnetID: txs.PrimaryNetworkID.String()})
	if err != nil || len(r.Subnets) != 1 {
		c.t.Fatalf("totals at %d: %+v, %v", at, r, err)
	}
	return r.Subnets[0]
}

func wantTotals(t *testing.T, what string, got pvmapi.SubnetTotals, vc, vw, dc, dw uint64) {
	t.Helper()
	if uint64(got.ValidatorCount) != vc || uint64(got.ValidatorWeight) != vw || uint64(got.DelegatorCount) != dc || uint64(got.DelegatorWeight) != dw {
		t.Fatalf("%s: validators %d weigh %d, delegators %d weigh %d; want %d, %d, %d, %d",
			what, got.ValidatorCount, got.ValidatorWeight, got.DelegatorCount, got.DelegatorWeight, vc, vw, dc, dw)
	}
}

// TestGenesis: the funded key, the genesis validator and its transaction,
// the chain's time, height and totals.
func TestGenesis(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	if got := c.balance(c.wallet.Address()); got != genesisAmount {
		t.Fatalf("ewoq holds %d", got)
	}
	if ts, err := c.wallet.Client.GetTimestamp(ctx); err != nil || ts.Unix() != t0 {
		t.Fatalf("timestamp %v, %v", ts, err)
	}
	if h, err := c.wallet.Client.GetHeight(ctx); err != nil || h != 0 {
		t.Fatalf("height %d, %v", h, err)
	}
	vdrs, err := c.wallet.Client.GetCurrentValidators(ctx)
	if err != nil || len(vdrs) != 1 || vdrs[0].NodeID != genesisNode || vdrs[0].Weight != minStake ||
		vdrs[0].StartTime != t0 || vdrs[0].EndTime != t0+30*day || vdrs[0].DelegationFee != "2.0000" {
		t.Fatalf("validators %+v, %v", vdrs, err)
	}
	if _, err := c.wallet.Client.GetTx(ctx, vdrs[0].TxID); err != nil {
		t.Fatalf("genesis validator tx: %v", err)
	}
	wantTotals(t, "genesis", c.totals(t0), 1, minStake, 0, 0)
	var mins map[string]string
	if err := c.call("platform.getMinStake", nil, &mins); err != nil || mins["minValidatorStake"] != "2000000000000" || mins["minDelegatorStake"] != "25000000000" {
		t.Fatalf("getMinStake %v, %v", mins, err)
	}
	var chains struct {
		Blockchains []struct {
			ID   ids.ID `json:"id"`
			Name string `json:"name"`
		} `json:"blockchains"`
	}
	if err := c.call("platform.getBlockchains", nil, &chains); err != nil || len(chains.Blockchains) != 1 || chains.Blockchains[0].ID != peer.ID {
		t.Fatalf("blockchains %+v, %v", chains, err)
	}
}

// TestStakers: validators and delegators enter the set at their start and
// leave it at their end, their stake returns then; counts and weights at
// several times are the ones they make.
func TestStakers(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	w := c.wallet
	me := w.Address()
	a, b := nodeID(1), nodeID(2)
	const stakeA, stakeB, del = 3_000_000_000_000, 2_500_000_000_000, 100_000_000_000
	// A validates from now (t0) for 10 days with a BLS key; B from
	// t0+1 day to t0+5 days without one.
	pop := txs.NewProofOfPossession(w.DevBLSKey(a))
	if _, err := w.AddValidator(ctx, client.Stake{NodeID: a, Weight: stakeA, End: t0 + 10*day}, 20_000, &pop); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddValidator(ctx, client.Stake{NodeID: b, Weight: stakeB, Start: t0 + day, End: t0 + 5*day}, 30_000, nil); err != nil {
		t.Fatal(err)
	}
	// A delegator of B for days 2 to 4.
	delID, err := w.AddDelegator(ctx, client.Stake{NodeID: b, Weight: del, Start: t0 + 2*day, End: t0 + 4*day})
	if err != nil {
		t.Fatal(err)
	}
	after := uint64(genesisAmount - stakeA - stakeB - del - 3*fee)
	if got := c.balance(me); got != after {
		t.Fatalf("balance %d, want %d", got, after)
	}
	wantTotals(t, "t0", c.totals(t0), 2, minStake+stakeA, 0, 0)
	c.setTime(t0 + 6*day)
	wantTotals(t, "t0+1d-1s", c.totals(t0+day-1), 2, minStake+stakeA, 0, 0)
	wantTotals(t, "t0+1d", c.totals(t0+day), 3, minStake+stakeA+stakeB, 0, 0)
	wantTotals(t, "t0+2d", c.totals(t0+2*day), 3, minStake+stakeA+stakeB, 1, del)
	wantTotals(t, "t0+4d", c.totals(t0+4*day), 3, minStake+stakeA+stakeB, 0, 0)
	wantTotals(t, "t0+5d", c.totals(t0+5*day), 2, minStake+stakeA, 0, 0)
	// The stake of B and of its delegator came back.
	if got := c.balance(me); got != after+stakeB+del {
		t.Fatalf("balance after B's end %d, want %d", got, after+stakeB+del)
	}
	if _, err := w.Client.GetTx(ctx, delID); err != nil {
		t.Fatal(err)
	}
	c.setTime(t0 + 31*day)
	wantTotals(t, "t0+31d", c.totals(t0+31*day), 0, 0, 0, 0)
	if got := c.balance(me); got != genesisAmount-3*fee+minStake {
		t.Fatalf("final balance %d", got)
	}
}

// TestRefused: bad transactions are refused with a clear error and change
// nothing.
func TestRefused(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	w := c.wallet
	a := nodeID(1)
	if _, err := w.AddValidator(ctx, client.Stake{NodeID: a, Weight: minStake, End: t0 + 10*day}, 20_000, nil); err != nil {
		t.Fatal(err)
	}
	before := c.balance(w.Address())
	height, _ := w.Client.GetHeight(ctx)
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"overlapping period", func() error {
			_, err := w.AddValidator(ctx, client.Stake{NodeID: a, Weight: minStake, Start: t0 + 5*day, End: t0 + 12*day}, 20_000, nil)
			return err
		}, "periods overlap"},
		{"zero weight", func() error {
			_, err := w.AddDelegator(ctx, client.Stake{NodeID: a, Weight: 0, End: t0 + 2*day})
			return err
		}, "weight is zero"},
		{"below the minimum stake", func() error {
			_, err := w.AddValidator(ctx, client.Stake{NodeID: nodeID(3), Weight: minStake - 1, End: t0 + 2*day}, 20_000, nil)
			return err
		}, "below the minimum validator stake"},
		{"delegator of no validator", func() error {
			_, err := w.AddDelegator(ctx, client.Stake{NodeID: nodeID(9), Weight: 25_000_000_000, End: t0 + 2*day})
			return err
		}, "is not a validator"},
		{"delegation beyond the validator", func() error {
			_, err := w.AddDelegator(ctx, client.Stake{NodeID: a, Weight: 25_000_000_000, End: t0 + 11*day})
			return err
		}, "covers the delegation"},
		{"too much delegated", func() error {
			_, err := w.AddDelegator(ctx, client.Stake{NodeID: a, Weight: 4*minStake + 1, End: t0 + 2*day})
			return err
		}, "above its maximum"},
		{"unknown subnet", func() error {
			_, err := w.CreateChain(ctx, ids.ID{7}, "x", ids.ID{1}, nil)
			return err
		}, "unknown subnet"},
		{"insufficient balance", func() error {
			_, err := w.Send(ctx, before, w.Address())
			return err
		}, "insufficient funds"},
	} {
		err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A bad signature: a transfer signed by another key.
	tx, err := w.BuildSend(ctx, 1_000, nodeKey(t).Address())
	if err != nil {
		t.Fatal(err)
	}
	forged := txs.Sign(tx.Unsigned, [][]*avax.PrivateKey{{nodeKey(t)}})
	if _, err := w.Client.IssueTx(ctx, forged.Bytes()); err == nil || !strings.Contains(err.Error(), "not by the UTXO's owner") {
		t.Errorf("bad signature: %v", err)
	}
	// A replay: an accepted transaction issued again.
	if _, err := w.Client.IssueTx(ctx, tx.Bytes()); err != nil {
		t.Fatal(err)
	}
	before -= 1_000 + fee
	if _, err := w.Client.IssueTx(ctx, tx.Bytes()); err == nil || !strings.Contains(err.Error(), "accepted already") {
		t.Errorf("replay: %v", err)
	}
	height++
	if got := c.balance(w.Address()); got != before {
		t.Fatalf("refused transactions changed the balance: %d, want %d", got, before)
	}
	if h, _ := w.Client.GetHeight(ctx); h != height {
		t.Fatalf("refused transactions made blocks: height %d, want %d", h, height)
	}
	var rpcErr *jsonrpc.Error
	if _, err := w.Client.IssueTx(ctx, []byte{1, 2}); !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("garbage tx: %v", err)
	}
}

// l1Totals returns an L1's totals at a time.
func (c *chain) l1Totals(subnet ids.ID, at uint64) pvmapi.SubnetTotals {
	c.t.Helper()
	tt := jsonrpc.Uint64(at)
	r, err := c.wallet.Client.GetStakingTotals(context.Background(), pvmapi.StakingTotalsArgs{Time: &tt, SubnetID: subnet.String()})
	if err != nil || len(r.Subnets) != 1 {
		c.t.Fatalf("L1 totals at %d: %+v, %v", at, r, err)
	}
	return r.Subnets[0]
}

// makeL1 creates a subnet, its manager chain and converts it with vdrs at
// the chain's time.
func (c *chain) makeL1(vdrs ...client.NewL1Validator) (ids.ID, []ids.ID) {
	c.t.Helper()
	ctx := context.Background()
	w := c.wallet
	subnet, err := w.CreateSubnet(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	manager, err := w.CreateChain(ctx, subnet, "manager", ids.ID{'e', 'v', 'm'}, []byte("{}"))
	if err != nil {
		c.t.Fatal(err)
	}
	_, vids, err := w.ConvertSubnet(ctx, subnet, manager, []byte{0x12, 0x34}, vdrs)
	if err != nil {
		c.t.Fatal(err)
	}
	return subnet, vids
}

// TestL1: a subnet becomes an L1; validators register, are topped up,
// change weight, are disabled and run out of balance at the computed
// second; the fees per UTC day, split at midnight, and the paying
// validators are the ones the rate makes.
func TestL1(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	w := c.wallet
	t1 := uint64(t0 + day - 3600) // 23:00 on the first day
	c.setTime(t1)
	subnet, vids := c.makeL1(
		client.NewL1Validator{NodeID: nodeID(11), Weight: 100, Balance: 5_000_000},  // 5000 s
		client.NewL1Validator{NodeID: nodeID(12), Weight: 100, Balance: 10_800_000}, // 3 h
	)
	v1, v2 := vids[0], vids[1]
	// V3: 7200.5 seconds of fees; its last second pays 500.
	_, v3, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: nodeID(13), Weight: 50, Balance: 7_200_500}, t1+3600)
	if err != nil {
		t.Fatal(err)
	}
	wantTotals(t, "L1 at t1", c.l1Totals(subnet, t1), 3, 250, 0, 0)
	// A replayed register message is refused.
	if _, _, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: nodeID(13), Weight: 50, Balance: 1}, t1+3600); err == nil ||
		!strings.Contains(err.Error(), "replay") {
		t.Fatalf("replayed register message: %v", err)
	}
	// Midnight: V2 is topped up with another hour; V3 weighs 70; V4 comes
	// and is disabled 1000 s later.
	c.setTime(t1 + 3600)
	if _, err := w.IncreaseBalance(ctx, v2, 3_600_000); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SetL1ValidatorWeight(ctx, v3, 70); err != nil {
		t.Fatal(err)
	}
	// A weight message with a stale nonce (V3's next is 1 now) is refused.
	stale, err := w.ManagerMessage(ctx, subnet, (&warp.L1ValidatorWeight{ValidationID: v3, Nonce: 0, Weight: 60}).Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.IssueWeightMessage(ctx, stale); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("stale nonce: %v", err)
	}
	// The last validator of an L1 cannot be removed.
	lone, loneIDs := c.makeL1(client.NewL1Validator{NodeID: nodeID(15), Weight: 5, Balance: 1_000_000_000})
	if _, err := w.SetL1ValidatorWeight(ctx, loneIDs[0], 0); err == nil || !strings.Contains(err.Error(), "last validator") {
		t.Fatalf("removing the last validator of %s: %v", lone, err)
	}
	if _, err := w.Disable(ctx, loneIDs[0]); err != nil { // at once: it pays nothing
		t.Fatal(err)
	}
	_, v4, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: nodeID(14), Weight: 10, Balance: 9_000_000}, t1+7200)
	if err != nil {
		t.Fatal(err)
	}
	c.setTime(t1 + 4600)
	before := c.balance(w.Address())
	if _, err := w.Disable(ctx, v4); err != nil {
		t.Fatal(err)
	}
	if got := c.balance(w.Address()); got != before-fee+8_000_000 {
		t.Fatalf("disable refunded %d, want 8000000", int64(got)-int64(before-fee))
	}
	c.setTime(t1 + 20_000)
	for _, tc := range []struct {
		at   uint64
		n, w uint64
	}{
		{t1 + 4999, 3, 270}, {t1 + 5000, 2, 170}, {t1 + 7200, 2, 170}, {t1 + 7201, 1, 100}, {t1 + 14399, 1, 100}, {t1 + 14400, 0, 0},
	} {
		wantTotals(t, fmt.Sprintf("L1 at t1+%d", tc.at-t1), c.l1Totals(subnet, tc.at), tc.n, tc.w, 0, 0)
	}
	for _, id := range []ids.ID{v1, v2, v3, v4} {
		v, err := w.Client.GetL1Validator(ctx, id)
		if err != nil || v.Balance != 0 {
			t.Fatalf("validator %s: %+v, %v", id, v, err)
		}
	}
	jan1, jan2 := uint64(t0), uint64(t0+day)
	for _, tc := range []struct {
		id         ids.ID
		day1, day2 uint64
	}{
		{v1, 3_600_000, 1_400_000}, {v2, 3_600_000, 10_800_000}, {v3, 3_600_000, 3_600_500}, {v4, 0, 1_000_000},
	} {
		f, err := w.Client.GetL1ValidatorFees(ctx, pvmapi.FeesArgs{ValidationID: tc.id.String(), StartTime: t0})
		if err != nil {
			t.Fatal(err)
		}
		want := []pvmapi.FeeDay{{Day: jsonrpc.Uint64(jan1), Fees: jsonrpc.Uint64(tc.day1), CumulativeFees: jsonrpc.Uint64(tc.day1)},
			{Day: jsonrpc.Uint64(jan2), Fees: jsonrpc.Uint64(tc.day2), CumulativeFees: jsonrpc.Uint64(tc.day1 + tc.day2)}}
		if tc.id == v4 {
			want = want[1:] // it started on the second day
		}
		if fmt.Sprint(f.Days) != fmt.Sprint(want) {
			t.Fatalf("fees of %s: %+v, want %+v", tc.id, f.Days, want)
		}
	}
	tot, err := w.Client.GetL1FeeTotals(ctx, pvmapi.FeesArgs{StartTime: t0})
	if err != nil || len(tot.Days) != 2 {
		t.Fatalf("fee totals %+v, %v", tot, err)
	}
	for i, want := range []struct{ fees, cum, paying uint64 }{{10_800_000, 10_800_000, 3}, {16_800_500, 27_600_500, 4}} {
		d := tot.Days[i]
		if uint64(d.Fees) != want.fees || uint64(d.CumulativeFees) != want.cum || uint64(*d.PayingValidators) != want.paying {
			t.Fatalf("totals of day %d: %d, %d, %d paying; want %+v", i, d.Fees, d.CumulativeFees, *d.PayingValidators, want)
		}
	}
}

// TestIndexerHandler: the read methods are an internal handler, which a
// module reaches through a chain call: the totals at a height, the fees of
// a validation ID and their errors (an unknown validation ID is
// pvmapi.CodeNotFound; a bad param names it).
func TestIndexerHandler(t *testing.T) {
	c := start(t)
	if got := c.h.InternalHandlers(); len(got) != 1 || got[0] != pvmapi.IndexerHandler {
		t.Fatalf("internal handlers %v", got)
	}
	url := c.h.URL(pvmapi.IndexerHandler)
	ctx := context.Background()
	var tot pvmapi.StakingTotals
	h := jsonrpc.Uint64(0)
	if err := jsonrpc.Call(ctx, nil, url, pvmapi.GetStakingTotalsMethod, pvmapi.StakingTotalsArgs{Height: &h}, &tot); err != nil ||
		len(tot.Subnets) != 1 || tot.Subnets[0].SubnetID != txs.PrimaryNetworkID || tot.Subnets[0].ValidatorCount != 1 || tot.Time != t0 {
		t.Fatalf("totals at height 0: %+v, %v", tot, err)
	}
	var rpcErr *jsonrpc.Error
	err := jsonrpc.Call(ctx, nil, url, pvmapi.GetL1ValidatorFeesMethod, pvmapi.FeesArgs{ValidationID: ids.ID{1}.String()}, &struct{}{})
	if !errors.As(err, &rpcErr) || rpcErr.Code != pvmapi.CodeNotFound {
		t.Fatalf("fees of an unknown validation ID: %v", err)
	}
	for _, bad := range []struct {
		method string
		params any
		want   string
	}{
		{pvmapi.GetL1ValidatorFeesMethod, map[string]any{"validationID": "nope"}, `"validationID"`},
		{pvmapi.GetStakingTotalsMethod, map[string]any{"time": t0 - 1}, `"time"`},
		{pvmapi.GetStakingTotalsMethod, map[string]any{"height": 5}, `"height"`},
		{pvmapi.GetStakingTotalsMethod, map[string]any{"height": 0, "time": t0}, `not both`},
		{pvmapi.GetL1FeeTotalsMethod, map[string]any{"startTime": 10, "endTime": 5}, `"endTime"`},
	} {
		if err := jsonrpc.Call(ctx, nil, url, bad.method, bad.params, &struct{}{}); !errors.As(err, &rpcErr) || rpcErr.Code != -32602 ||
			!strings.Contains(rpcErr.Message, bad.want) {
			t.Errorf("%s %v: %v, want -32602 saying %s", bad.method, bad.params, err, bad.want)
		}
	}
	// At most 3660 days per answer.
	c.setTime(t0 + 3700*day)
	if err := jsonrpc.Call(ctx, nil, url, pvmapi.GetL1FeeTotalsMethod, map[string]any{"startTime": t0}, &struct{}{}); !errors.As(err, &rpcErr) ||
		rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, "more than 3660") {
		t.Fatalf("3701 days of totals: %v", err)
	}
	// The dev methods are public only.
	if err := jsonrpc.Call(ctx, nil, url, pvmapi.IncreaseTimeMethod, map[string]any{"seconds": 1}, &struct{}{}); !errors.As(err, &rpcErr) || rpcErr.Code != -32601 {
		t.Fatalf("a dev method on the internal handler: %v", err)
	}
}

// TestShapes: a transaction naming another chain than the node's ID of
// this one (the zero ID, avalanchego's P-Chain ID, when the node gives
// the chain another) is refused; getTx and getBlock answer avalanchego's JSON shapes; the health
// details count what was burned.
func TestShapes(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	w := c.wallet
	tx, err := w.BuildSend(ctx, 1_000, avax.ShortID{9})
	if err != nil {
		t.Fatal(err)
	}
	tx.Unsigned.Base().BlockchainID = ids.ID{}
	signed := w.Sign(tx.Unsigned)
	want := fmt.Sprintf("tx is for chain %s, this chain is %s", ids.ID{}, c.h.ChainID())
	if _, err := w.Client.IssueTx(ctx, signed.Bytes()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a tx naming another chain: %v, want an error containing %q", err, want)
	}
	subnet, vids := c.makeL1(client.NewL1Validator{NodeID: nodeID(11), Weight: 100, Balance: 5_000_000})
	var js struct {
		Tx struct {
			Unsigned struct {
				NetworkID    uint32 `json:"networkID"`
				BlockchainID ids.ID `json:"blockchainID"`
				Outputs      []struct {
					Output struct {
						Addresses []string `json:"addresses"`
					} `json:"output"`
				} `json:"outputs"`
				SubnetID   ids.ID `json:"subnetID"`
				Validators []struct {
					NodeID                string                     `json:"nodeID"`
					Balance               uint64                     `json:"balance"`
					Signer                struct{ PublicKey string } `json:"signer"`
					RemainingBalanceOwner struct {
						Addresses []string `json:"addresses"`
					} `json:"remainingBalanceOwner"`
				} `json:"validators"`
				SubnetAuth struct {
					SignatureIndices []uint32 `json:"signatureIndices"`
				} `json:"subnetAuthorization"`
			} `json:"unsignedTx"`
			Credentials []struct {
				Signatures []string `json:"signatures"`
			} `json:"credentials"`
			ID ids.ID `json:"id"`
		} `json:"tx"`
	}
	h, _ := w.Client.GetHeight(ctx)
	var blk struct {
		Block struct {
			Time   uint64 `json:"time"`
			Height uint64 `json:"height"`
			Txs    []struct {
				ID ids.ID `json:"id"`
			} `json:"txs"`
		} `json:"block"`
	}
	if err := c.call("platform.getBlockByHeight", map[string]any{"height": h, "encoding": "json"}, &blk); err != nil ||
		blk.Block.Height != h || blk.Block.Time != t0 || len(blk.Block.Txs) != 1 {
		t.Fatalf("getBlockByHeight json: %+v, %v", blk, err)
	}
	if err := c.call("platform.getTx", map[string]any{"txID": blk.Block.Txs[0].ID, "encoding": "json"}, &js); err != nil {
		t.Fatal(err)
	}
	u := js.Tx.Unsigned
	if js.Tx.ID != blk.Block.Txs[0].ID || u.NetworkID != avax.LocalID || u.BlockchainID != c.h.ChainID() || u.SubnetID != subnet ||
		len(u.Validators) != 1 || u.Validators[0].NodeID != "0x"+hexOf(nodeID(11).Bytes()) || u.Validators[0].Balance != 5_000_000 ||
		!strings.HasPrefix(u.Validators[0].Signer.PublicKey, "0x") || len(u.Validators[0].RemainingBalanceOwner.Addresses) != 1 ||
		len(u.SubnetAuth.SignatureIndices) != 1 || len(js.Tx.Credentials) != 2 || !strings.HasPrefix(u.Outputs[0].Output.Addresses[0], "P-local1") {
		t.Fatalf("getTx json of the conversion: %+v", js.Tx)
	}
	if v, err := w.Client.GetL1Validator(ctx, vids[0]); err != nil || v.SubnetID != subnet || v.Balance != 5_000_000 {
		t.Fatalf("getL1Validator: %+v, %v", v, err)
	}
	details, err := c.h.HealthDetails(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Burned: the fees of the subnet, the chain and the conversion (the
	// transfer was refused).
	if details["burned"] != float64(2*subnetFee+fee) || details["activeL1Validators"] != float64(1) {
		t.Fatalf("health details %v", details)
	}
}

func hexOf(b []byte) string { return fmt.Sprintf("%x", b) }

// TestRemovedL1Validator: weight 0 removes an L1 validator and refunds
// what is left of its balance; its fees stay readable, to its removal.
func TestRemovedL1Validator(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	w := c.wallet
	_, vids := c.makeL1(client.NewL1Validator{NodeID: nodeID(11), Weight: 10, Balance: 1_000_000_000},
		client.NewL1Validator{NodeID: nodeID(12), Weight: 10, Balance: 1_000_000_000})
	c.setTime(t0 + 100)
	before := c.balance(w.Address())
	if _, err := w.SetL1ValidatorWeight(ctx, vids[0], 0); err != nil {
		t.Fatal(err)
	}
	if got := c.balance(w.Address()); got != before-fee+1_000_000_000-100*rate {
		t.Fatalf("the removal refunded %d, want %d", int64(got)-int64(before-fee), 1_000_000_000-100*rate)
	}
	if _, err := w.Client.GetL1Validator(ctx, vids[0]); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("a removed validator: %v", err)
	}
	c.setTime(t0 + 3*day)
	f, err := w.Client.GetL1ValidatorFees(ctx, pvmapi.FeesArgs{ValidationID: vids[0].String()})
	if err != nil || len(f.Days) != 1 || f.Days[0].Day != t0 || f.Days[0].Fees != 100*rate || f.Days[0].CumulativeFees != 100*rate {
		t.Fatalf("fees of the removed validator: %+v, %v", f, err)
	}
}

// TestUnsafeAPIs: the chain declares its clock methods (the dev API)
// unsafe in public when its config turns them on.
func TestUnsafeAPIs(t *testing.T) {
	for _, dev := range []bool{true, false} {
		config := strings.Replace(testConfig, `"dev-api-enabled":true`, fmt.Sprintf(`"dev-api-enabled":%v`, dev), 1)
		h := plugintest.Start(t, pvm.New(), plugintest.Options{
			Name: "P", NetworkID: avax.LocalID, Genesis: []byte(testGenesis()), Config: []byte(config),
			Chains: []host.ChainInfo{peer},
		})
		want := "[]"
		if dev {
			want = "[dev]"
		}
		if got := fmt.Sprint(h.UnsafeAPIs()); got != want {
			t.Errorf("dev-api-enabled %v: unsafe APIs %s, want %s", dev, got, want)
		}
	}
}

// TestGetBlocks: pvm.getBlocks answers the blocks from a height on, the
// genesis block first, each with its transactions' IDs, types and JSON
// (the fields the data module reads), and nothing past the last block.
func TestGetBlocks(t *testing.T) {
	c := start(t)
	subnet, _ := c.makeL1(client.NewL1Validator{NodeID: nodeID(11), Weight: 100, Balance: 5_000_000})
	url := c.h.URL(pvmapi.IndexerHandler)
	ctx := context.Background()
	var got []pvmapi.Block
	if err := jsonrpc.Call(ctx, nil, url, pvmapi.GetBlocksMethod, pvmapi.BlocksArgs{Height: 0, Count: 10}, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].Height != 0 || len(got[0].Txs) != 0 || got[0].Type != "BanffStandardBlock" {
		t.Fatalf("blocks: %+v", got)
	}
	var types []string
	for i, b := range got {
		if i > 0 && (b.ParentID != got[i-1].ID || b.Height != got[i-1].Height+1 || b.Time < got[i-1].Time) {
			t.Errorf("block %d does not follow block %d: %+v", b.Height, got[i-1].Height, b)
		}
		var raw struct {
			Block struct {
				Txs []struct{ ID ids.ID } `json:"txs"`
			} `json:"block"`
		}
		if err := c.call("platform.getBlockByHeight", map[string]any{"height": fmt.Sprint(b.Height), "encoding": "json"}, &raw); err != nil {
			t.Fatal(err)
		}
		if len(raw.Block.Txs) != len(b.Txs) {
			t.Fatalf("block %d: %d transactions, getBlockByHeight says %d", b.Height, len(b.Txs), len(raw.Block.Txs))
		}
		for j, tx := range b.Txs {
			if tx.ID != raw.Block.Txs[j].ID {
				t.Errorf("block %d transaction %d: %s, getBlockByHeight says %s", b.Height, j, tx.ID, raw.Block.Txs[j].ID)
			}
			types = append(types, tx.Type)
		}
	}
	if want := []string{"CreateSubnetTx", "CreateChainTx", "ConvertSubnetToL1Tx"}; !slices.Equal(types, want) {
		t.Fatalf("types %v, want %v", types, want)
	}
	var chain pvmapi.CreateChainTx
	var conv pvmapi.ConvertSubnetToL1Tx
	if err := json.Unmarshal(got[2].Txs[0].Unsigned, &chain); err != nil || chain.SubnetID != subnet || chain.ChainName != "manager" {
		t.Fatalf("the CreateChainTx: %+v, %v", chain, err)
	}
	if err := json.Unmarshal(got[3].Txs[0].Unsigned, &conv); err != nil || conv.SubnetID != subnet || conv.ChainID != got[2].Txs[0].ID ||
		hexOf(conv.Address) != "1234" {
		t.Fatalf("the ConvertSubnetToL1Tx: %+v, %v", conv, err)
	}
	if err := jsonrpc.Call(ctx, nil, url, pvmapi.GetBlocksMethod, pvmapi.BlocksArgs{Height: 4, Count: 10}, &got); err != nil || len(got) != 0 {
		t.Fatalf("past the last block: %+v, %v", got, err)
	}
}
