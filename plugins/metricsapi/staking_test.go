package metricsapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/pvm/pvmapi"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The P-Chain of these tests: genesis at pT0 (2026-01-01T00:00:00Z) with
// the ewoq key funded and one validator until pT0 + 30 days, a manual
// clock, an L1 fee of pRate nAVAX per second, periods from a minute.
const (
	pT0       = 1_767_225_600
	pRate     = 1_000
	pMinStake = 2_000_000_000_000
	hour      = 3600
	ewoqKey   = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
	avaxAsset = "D6FgEcczTT78GJgsdFGFN1iyDih6asG9HE9uV7raGF72nBLob"
	ewoqAddr  = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
)

// genesisNode validates the primary network from the genesis.
var genesisNode = txs.NodeID{0xee, 0x01}

func pGenesis() string {
	return fmt.Sprintf(`{"avaxAssetID":%q,"timestamp":%d,"allocations":[{"address":%q,"amount":"300000000000000000"}],
		"validators":[{"nodeID":%q,"weight":"%d","endTime":%d,"rewardAddress":%q}]}`,
		avaxAsset, pT0, ewoqAddr, genesisNode, uint64(pMinStake), pT0+30*secondsPerDay, ewoqAddr)
}

const pChainConfig = `{"clock":"manual","dev-api-enabled":true,"l1-fee-rate":1000,"min-stake-duration":60,"min-delegation-fee":0}`

// pChain is a real P-Chain VM (plugins/pvm) in a harness of its own: the
// module reads its block index and calls its internal handler.
type pChain struct {
	t      *testing.T
	h      *plugintest.Harness
	info   host.ChainInfo
	wallet *client.Wallet
}

func startP(t *testing.T) *pChain {
	t.Helper()
	h := plugintest.Start(t, pvm.New(), plugintest.Options{
		Name: "P", NetworkID: avax.LocalID, Genesis: []byte(pGenesis()), Config: []byte(pChainConfig),
	})
	key, err := avax.ParsePrivateKey(ewoqKey)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewEndpoint(h.URL(""), "P", nil)
	cfg, err := cl.GetConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &pChain{
		t: t, h: h,
		info: host.ChainInfo{ID: h.ChainID(), VMName: pvmapi.VMName, Aliases: []string{"P"}, IndexKinds: []string{"block"},
			InternalHandlers: h.InternalHandlers(), Running: true},
		wallet: &client.Wallet{Client: cl, Key: key, NetworkID: avax.LocalID, Config: cfg},
	}
}

// call answers the module's chain calls to the P-Chain: its handler.
func (p *pChain) call(ctx context.Context, handler string, body []byte) (int, []byte, error) {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	p.h.Handler(handler).ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}

// setTime moves the chain's clock; the blocks due are made.
func (p *pChain) setTime(at uint64) {
	p.t.Helper()
	if got, err := p.wallet.Client.SetTime(context.Background(), at); err != nil || got != at {
		p.t.Fatalf("pvm.setTime %d: %d, %v", at, got, err)
	}
}

// sync gives the module every block the chain has accepted that its
// index lacks (the module's host is not the chain's) and waits until the
// module has read them all.
func (p *pChain) sync(e *env) {
	p.t.Helper()
	blocks := p.h.Containers("block")
	for _, c := range blocks[e.pBlocks:] {
		e.h.AppendContainer(p.info.ID, "block", c.ID, c.Bytes)
	}
	e.pBlocks = len(blocks)
	e.waitStaking(uint64(len(blocks)))
	// The genesis' totals are read before the first block.
	for deadline := time.Now().Add(10 * time.Second); len(e.metrics("/v2/networks/fuji/metrics/validatorCount?pageSize=1").Results) == 0; {
		if time.Now().After(deadline) {
			p.t.Fatal("the genesis' staking totals are not read")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitStaking waits until the module has counted and read the staking
// totals of n blocks of the P-Chain.
func (e *env) waitStaking(n uint64) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := e.h.HealthDetails(context.Background())
		if err == nil {
			if c, ok := d["chains"].(map[string]any)["P"].(map[string]any); ok && c["counted"] == float64(n) && c["stakingRead"] == float64(n) {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("P-Chain: %d blocks not read: %v %v", n, d, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// staker is a validator or delegator of the tests, active from start
// until before end.
type staker struct {
	subnet     ids.ID
	delegator  bool
	weight     uint64
	start, end uint64
}

// totals are the values of the four staking metrics.
type totals map[string]uint64

// totalsAt computes the totals at a time of one subnet's stakers, or of
// all subnets' when subnet is nil.
func totalsAt(stakers []staker, subnet *ids.ID, at uint64) totals {
	out := totals{"validatorCount": 0, "validatorWeight": 0, "delegatorCount": 0, "delegatorWeight": 0}
	for _, s := range stakers {
		if (subnet != nil && s.subnet != *subnet) || at < s.start || at >= s.end {
			continue
		}
		kind := "validator"
		if s.delegator {
			kind = "delegator"
		}
		out[kind+"Count"]++
		out[kind+"Weight"] += s.weight
	}
	return out
}

// wantHourly computes a staking series from the stakers, newest first:
// every hour from the one holding first to the one holding now, an
// hour's value the totals at its end, the current totals for the hour in
// progress.
func wantHourly(stakers []staker, subnet *ids.ID, metric string, first, now uint64) []api.Point {
	var out []api.Point
	for h := now / hour; h >= first/hour; h-- {
		out = append(out, api.Point{Timestamp: int64(h * hour), Value: totalsAt(stakers, subnet, min(h*hour+hour-1, now))[metric]})
	}
	return out
}

// payer is an L1 validator of the tests: from start it pays the rate per
// second out of its balance, until the balance runs out or until stop (a
// disable).
type payer struct {
	start, balance, stop uint64
}

// wantFees computes, per UTC day (its midnight), what the payers paid by
// now and how many paid, second by second.
func wantFees(payers []payer, now uint64) (fees, paying map[uint64]uint64) {
	fees, paying = map[uint64]uint64{}, map[uint64]uint64{}
	for _, p := range payers {
		paid := map[uint64]bool{}
		left := p.balance
		for s := p.start; left > 0 && s < now && (p.stop == 0 || s < p.stop); s++ {
			amount := min(uint64(pRate), left)
			left -= amount
			day := s / secondsPerDay * secondsPerDay
			fees[day] += amount
			paid[day] = true
		}
		for day := range paid {
			paying[day]++
		}
	}
	return fees, paying
}

// wantDaily returns the days from first to last (midnights), newest
// first, with value.
func wantDaily(first, last uint64, value func(day uint64) uint64) []api.Point {
	var out []api.Point
	for d := last; d >= first && d <= last; d -= secondsPerDay {
		out = append(out, api.Point{Timestamp: int64(d), Value: value(d)})
	}
	return out
}

// metrics GETs one page of a v2 series.
func (e *env) metrics(path string) api.MetricsResponse {
	e.t.Helper()
	status, _, body := e.get(path)
	if status != 200 {
		e.t.Fatalf("GET %s = %d %s", path, status, body)
	}
	var out api.MetricsResponse
	if err := json.Unmarshal(body, &out); err != nil {
		e.t.Fatalf("GET %s: %v in %s", path, err, body)
	}
	return out
}

// pages reads a staking series page by page at pageSize and checks the
// pages: every one but the last full with a token, the last without.
func (e *env) pages(path string, pageSize int) []api.Point {
	e.t.Helper()
	var all []api.Point
	token := ""
	for n := 1; ; n++ {
		p := path + fmt.Sprintf("&pageSize=%d", pageSize)
		if token != "" {
			p += "&pageToken=" + url.QueryEscape(token)
		}
		page := e.metrics(p)
		all = append(all, page.Results...)
		if page.NextPageToken == "" {
			if len(page.Results) > pageSize || (len(page.Results) == 0 && n > 1) {
				e.t.Fatalf("%s: last page %d holds %d points", p, n, len(page.Results))
			}
			return all
		}
		if len(page.Results) != pageSize {
			e.t.Fatalf("%s: page %d holds %d points, has a next page", p, n, len(page.Results))
		}
		token = page.NextPageToken
	}
}

func samePoints(t *testing.T, what string, got, want []api.Point) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got  %v\n want %v", what, got, want)
	}
}

var stakingMetricNames = []string{"validatorCount", "validatorWeight", "delegatorCount", "delegatorWeight"}

// checkStaking checks every staking series against the stakers: the sum
// and each subnet's, every metric, in one page, in pages of 10 and within
// bounds that are not whole hours.
func (e *env) checkStaking(stakers []staker, subnets map[ids.ID]uint64, now uint64) {
	e.t.Helper()
	type series struct {
		query  string
		subnet *ids.ID
		first  uint64
	}
	list := []series{{"", nil, pT0}}
	for id, first := range subnets {
		list = append(list, series{"&subnetId=" + id.String(), &id, first})
	}
	for _, s := range list {
		for _, m := range stakingMetricNames {
			path := "/v2/networks/fuji/metrics/" + m + "?" + s.query
			want := wantHourly(stakers, s.subnet, m, s.first, now)
			samePoints(e.t, path+" in one page", e.pages(path, 2160), want)
			samePoints(e.t, path+" in pages of 10", e.pages(path, 10), want)
			// The points whose hour starts in [start, end].
			start, end := s.first+hour+1, now-hour-1
			if start > end {
				continue
			}
			bounded := fmt.Sprintf("%s&startTimestamp=%d&endTimestamp=%d", path, start, end)
			var inside []api.Point
			for _, pt := range want {
				if pt.Timestamp >= int64(start) && pt.Timestamp <= int64(end) {
					inside = append(inside, pt)
				}
			}
			samePoints(e.t, bounded, e.pages(bounded, 7), inside)
		}
	}
	// The test network's other name; the default page is the newest 100.
	got := e.metrics("/v2/networks/testnet/metrics/validatorWeight")
	want := wantHourly(stakers, nil, "validatorWeight", pT0, now)
	samePoints(e.t, "testnet, the default page", got.Results, want[:min(100, len(want))])
	if (got.NextPageToken != "") != (len(want) > 100) {
		e.t.Fatalf("default page of %d points: token %q", len(want), got.NextPageToken)
	}
}

// TestStakingAndFeeSeries: a real P-Chain (manual clock) whose validator
// set and L1 validators change at known times; every staking series,
// hourly, and every fee series, daily, equals what the test computes from
// those times and the fee rate: in one page and across page boundaries,
// across UTC midnight, across a restart of the module.
func TestStakingAndFeeSeries(t *testing.T) {
	p := startP(t)
	w := p.wallet
	ctx := context.Background()
	dir := t.TempDir()
	clk := &clock{now: time.Unix(pT0, 0)}
	primary := txs.PrimaryNetworkID
	stakers := []staker{{subnet: primary, weight: pMinStake, start: pT0, end: pT0 + 30*secondsPerDay}}
	subnets := map[ids.ID]uint64{primary: pT0}
	node := func(b byte) txs.NodeID { return txs.NodeID{b, 0x02} }

	t.Run("the primary network", func(t *testing.T) {
		e := startWith(t, dir, noLimits, clk, p)
		p.sync(e)
		e.checkStaking(stakers, subnets, pT0)

		// A from now to 00:30 on day 1; B from 05:30 to 10:00; D1 to A
		// from 02:00 to 03:00:01; D2 to B from 06:00 to 08:00; E from
		// 07:10 to 07:40, within one hour, so in no hour's end.
		add := []staker{
			{subnet: primary, weight: 3_000_000_000_000, start: pT0, end: pT0 + secondsPerDay + 1800},
			{subnet: primary, weight: 2_500_000_000_000, start: pT0 + 5*hour + 1800, end: pT0 + 10*hour},
			{subnet: primary, delegator: true, weight: 100_000_000_000, start: pT0 + 2*hour, end: pT0 + 3*hour + 1},
			{subnet: primary, delegator: true, weight: 50_000_000_000, start: pT0 + 6*hour, end: pT0 + 8*hour},
			{subnet: primary, weight: 2_000_000_000_000, start: pT0 + 7*hour + 600, end: pT0 + 7*hour + 2400},
		}
		nodes := []txs.NodeID{node(1), node(2), node(1), node(2), node(3)}
		for i, s := range add {
			st := client.Stake{NodeID: nodes[i], Weight: s.weight, Start: s.start, End: s.end}
			var err error
			if s.delegator {
				_, err = w.AddDelegator(ctx, st)
			} else {
				_, err = w.AddValidator(ctx, st, 20_000, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		stakers = append(stakers, add...)
		now := uint64(pT0 + secondsPerDay + 2*hour + 900)
		p.setTime(now)
		p.sync(e)
		e.checkStaking(stakers, subnets, now)
	})

	// The L1, made at 23:00 on day 1: V1 can pay 5000 s, V2 3 h, V3
	// 7200.5 s (its last second pays 500); at midnight V4 registers with
	// 9000 s worth and is disabled 1000 s later.
	tL := uint64(pT0 + 2*secondsPerDay - hour)
	midnight := tL + hour
	var subnet ids.ID
	var vids []ids.ID
	payers := []payer{{tL, 5000 * pRate, 0}, {tL, 3 * hour * pRate, 0}, {tL, 7200*pRate + 500, 0}, {midnight, 9000 * pRate, midnight + 1000}}
	weights := []uint64{100, 100, 50, 10}
	t.Run("an L1, after a restart of the module", func(t *testing.T) {
		clk.Advance(time.Hour)
		e := startWith(t, dir, noLimits, clk, p)
		p.sync(e)
		p.setTime(tL)
		var err error
		if subnet, err = w.CreateSubnet(ctx); err != nil {
			t.Fatal(err)
		}
		manager, err := w.CreateChain(ctx, subnet, "manager", ids.ID{'m'}, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		if _, vids, err = w.ConvertSubnet(ctx, subnet, manager, []byte{0xab}, []client.NewL1Validator{
			{NodeID: node(11), Weight: weights[0], Balance: payers[0].balance},
			{NodeID: node(12), Weight: weights[1], Balance: payers[1].balance},
		}); err != nil {
			t.Fatal(err)
		}
		_, v3, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: node(13), Weight: weights[2], Balance: payers[2].balance}, tL+hour)
		if err != nil {
			t.Fatal(err)
		}
		p.setTime(midnight)
		_, v4, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: node(14), Weight: weights[3], Balance: payers[3].balance}, midnight+hour)
		if err != nil {
			t.Fatal(err)
		}
		p.setTime(midnight + 1000)
		if _, err := w.Disable(ctx, v4); err != nil {
			t.Fatal(err)
		}
		vids = append(vids, v3, v4)
		for i, py := range payers {
			end := py.start + (py.balance+pRate-1)/pRate
			if py.stop != 0 {
				end = py.stop
			}
			stakers = append(stakers, staker{subnet: subnet, weight: weights[i], start: py.start, end: end})
		}
		subnets[subnet] = tL
		now := uint64(pT0 + 2*secondsPerDay + 5*hour + 17)
		p.setTime(now)
		p.sync(e)
		e.checkStaking(stakers, subnets, now)
		e.checkFees(payers, vids, now)
	})

	t.Run("after another restart", func(t *testing.T) {
		clk.Advance(time.Hour)
		e := startWith(t, dir, noLimits, clk, p)
		now := uint64(pT0 + 3*secondsPerDay + 1)
		p.setTime(now)
		p.sync(e)
		e.checkStaking(stakers, subnets, now)
		e.checkFees(payers, vids, now)
	})
}

// checkFees checks the fee series against the payers: each validator's
// fees and cumulative fees per day, the totals and the paying validators
// per day since the genesis, also within bounds.
func (e *env) checkFees(payers []payer, vids []ids.ID, now uint64) {
	e.t.Helper()
	fees, paying := wantFees(payers, now)
	today := now / secondsPerDay * secondsPerDay
	cumulative := func(of map[uint64]uint64) func(uint64) uint64 {
		return func(day uint64) uint64 {
			var sum uint64
			for d, v := range of {
				if d <= day {
					sum += v
				}
			}
			return sum
		}
	}
	at := func(of map[uint64]uint64) func(uint64) uint64 { return func(d uint64) uint64 { return of[d] } }
	for i, py := range payers {
		mine, _ := wantFees([]payer{py}, now)
		first := py.start / secondsPerDay * secondsPerDay
		base := "/v2/validation/" + vids[i].String() + "/metrics/"
		samePoints(e.t, base+"validationFeesDaily", e.metrics(base+"validationFeesDaily").Results, wantDaily(first, today, at(mine)))
		samePoints(e.t, base+"validationCumulativeFeesDaily", e.metrics(base+"validationCumulativeFeesDaily").Results, wantDaily(first, today, cumulative(mine)))
	}
	for metric, value := range map[string]func(uint64) uint64{
		"totalValidatorFeesDaily":    at(fees),
		"totalCumulativeFeesDaily":   cumulative(fees),
		"totalPayingValidatorsDaily": at(paying),
	} {
		path := "/v2/validators/metrics/" + metric
		samePoints(e.t, path, e.metrics(path).Results, wantDaily(pT0, today, value))
		// Days whose midnight is in [start, end]: day 1 to day 2.
		bounded := fmt.Sprintf("%s?startTimestamp=%d&endTimestamp=%d", path, pT0+1, pT0+2*secondsPerDay+5)
		samePoints(e.t, bounded, e.metrics(bounded).Results, wantDaily(pT0+secondsPerDay, pT0+2*secondsPerDay, value))
		// No midnight in the range: no point.
		none := fmt.Sprintf("%s?startTimestamp=%d&endTimestamp=%d", path, pT0+1, pT0+secondsPerDay-1)
		samePoints(e.t, none, e.metrics(none).Results, nil)
	}
}
