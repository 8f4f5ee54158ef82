package metricsapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/plugins/metricsapi/metricstest"
	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/blockinfo"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The P-Chain of these tests: genesis at pT0 (2026-01-01T00:00:00Z) with
// the ewoq key funded and one validator until pT0 + 30 days, a manual
// clock, an L1 fee of pRate nAVAX per second, periods from a minute.
const (
	pT0       = 1_767_225_600
	pRate     = 1_000
	pMinStake = 2_000_000_000_000
	hour      = metricstest.Hour
	ewoqKey   = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
	avaxAsset = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
	ewoqAddr  = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
)

// genesisNode validates the primary network from the genesis.
var genesisNode = avax.NodeID{0xee, 0x01}

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
	// down fails the module's calls of the P-Chain's own read methods
	// (pvmapi), as while they fail; the blocks' counts
	// (blockinfo.Method) are still answered.
	down atomic.Bool
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
		wallet: &client.Wallet{Client: cl, Account: utxoclient.Account{Key: key, NetworkID: avax.LocalID, ChainID: h.ChainID()}, Config: cfg},
	}
}

// call answers the module's chain calls to the P-Chain: its handler.
func (p *pChain) call(ctx context.Context, handler string, body []byte) (int, []byte, error) {
	if p.down.Load() && !bytes.Contains(body, []byte(blockinfo.Method)) {
		return 0, nil, errors.New("the chain's plugin is restarting")
	}
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
	plugintest.Eventually(p.t, 10*time.Second, func() error {
		if len(e.metrics("/v2/networks/fuji/metrics/validatorCount?pageSize=1").Results) == 0 {
			return errors.New("the genesis' staking totals are not read")
		}
		return nil
	})
}

// waitStaking waits until the module has counted and read the staking
// totals of n blocks of the P-Chain.
func (e *env) waitStaking(n uint64) {
	e.t.Helper()
	plugintest.Eventually(e.t, 10*time.Second, func() error {
		d, err := e.h.HealthDetails(context.Background())
		if err == nil {
			if c, ok := d["chains"].(map[string]any)["P"].(map[string]any); ok && c["counted"] == float64(n) && c["stakingRead"] == float64(n) && c["validationsRead"] == float64(n) {
				return nil
			}
		}
		return fmt.Errorf("P-Chain: %d blocks not read: %v %v", n, d, err)
	})
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

// checkStaking checks every staking series against the stakers: the sum
// and each subnet's, every metric, in one page, in pages of 10 and within
// bounds that are not whole hours.
func (e *env) checkStaking(stakers []metricstest.Staker, subnets map[ids.ID]uint64, now uint64) {
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
		for _, m := range metricstest.StakingMetrics {
			path := "/v2/networks/fuji/metrics/" + m + "?" + s.query
			want := metricstest.Hourly(stakers, s.subnet, m, s.first, now)
			samePoints(e.t, path+" in one page", e.pages(path, 2160), want)
			samePoints(e.t, path+" in pages of 10", e.pages(path, 10), want)
			// The points whose hour starts in [start, end].
			start, end := s.first+hour+1, now-hour-1
			if start > end {
				continue
			}
			bounded := fmt.Sprintf("%s&startTimestamp=%d&endTimestamp=%d", path, start, end)
			samePoints(e.t, bounded, e.pages(bounded, 7), metricstest.Within(want, start, end))
		}
	}
	// The test network's other name; the default page is the newest 100.
	got := e.metrics("/v2/networks/testnet/metrics/validatorWeight")
	want := metricstest.Hourly(stakers, nil, "validatorWeight", pT0, now)
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
	stakers := []metricstest.Staker{{Subnet: primary, Weight: pMinStake, Start: pT0, End: pT0 + 30*secondsPerDay}}
	subnets := map[ids.ID]uint64{primary: pT0}
	node := func(b byte) avax.NodeID { return avax.NodeID{b, 0x02} }
	made := []validation{{start: pT0, end: pT0 + 30*secondsPerDay, address: ewoqAddr}}

	t.Run("the primary network", func(t *testing.T) {
		e := startWith(t, dir, noLimits, clk, p, nil)
		p.sync(e)
		e.checkStaking(stakers, subnets, pT0)
		e.checkAddresses(made, nil)

		// A from now to 00:30 on day 1; B from 05:30 to 10:00; D1 to A
		// from 02:00 to 03:00:01; D2 to B from 06:00 to 08:00; E from
		// 07:10 to 07:40, within one hour, so in no hour's end.
		add := []metricstest.Staker{
			{Subnet: primary, Weight: 3_000_000_000_000, Start: pT0, End: pT0 + secondsPerDay + 1800},
			{Subnet: primary, Weight: 2_500_000_000_000, Start: pT0 + 5*hour + 1800, End: pT0 + 10*hour},
			{Subnet: primary, Delegator: true, Weight: 100_000_000_000, Start: pT0 + 2*hour, End: pT0 + 3*hour + 1},
			{Subnet: primary, Delegator: true, Weight: 50_000_000_000, Start: pT0 + 6*hour, End: pT0 + 8*hour},
			{Subnet: primary, Weight: 2_000_000_000_000, Start: pT0 + 7*hour + 600, End: pT0 + 7*hour + 2400},
		}
		nodes := []avax.NodeID{node(1), node(2), node(1), node(2), node(3)}
		for i, s := range add {
			reward, address := rewardAddress(byte(i + 1))
			st := client.Stake{NodeID: nodes[i], Weight: s.Weight, Start: s.Start, End: s.End, RewardAddress: reward}
			var err error
			if s.Delegator {
				_, err = w.AddDelegator(ctx, st)
			} else {
				_, err = w.AddValidator(ctx, st, 20_000, nil)
				made = append(made, validation{start: s.Start, end: s.End, address: address})
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
		e.checkAddresses(made, nil)
	})

	// The L1, made at 23:00 on day 1: V1 can pay 5000 s, V2 3 h, V3
	// 7200.5 s (its last second pays 500); at midnight V4 registers with
	// 9000 s worth and is disabled 1000 s later.
	tL := uint64(pT0 + 2*secondsPerDay - hour)
	midnight := tL + hour
	var subnet ids.ID
	var vids []ids.ID
	payers := []metricstest.Payer{{Start: tL, Balance: 5000 * pRate}, {Start: tL, Balance: 3 * hour * pRate}, {Start: tL, Balance: 7200*pRate + 500}, {Start: midnight, Balance: 9000 * pRate, Stop: midnight + 1000}}
	weights := []uint64{100, 100, 50, 10}
	l1Nodes := []avax.NodeID{node(11), node(12), node(13), node(14)}
	t.Run("an L1, after a restart of the module", func(t *testing.T) {
		clk.Advance(time.Hour)
		e := startWith(t, dir, noLimits, clk, p, nil)
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
			{NodeID: node(11), Weight: weights[0], Balance: payers[0].Balance},
			{NodeID: node(12), Weight: weights[1], Balance: payers[1].Balance},
		}); err != nil {
			t.Fatal(err)
		}
		_, v3, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: node(13), Weight: weights[2], Balance: payers[2].Balance}, tL+hour)
		if err != nil {
			t.Fatal(err)
		}
		p.setTime(midnight)
		_, v4, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: node(14), Weight: weights[3], Balance: payers[3].Balance}, midnight+hour)
		if err != nil {
			t.Fatal(err)
		}
		p.setTime(midnight + 1000)
		if _, err := w.Disable(ctx, v4); err != nil {
			t.Fatal(err)
		}
		vids = append(vids, v3, v4)
		for i, py := range payers {
			end := py.Start + (py.Balance+pRate-1)/pRate
			if py.Stop != 0 {
				end = py.Stop
			}
			stakers = append(stakers, metricstest.Staker{Subnet: subnet, Weight: weights[i], Start: py.Start, End: end})
		}
		subnets[subnet] = tL
		now := uint64(pT0 + 2*secondsPerDay + 5*hour + 17)
		p.setTime(now)
		p.sync(e)
		e.checkStaking(stakers, subnets, now)
		e.checkFees(payers, vids, now)
		e.checkValidatorFees(payers, l1Nodes, subnet, now)
		e.checkAddresses(made, &subnet)
	})

	t.Run("after another restart", func(t *testing.T) {
		clk.Advance(time.Hour)
		e := startWith(t, dir, noLimits, clk, p, nil)
		now := uint64(pT0 + 3*secondsPerDay + 1)
		p.setTime(now)
		p.sync(e)
		e.checkStaking(stakers, subnets, now)
		e.checkFees(payers, vids, now)
		e.checkValidatorFees(payers, l1Nodes, subnet, now)
		e.checkAddresses(made, &subnet)
	})
}

// checkFees checks the fee series against the payers: each validator's
// fees and cumulative fees per day, the totals and the paying validators
// per day since the genesis, also within bounds.
func (e *env) checkFees(payers []metricstest.Payer, vids []ids.ID, now uint64) {
	e.t.Helper()
	fees, paying := metricstest.Fees(payers, pRate, now)
	for i, py := range payers {
		mine, _ := metricstest.Fees([]metricstest.Payer{py}, pRate, now)
		base := "/v2/validation/" + vids[i].String() + "/metrics/"
		samePoints(e.t, base+"validationFeesDaily", e.metrics(base+"validationFeesDaily").Results, metricstest.Daily(py.Start, now, metricstest.Of(mine)))
		samePoints(e.t, base+"validationCumulativeFeesDaily", e.metrics(base+"validationCumulativeFeesDaily").Results, metricstest.Daily(py.Start, now, metricstest.Cumulative(mine)))
		// Its first day alone, which it joined after midnight.
		day := py.Start / secondsPerDay * secondsPerDay
		bounded := fmt.Sprintf("%svalidationFeesDaily?startTimestamp=%d&endTimestamp=%d", base, day, day+5)
		samePoints(e.t, bounded, e.metrics(bounded).Results, metricstest.Daily(day, day, metricstest.Of(mine)))
	}
	for metric, value := range map[string]func(uint64) uint64{
		"totalValidatorFeesDaily":    metricstest.Of(fees),
		"totalCumulativeFeesDaily":   metricstest.Cumulative(fees),
		"totalPayingValidatorsDaily": metricstest.Of(paying),
	} {
		path := "/v2/validators/metrics/" + metric
		samePoints(e.t, path, e.metrics(path).Results, metricstest.Daily(pT0, now, value))
		// Days whose midnight is in [start, end]: day 1 to day 2.
		bounded := fmt.Sprintf("%s?startTimestamp=%d&endTimestamp=%d", path, pT0+1, pT0+2*secondsPerDay+5)
		samePoints(e.t, bounded, e.metrics(bounded).Results, metricstest.Daily(pT0+secondsPerDay, pT0+2*secondsPerDay, value))
		// No midnight in the range: no point.
		none := fmt.Sprintf("%s?startTimestamp=%d&endTimestamp=%d", path, pT0+1, pT0+secondsPerDay-1)
		samePoints(e.t, none, e.metrics(none).Results, nil)
	}
}

// restError is the v2 error body of status with message (a string).
func restError(status int, message string) string {
	m, err := json.Marshal(message)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`{"message":%s,"statusCode":%d,"error":%q}`, m, status, rest.StatusName(status))
}

// TestV2Errors: every refusal of the v2 routes, with its exact body (a
// message string, docs/metrics-api.md): bad path values, timestamps, page sizes,
// subnets and tokens are 400s naming the parameter; what the node does
// not have is a 404; over the anonymous limit 429 with Retry-After.
func TestV2Errors(t *testing.T) {
	p := startP(t)
	clk := &clock{now: time.Unix(pT0, 0)}
	e := startWith(t, t.TempDir(), `{"rate-limit": {"anonymous": {"per-second": 1, "burst": 1000}}}`, clk, p, nil)
	p.sync(e)
	stakingMetrics := "delegatorCount|delegatorWeight|validatorCount|validatorWeight"
	unknown := ids.ID{0x5e}
	primaryID := txs.PrimaryNetworkID.String()
	for _, c := range []struct {
		path    string
		status  int
		message string
	}{
		{"/v2/networks/moon/metrics/validatorCount", 400, `network: must be one of mainnet|fuji|testnet, got "moon"`},
		{"/v2/networks/mainnet/metrics/validatorCount", 404, `this node does not serve network mainnet`},
		{"/v2/networks/fuji/metrics/uptime", 400, `metric: must be one of ` + stakingMetrics + `, got "uptime"`},
		{"/v2/networks/fuji/metrics/validatorCount?startTimestamp=-1", 400, `startTimestamp: must be an integer of at least 0, got "-1"`},
		{"/v2/networks/fuji/metrics/validatorCount?endTimestamp=1.5", 400, `endTimestamp: must be an integer of at least 0, got "1.5"`},
		{"/v2/networks/fuji/metrics/validatorCount?startTimestamp=200&endTimestamp=100", 400, `startTimestamp: 200 is after endTimestamp 100`},
		{"/v2/networks/fuji/metrics/validatorCount?pageSize=0", 400, `pageSize: must be an integer from 1 to 2160, got "0"`},
		{"/v2/networks/fuji/metrics/validatorCount?pageSize=2161", 400, `pageSize: must be an integer from 1 to 2160, got "2161"`},
		{"/v2/networks/fuji/metrics/validatorCount?pageSize=ten&startTimestamp=x", 400,
			`startTimestamp: must be an integer of at least 0, got "x"; pageSize: must be an integer from 1 to 2160, got "ten"`},
		{"/v2/networks/fuji/metrics/validatorCount?subnetId=abc", 400, `subnetId: must be a subnet ID (CB58), got "abc"`},
		{"/v2/networks/fuji/metrics/validatorCount?subnetId=" + unknown.String(), 404, `subnet ` + unknown.String() + ` not found on the P-Chain`},
		{"/v2/networks/fuji/metrics/validatorCount?pageToken=abc", 400,
			`pageToken: not a page token of this API, got "abc"; start again from the first page, without pageToken`},
		{"/v2/networks/fuji/metrics/validatorCount?pageToken=8a1d3c4e-0000-4000-8000-000000000000", 400,
			`pageToken: unknown or expired page token; start again from the first page, without pageToken`},
		{"/v2/networks/fuji/other", 404, `no endpoint GET /v2/networks/fuji/other`},
		{"/v2/validation/abc/metrics/validationFeesDaily", 400, `l1ValidationId: must be a validation ID (CB58), got "abc"`},
		{"/v2/validation/" + unknown.String() + "/metrics/validationFeesDaily", 404, `L1 validation ID ` + unknown.String() + ` not found`},
		{"/v2/validation/" + unknown.String() + "/metrics/fees", 400, `metric: must be one of validationCumulativeFeesDaily|validationFeesDaily, got "fees"`},
		{"/v2/validation/" + unknown.String() + "/metrics/validationFeesDaily?startTimestamp=5&endTimestamp=4", 400, `startTimestamp: 5 is after endTimestamp 4`},
		{"/v2/validators/metrics/fees", 400, `metric: must be one of totalCumulativeFeesDaily|totalValidatorFeesDaily|totalPayingValidatorsDaily, got "fees"`},
		{"/v2/validators/metrics/totalValidatorFeesDaily?endTimestamp=-5", 400, `endTimestamp: must be an integer of at least 0, got "-5"`},
		{"/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=1&startTimestamp=2", 400, `startTimestamp: must be given at most once, got 2 values`},
		{"/v2/validator/abc/metrics/perNodeDailyFeesPaid", 400, `nodeId: must be a node ID (CB58 after NodeID-), got "abc"`},
		{"/v2/validator/" + genesisNode.String() + "/metrics/fees", 400, `metric: must be one of perNodeCumulativeFeesPaid|perNodeDailyFeesPaid, got "fees"`},
		{"/v2/validator/" + genesisNode.String() + "/metrics/perNodeDailyFeesPaid", 404, `node ` + genesisNode.String() + ` has not validated an L1 on the P-Chain`},
		{"/v2/validator/" + genesisNode.String() + "/metrics/perNodeDailyFeesPaid?startTimestamp=9&endTimestamp=8", 400, `startTimestamp: 9 is after endTimestamp 8`},
		{"/v2/subnet/abc/metrics/perSubnetDailyFeesPaid", 400, `subnetId: must be a subnet ID (CB58), got "abc"`},
		{"/v2/subnet/" + unknown.String() + "/metrics/fees", 400, `metric: must be one of perSubnetDailyFeesPaid|perSubnetCumulativeFeesPaid|perSubnetPayingValidators, got "fees"`},
		{"/v2/subnet/" + unknown.String() + "/metrics/perSubnetDailyFeesPaid", 404, `subnet ` + unknown.String() + ` not found on the P-Chain`},
		{"/v2/subnets/abc/validators:getAddresses", 400, `subnetId: must be a subnet ID (CB58), got "abc"`},
		{"/v2/subnets/" + unknown.String() + "/validators:getAddresses", 404, `subnet ` + unknown.String() + ` not found on the P-Chain`},
		{"/v2/subnets/" + primaryID + "/validators:getAddresses?network=moon", 400, `network: must be one of mainnet|fuji|testnet, got "moon"`},
		{"/v2/subnets/" + primaryID + "/validators:getAddresses?network=mainnet", 404, `this node does not serve network mainnet`},
		{"/v2/subnets/" + primaryID + "/validators:getAddresses?pageSize=5001", 400, `pageSize: must be an integer from 1 to 5000, got "5001"`},
		{"/v2/subnets/" + primaryID + "/validators:getAddresses?startTimestamp=3&endTimestamp=2", 400, `startTimestamp: 3 is after endTimestamp 2`},
		{"/v2/subnets/" + primaryID + "/validators:getAddresses?pageToken=abc", 400,
			`pageToken: not a page token of this API, got "abc"; start again from the first page, without pageToken`},
	} {
		e.wantError(c.path, c.status, restError(c.status, c.message))
	}

	// Page tokens belong to their request and expire after 24 hours.
	p.setTime(pT0 + 5*hour)
	p.sync(e)
	page := e.metrics("/v2/networks/fuji/metrics/validatorCount?pageSize=2")
	if page.NextPageToken == "" {
		t.Fatalf("no token: %+v", page)
	}
	for _, other := range []string{"validatorWeight?pageToken=", "validatorCount?subnetId=" + txs.PrimaryNetworkID.String() + "&pageToken=", "validatorCount?startTimestamp=1&pageToken="} {
		e.wantError("/v2/networks/fuji/metrics/"+other+page.NextPageToken, 400,
			restError(400, "pageToken: issued for another request; start again from the first page, without pageToken"))
	}
	// Another page size may continue it.
	if got := e.metrics("/v2/networks/fuji/metrics/validatorCount?pageSize=3&pageToken=" + page.NextPageToken); len(got.Results) != 3 || got.Results[0].Timestamp != pT0+3*hour {
		t.Fatalf("the second page: %+v", got)
	}
	clk.Advance(24 * time.Hour)
	e.wantError("/v2/networks/fuji/metrics/validatorCount?pageToken="+page.NextPageToken, 400,
		restError(400, "pageToken: expired at "+time.Unix(pT0, 0).Add(24*time.Hour).UTC().Format(time.RFC3339)+"; start again from the first page, without pageToken"))

	// Another method is a 405.
	resp, err := http.Post(e.h.ModuleURL()+"/v2/validators/metrics/totalValidatorFeesDaily", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	body := new(bytes.Buffer)
	_, _ = body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET" || string(bytes.TrimSpace(body.Bytes())) != restError(405, "method POST not allowed: use GET") {
		t.Errorf("POST = %d %v %s", resp.StatusCode, resp.Header, body)
	}

	// A fee series of more than pvmapi.MaxDays days of history is refused;
	// a narrower one is not.
	p.setTime(pT0 + (pvmapi.MaxDays+5)*secondsPerDay)
	e.wantError("/v2/validators/metrics/totalValidatorFeesDaily", 400, restError(400,
		"startTimestamp: the range holds more than 3660 days of the P-Chain's history; narrow startTimestamp and endTimestamp"))
	if got := e.metrics(fmt.Sprintf("/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=%d", pT0+6*secondsPerDay)); len(got.Results) != pvmapi.MaxDays {
		t.Fatalf("the last %d days: %d points", pvmapi.MaxDays, len(got.Results))
	}

	// Over the anonymous limit: 429 with Retry-After, a message string.
	for {
		status, header, body := e.get("/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=" + fmt.Sprint(pT0+(pvmapi.MaxDays+4)*secondsPerDay))
		if status == 200 {
			continue
		}
		if status != 429 || header.Get("Retry-After") != "1" || string(bytes.TrimSpace(body)) != restError(429, "rate limit exceeded, retry in 1 second") {
			t.Fatalf("over the limit: %d %v %s", status, header, body)
		}
		break
	}

	// A node without a P-Chain has no v2 series.
	none := start(t, t.TempDir(), noLimits, clk)
	noP := restError(404, "this node runs no P-Chain: the staking and L1 validator fee series come from it")
	none.wantError("/v2/networks/fuji/metrics/validatorCount", 404, noP)
	none.wantError("/v2/validators/metrics/totalValidatorFeesDaily", 404, noP)
	none.wantError("/v2/validation/"+unknown.String()+"/metrics/validationFeesDaily", 404, noP)
	none.wantError("/v2/subnet/"+unknown.String()+"/metrics/perSubnetDailyFeesPaid", 404, noP)
	none.wantError("/v2/validator/"+genesisNode.String()+"/metrics/perNodeDailyFeesPaid", 404, noP)
	none.wantError("/v2/subnets/"+unknown.String()+"/validators:getAddresses", 404, noP)
}

// TestStakingLag: while the P-Chain does not answer, its blocks are
// counted but their staking totals cannot be read: the staking series end
// at the hour of the last block read, health shows the lag and the error,
// the fee series answer 503; once it answers, the series catch up.
func TestStakingLag(t *testing.T) {
	p := startP(t)
	clk := &clock{now: time.Unix(pT0, 0)}
	e := startWith(t, t.TempDir(), noLimits, clk, p, nil)
	p.sync(e)
	if _, err := p.wallet.AddValidator(context.Background(), client.Stake{NodeID: avax.NodeID{7}, Weight: pMinStake, Start: pT0 + 2*hour, End: pT0 + 4*hour}, 20_000, nil); err != nil {
		t.Fatal(err)
	}
	p.setTime(pT0 + 5*hour)
	p.down.Store(true)
	blocks := p.h.Containers("block")
	for _, c := range blocks {
		e.h.AppendContainer(p.info.ID, "block", c.ID, c.Bytes)
	}
	e.pBlocks = len(blocks)
	e.waitCounted("P", uint64(len(blocks)))
	plugintest.Eventually(t, 10*time.Second, func() error {
		d, _ := e.h.HealthDetails(context.Background())
		c, _ := d["chains"].(map[string]any)["P"].(map[string]any)
		if c["stakingLag"] == float64(len(blocks)) && c["stakingError"] != nil {
			return nil
		}
		return fmt.Errorf("health while the P-Chain does not answer: %v", d)
	})
	samePoints(t, "while behind", e.metrics("/v2/networks/fuji/metrics/validatorCount").Results, []api.Point{{Value: 1, Timestamp: pT0}})
	e.wantError("/v2/validators/metrics/totalValidatorFeesDaily", 503, restError(503, "the P-Chain does not answer"))

	p.down.Store(false)
	e.waitStaking(uint64(len(blocks)))
	stakers := []metricstest.Staker{
		{Subnet: txs.PrimaryNetworkID, Weight: pMinStake, Start: pT0, End: pT0 + 30*secondsPerDay},
		{Subnet: txs.PrimaryNetworkID, Weight: pMinStake, Start: pT0 + 2*hour, End: pT0 + 4*hour},
	}
	samePoints(t, "caught up", e.metrics("/v2/networks/fuji/metrics/validatorCount").Results, metricstest.Hourly(stakers, nil, "validatorCount", pT0, pT0+5*hour))
}
