package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/plugins/metricsapi/metricstest"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// metricsPConfig runs the P-Chain of pchainConfig on a manual clock, the
// X-Chain, the C-Chain and the metrics module without rate limits.
func metricsPConfig() string {
	return pchainConfig("manual") + fmt.Sprintf(`  - alias: C
    vm: evm
    genesis: %s
    config:
      block-production: auto
      dev-api-enabled: true
      cache-mb: 32
`, evmGenesis(evmChainID)) + metricsConfig
}

// metricsScenario is what a metrics test did on the P-Chain, as the
// oracle (metricstest) takes it.
type metricsScenario struct {
	stakers []metricstest.Staker
	payers  []metricstest.Payer
	// vids are the payers' validation IDs.
	vids []ids.ID
	// subnets holds each subnet with the start of its series: the genesis
	// for the primary network, the block that made an L1's subnet.
	subnets map[ids.ID]uint64
	// now is the chain's time.
	now uint64
}

// The times of the scenario: the L1 is made at 23:00 on day 2, changes at
// midnight.
const (
	mL1       = pT0 + 3*pDay - 3600
	mMidnight = pT0 + 3*pDay
)

// metricsPrimary adds validators and delegators at known times at the
// chain's genesis time and moves the clock to 07:00:13 on day 1: A from
// now to 00:30 on day 2; B from 00:30 on day 1 to day 3; D1 to A from now
// to 05:00:01 on day 1; D2 to B from 06:00 on day 1 to 12:00 on day 2.
func metricsPrimary(t *testing.T, w *client.Wallet) *metricsScenario {
	t.Helper()
	ctx := context.Background()
	primary := txs.PrimaryNetworkID
	sc := &metricsScenario{
		stakers: []metricstest.Staker{{Subnet: primary, Weight: pMinStake, Start: pT0, End: pT0 + 40*pDay}},
		subnets: map[ids.ID]uint64{primary: pT0},
	}
	a, b := pchainNodeID(1), pchainNodeID(2)
	popA := txs.NewProofOfPossession(w.DevBLSKey(a))
	add := []struct {
		s   metricstest.Staker
		run func(metricstest.Staker) (ids.ID, error)
	}{
		{metricstest.Staker{Weight: 3_000_000_000_000, Start: pT0, End: pT0 + 2*pDay + 1800}, func(s metricstest.Staker) (ids.ID, error) {
			return w.AddValidator(ctx, client.Stake{NodeID: a, Weight: s.Weight, End: s.End}, 20_000, &popA)
		}},
		{metricstest.Staker{Weight: 2_500_000_000_000, Start: pT0 + pDay + 1800, End: pT0 + 3*pDay}, func(s metricstest.Staker) (ids.ID, error) {
			return w.AddValidator(ctx, client.Stake{NodeID: b, Weight: s.Weight, Start: s.Start, End: s.End}, 50_000, nil)
		}},
		{metricstest.Staker{Delegator: true, Weight: 100_000_000_000, Start: pT0, End: pT0 + pDay + 5*3600 + 1}, func(s metricstest.Staker) (ids.ID, error) {
			return w.AddDelegator(ctx, client.Stake{NodeID: a, Weight: s.Weight, End: s.End})
		}},
		{metricstest.Staker{Delegator: true, Weight: 50_000_000_000, Start: pT0 + pDay + 6*3600, End: pT0 + 2*pDay + 12*3600}, func(s metricstest.Staker) (ids.ID, error) {
			return w.AddDelegator(ctx, client.Stake{NodeID: b, Weight: s.Weight, Start: s.Start, End: s.End})
		}},
	}
	for _, x := range add {
		if _, err := x.run(x.s); err != nil {
			t.Fatal(err)
		}
		x.s.Subnet = primary
		sc.stakers = append(sc.stakers, x.s)
	}
	sc.now = pT0 + pDay + 7*3600 + 13
	setPChainTime(t, w, sc.now)
	return sc
}

// metricsL1 makes an L1 at 23:00 on day 2 (mL1): V1 can pay 5000 s, V2 3
// h, V3 7200.5 s; at midnight V2 gets another hour, V3 weighs 70 instead
// of 50, V4 registers with 9000 s worth and is disabled 1000 s later. The
// clock ends at 05:00:17 on day 3.
func metricsL1(t *testing.T, w *client.Wallet, sc *metricsScenario) {
	t.Helper()
	ctx := context.Background()
	setPChainTime(t, w, mL1)
	subnet, err := w.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	manager, err := w.CreateChain(ctx, subnet, "manager", ids.ID{'m', 'e', 't', 'r', 'i', 'c', 's'}, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	_, vids, err := w.ConvertSubnet(ctx, subnet, manager, []byte{0xab, 0xcd}, []client.NewL1Validator{
		{NodeID: pchainNodeID(11), Weight: 100, Balance: 5000 * pRate},
		{NodeID: pchainNodeID(12), Weight: 100, Balance: 3 * 3600 * pRate},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, v3, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: pchainNodeID(13), Weight: 50, Balance: 7200*pRate + 500}, mL1+3600)
	if err != nil {
		t.Fatal(err)
	}
	setPChainTime(t, w, mMidnight)
	if _, err := w.IncreaseBalance(ctx, vids[1], 3600*pRate); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SetL1ValidatorWeight(ctx, v3, 70); err != nil {
		t.Fatal(err)
	}
	_, v4, err := w.RegisterL1Validator(ctx, subnet, client.NewL1Validator{NodeID: pchainNodeID(14), Weight: 10, Balance: 9000 * pRate}, mMidnight+3600)
	if err != nil {
		t.Fatal(err)
	}
	setPChainTime(t, w, mMidnight+1000)
	if _, err := w.Disable(ctx, v4); err != nil {
		t.Fatal(err)
	}
	sc.vids = append(vids, v3, v4)
	sc.payers = []metricstest.Payer{
		{Start: mL1, Balance: 5000 * pRate},
		{Start: mL1, Balance: 4 * 3600 * pRate}, // its top-up came while it was active
		{Start: mL1, Balance: 7200*pRate + 500},
		{Start: mMidnight, Balance: 9000 * pRate, Stop: mMidnight + 1000},
	}
	sc.stakers = append(sc.stakers,
		metricstest.Staker{Subnet: subnet, Weight: 100, Start: mL1, End: mL1 + 5000},
		metricstest.Staker{Subnet: subnet, Weight: 100, Start: mL1, End: mL1 + 4*3600},
		metricstest.Staker{Subnet: subnet, Weight: 50, Start: mL1, End: mMidnight},
		metricstest.Staker{Subnet: subnet, Weight: 70, Start: mMidnight, End: mL1 + 7201},
		metricstest.Staker{Subnet: subnet, Weight: 10, Start: mMidnight, End: mMidnight + 1000},
	)
	sc.subnets[subnet] = mL1
	sc.now = pT0 + 3*pDay + 5*3600 + 17
	setPChainTime(t, w, sc.now)
}

// metricsGet GETs a v2 series' page.
func metricsGet(t *testing.T, n *nodetest.Node, path string) (api.MetricsResponse, error) {
	t.Helper()
	status, body := restGet(t, context.Background(), n.URL+path)
	var out api.MetricsResponse
	if status != 200 {
		return out, fmt.Errorf("GET %s = %d %s", path, status, body)
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return out, fmt.Errorf("GET %s: %w", path, err)
	}
	return out, nil
}

// metricsPages reads a series page by page at pageSize (0: without page
// parameters) and checks the pages: every one but the last full with a
// token, the last without.
func metricsPages(t *testing.T, n *nodetest.Node, path string, pageSize int) ([]api.Point, error) {
	t.Helper()
	var all []api.Point
	token := ""
	for page := 1; ; page++ {
		p := path
		if pageSize > 0 {
			p += fmt.Sprintf("&pageSize=%d", pageSize)
		}
		if token != "" {
			p += "&pageToken=" + url.QueryEscape(token)
		}
		got, err := metricsGet(t, n, p)
		if err != nil {
			return nil, err
		}
		all = append(all, got.Results...)
		if got.NextPageToken == "" {
			return all, nil
		}
		if pageSize == 0 || len(got.Results) != pageSize {
			return nil, fmt.Errorf("GET %s: page %d of %d points has a next page", p, page, len(got.Results))
		}
		token = got.NextPageToken
	}
}

// waitPoints reads a series until it equals want (the module follows the
// chain as its blocks come), failing after a minute.
func waitPoints(t *testing.T, what string, read func() ([]api.Point, error), want []api.Point) {
	t.Helper()
	plugintest.Eventually(t, time.Minute, func() error {
		got, err := read()
		if err != nil || !slices.Equal(got, want) {
			return fmt.Errorf("%s:\n got  %v (%v)\n want %v", what, got, err, want)
		}
		return nil
	})
}

// checkMetricsSeries checks every v2 series of the node against the
// scenario: the staking series (the sum and each subnet's, each metric) in
// one page and in pages of 24 (whose boundaries are not at midnight), the
// fees of each validator and of all per day.
func checkMetricsSeries(t *testing.T, n *nodetest.Node, sc *metricsScenario) {
	t.Helper()
	type series struct {
		query  string
		subnet *ids.ID
		first  uint64
	}
	list := []series{{"", nil, pT0}}
	for id, first := range sc.subnets {
		list = append(list, series{"&subnetId=" + id.String(), &id, first})
	}
	for _, s := range list {
		for _, m := range metricstest.StakingMetrics {
			path := "/v2/networks/fuji/metrics/" + m + "?" + s.query
			want := metricstest.Hourly(sc.stakers, s.subnet, m, s.first, sc.now)
			for _, size := range []int{2160, 24} {
				waitPoints(t, fmt.Sprintf("%s in pages of %d", path, size), func() ([]api.Point, error) { return metricsPages(t, n, path, size) }, want)
			}
		}
	}
	if len(sc.payers) == 0 {
		return
	}
	fees, paying := metricstest.Fees(sc.payers, pRate, sc.now)
	for i, py := range sc.payers {
		mine, _ := metricstest.Fees([]metricstest.Payer{py}, pRate, sc.now)
		for metric, value := range map[string]func(uint64) uint64{
			"validationFeesDaily":           metricstest.Of(mine),
			"validationCumulativeFeesDaily": metricstest.Cumulative(mine),
		} {
			path := "/v2/validation/" + sc.vids[i].String() + "/metrics/" + metric + "?"
			waitPoints(t, path, func() ([]api.Point, error) { return metricsPages(t, n, path, 0) }, metricstest.Daily(py.Start, sc.now, value))
		}
	}
	for metric, value := range map[string]func(uint64) uint64{
		"totalValidatorFeesDaily":    metricstest.Of(fees),
		"totalCumulativeFeesDaily":   metricstest.Cumulative(fees),
		"totalPayingValidatorsDaily": metricstest.Of(paying),
	} {
		path := "/v2/validators/metrics/" + metric + "?"
		waitPoints(t, path, func() ([]api.Point, error) { return metricsPages(t, n, path, 0) }, metricstest.Daily(pT0, sc.now, value))
	}
}

// TestMetricsStakingAndFees is the metrics issue's acceptance test on the
// real node: a P-Chain on a manual clock whose validator set and L1
// validators change at known times, and the C-Chain with transactions on
// two days. Every staking series (hourly) and fee series (daily) equals
// the values computed from those times and the fee rate
// (metricstest), across page boundaries and UTC midnight; after a SIGKILL
// of the module, which the host restarts, and after a restart of the node
// the series are whole and go on.
func TestMetricsStakingAndFees(t *testing.T) {
	t.Parallel()
	opts := nodetest.Options{Config: metricsPConfig(), DataDir: t.TempDir()}
	n := nodetest.Start(t, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	// The C-Chain: three transactions, a day later two more.
	c := evmDial(t, n, "C", "rpc")
	s := newSender(t, ctx, c, evmKey(t))
	bob := common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	for range 3 {
		s.send(ctx, &bob, big.NewInt(1), nil, 21000)
	}
	var moved string
	if err := c.Client().CallContext(ctx, &moved, "evm_increaseTime", 86400); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s.send(ctx, &bob, big.NewInt(1), nil, 21000)
	}
	cDays, _ := evmDays(t, ctx, c)
	waitAvgTPS(t, n, "43112", cDays)

	w := pchainWallet(t, n)
	sc := metricsPrimary(t, w)
	checkMetricsSeries(t, n, sc)

	// The module dies; the host starts it again; it resumes.
	old := nodetest.PluginPID(t, n, "metricsapi")
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	n.WaitNewPlugin(t, "metricsapi", old)
	metricsL1(t, w, sc)
	checkMetricsSeries(t, n, sc)

	// A restart of the node; then the clock crosses another midnight.
	n = n.Restart(t)
	w = pchainWallet(t, n)
	checkMetricsSeries(t, n, sc)
	sc.now = pT0 + 4*pDay + 1
	setPChainTime(t, w, sc.now)
	checkMetricsSeries(t, n, sc)
	waitAvgTPS(t, n, "43112", cDays)
	pDays := dayTxs{}
	for _, b := range walkPChainBlocks(t, n, w) {
		pDays[int64(b.Time)/86400] += float64(len(b.Txs))
	}
	waitAvgTPS(t, n, "P", pDays)
}
