package metricsapi_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
)

// Addresses of the chain metrics tests.
var (
	addrA, addrB, addrC, addrD = common.Address{0xa1}, common.Address{0xb2}, common.Address{0xc3}, common.Address{0xd4}
	addrE, addrX, addrY        = common.Address{0xe5}, common.Address{0x99}, common.Address{0x98}
	erc20Transfer              = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
)

// tx is a transaction of from to to (nil: a creation), with its gas used,
// gas price, logs and call frames.
func tx(from common.Address, to *common.Address, gas, price int64, logs []evmapi.Log, calls ...evmapi.CallFrame) evmapi.Transaction {
	return evmapi.Transaction{From: from, To: to, GasUsed: hexutil.Uint64(gas), GasPrice: (*hexutil.Big)(big.NewInt(price)), Status: 1, Logs: logs, Calls: calls}
}

// block is a block at time ts with txs, its gas used theirs.
func block(ts int64, txs ...evmapi.Transaction) evmapi.Block {
	b := evmapi.Block{Timestamp: hexutil.Uint64(ts), Transactions: txs}
	for _, t := range txs {
		b.GasUsed += t.GasUsed
	}
	return b
}

// metricsChain are the blocks of the chain metrics tests, from day0, a
// Sunday (2026-03-01):
//
//   - hour 0: A→B and B→A (prices 10 and 30); A creates a contract whose
//     constructor creates another (deployers A and X), with an ERC-20
//     transfer from C to D; a block without transactions at 00:59:59;
//   - hour 1, 01:00:00: C calls, and a creation under a reverted frame
//     is undone;
//   - day 1 (Monday, a new week), 00:00:10: A→B;
//   - 1 April (a new month), 00:00:00: E→A.
func metricsChain() []evmapi.Block {
	transfer := []evmapi.Log{{Address: addrX, Topics: []common.Hash{erc20Transfer, common.BytesToHash(addrC[:]), common.BytesToHash(addrD[:])}}}
	return []evmapi.Block{
		block(day0+100, tx(addrA, &addrB, 21000, 10, nil), tx(addrB, &addrA, 21000, 30, nil)),
		block(day0+110, tx(addrA, nil, 100000, 20, transfer,
			evmapi.CallFrame{Type: evmapi.CreateType, From: addrA, To: addrX},
			evmapi.CallFrame{Type: evmapi.Create2Type, From: addrX, To: addrY, Depth: 1})),
		block(day0 + 3599),
		block(day0+3600, tx(addrC, &addrA, 21000, 5, nil,
			evmapi.CallFrame{Type: evmapi.CallType, From: addrC, To: addrA},
			evmapi.CallFrame{Type: evmapi.CreateType, From: addrA, To: addrY, Depth: 1, Reverted: true},
			evmapi.CallFrame{Type: evmapi.CreateType, From: addrY, To: addrE, Depth: 2})),
		block(day0+secondsPerDay+10, tx(addrA, &addrB, 21000, 10, nil)),
		block(day0+31*secondsPerDay, tx(addrE, &addrA, 21000, 1, nil)),
	}
}

// chainPoint is a point of a chain metric, its value as written.
type chainPoint struct {
	Value     json.Number `json:"value"`
	Timestamp int64       `json:"timestamp"`
}

// chainSeries GETs a chain metric, following every page, and returns
// its points and how many pages it took.
func (e *env) chainSeries(path string) ([]chainPoint, int) {
	e.t.Helper()
	var out []chainPoint
	token, pages := "", 0
	for {
		p := path
		if token != "" {
			p += "&pageToken=" + token
		}
		status, _, body := e.get(p)
		if status != 200 {
			e.t.Fatalf("GET %s = %d %s", p, status, body)
		}
		var page struct {
			Results       []chainPoint `json:"results"`
			NextPageToken string       `json:"nextPageToken"`
		}
		d := json.NewDecoder(strings.NewReader(string(body)))
		d.UseNumber()
		if err := d.Decode(&page); err != nil {
			e.t.Fatal(err)
		}
		out, token = append(out, page.Results...), page.NextPageToken
		pages++
		if token == "" {
			return out, pages
		}
	}
}

// nonZero returns the points whose value is not 0, as "offset=value",
// the offset from day0 in seconds.
func nonZero(points []chainPoint) []string {
	var out []string
	for _, p := range points {
		if p.Value != "0" {
			out = append(out, fmt.Sprintf("%d=%s", p.Timestamp-day0, p.Value))
		}
	}
	return out
}

// checkSteps checks that points are every step from newest to oldest,
// newest first.
func checkSteps(t *testing.T, what string, points []chainPoint, newest, oldest int64, step func(int64) int64) {
	t.Helper()
	at := newest
	for i, p := range points {
		if p.Timestamp != at {
			t.Fatalf("%s: point %d at %d, want %d", what, i, p.Timestamp, at)
		}
		if at == oldest {
			if i != len(points)-1 {
				t.Fatalf("%s: %d points after the oldest", what, len(points)-1-i)
			}
			return
		}
		at = step(at)
	}
	t.Fatalf("%s: ends at %d, want %d", what, at, oldest)
}

// TestChainMetrics: every chain metric of a known chain, at each
// interval, its buckets bounded by hours, UTC days, weeks from Monday and
// calendar months; gaps are zeros, or the last value for the cumulative
// counts; pages join; a restart in the middle of the chain counts nothing
// twice; the rolling windows.
func TestChainMetrics(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{now: time.Unix(day0+31*secondsPerDay+100, 0)}
	blocks := metricsChain()
	t.Run("first run", func(t *testing.T) {
		e := start(t, dir, noLimits, clk)
		e.appendEVM(chainC.ID, blocks[:3]...)
		e.waitCounted("C", 3)
	})
	e := start(t, dir, noLimits, clk)
	e.appendEVM(chainC.ID, blocks...) // the memory host starts empty: the whole index again
	e.waitCounted("C", 6)

	const h, d = 3600, secondsPerDay
	hourly := func(metric string) []chainPoint {
		points, pages := e.chainSeries("/v2/chains/43112/metrics/" + metric + "?timeInterval=hour&pageSize=100")
		checkSteps(t, metric, points, 31*d+day0, day0, func(t int64) int64 { return t - h })
		if pages != 8 { // 745 hours
			t.Errorf("%s: %d pages of 100, want 8", metric, pages)
		}
		return points
	}
	for metric, want := range map[string][]string{
		"txCount":         {"2678400=1", "86400=1", "3600=1", "0=3"},
		"gasUsed":         {"2678400=21000", "86400=21000", "3600=21000", "0=142000"},
		"activeAddresses": {"2678400=2", "86400=2", "3600=2", "0=4"},
		"activeSenders":   {"2678400=1", "86400=1", "3600=1", "0=3"},
		"contracts":       {"0=2"},
		"deployers":       {"0=2"},
		"feesPaid":        {"2678400=21000", "86400=210000", "3600=105000", "0=2840000"},
		"maxGasPrice":     {"2678400=1", "86400=10", "3600=5", "0=30"},
		"avgGasPrice":     {"2678400=1", "86400=10", "3600=5", "0=20"},
		// The first block counted has no block before it: one second.
		"maxTps": {"2678400=3.858039575769968e-7", "86400=0.000012075836251660428", "3600=1", "0=2"},
		"maxGps": {"2678400=0.008101883109116933", "86400=0.25359256128486896", "3600=21000", "0=42000"},
		// From the block before the hour's first to its last.
		"avgTps": {"2678400=3.858039575769968e-7", "86400=0.000012075836251660428", "3600=1", "0=0.0008573878250928837"},
	} {
		if got := nonZero(hourly(metric)); !slices.Equal(got, want) {
			t.Errorf("hourly %s = %v, want %v", metric, got, want)
		}
	}
	// The cumulative counts hold through the hours without a block.
	cum := hourly("cumulativeAddresses")
	if cum[0].Value != "5" || cum[len(cum)-1].Value != "4" || cum[len(cum)-2].Value != "4" || cum[len(cum)-30].Value != "4" {
		t.Errorf("cumulativeAddresses: newest %s, oldest %s, %s, 30th %s; want 5, 4, 4, 4", cum[0].Value, cum[len(cum)-1].Value, cum[len(cum)-2].Value, cum[len(cum)-30].Value)
	}
	for _, c := range []struct {
		interval, metric string
		newest, oldest   int64
		step             func(int64) int64
		want             []string
	}{
		{"day", "txCount", day0 + 31*d, day0, func(t int64) int64 { return t - d }, []string{"2678400=1", "86400=1", "0=4"}},
		{"day", "activeAddresses", day0 + 31*d, day0, func(t int64) int64 { return t - d }, []string{"2678400=2", "86400=2", "0=4"}},
		{"day", "avgGasPrice", day0 + 31*d, day0, func(t int64) int64 { return t - d }, []string{"2678400=1", "86400=10", "0=16.25"}},
		{"day", "avgTps", day0 + 31*d, day0, func(t int64) int64 { return t - d }, []string{"2678400=3.858039575769968e-7", "86400=0.000012075836251660428", "0=0.001142857142857143"}},
		{"day", "cumulativeTxCount", day0 + 31*d, day0, func(t int64) int64 { return t - d }, cumulativeDays()},
		// Weeks from Monday: 23 February to 30 March.
		{"week", "txCount", day0 + 29*d, day0 - 6*d, func(t int64) int64 { return t - 7*d }, []string{"2505600=1", "86400=1", "-518400=4"}},
		{"week", "activeSenders", day0 + 29*d, day0 - 6*d, func(t int64) int64 { return t - 7*d }, []string{"2505600=1", "86400=1", "-518400=3"}},
		{"month", "txCount", day0 + 31*d, day0, func(int64) int64 { return day0 }, []string{"2678400=1", "0=5"}},
		{"month", "activeAddresses", day0 + 31*d, day0, func(int64) int64 { return day0 }, []string{"2678400=2", "0=4"}},
		{"month", "cumulativeDeployers", day0 + 31*d, day0, func(int64) int64 { return day0 }, []string{"2678400=2", "0=2"}},
	} {
		points, _ := e.chainSeries(fmt.Sprintf("/v2/chains/C/metrics/%s?timeInterval=%s&pageSize=7", c.metric, c.interval))
		checkSteps(t, c.interval+" "+c.metric, points, c.newest, c.oldest, c.step)
		if got := nonZero(points); !slices.Equal(got, c.want) {
			t.Errorf("%s %s = %v, want %v", c.interval, c.metric, got, c.want)
		}
	}
	// A range: the hours whose start lies in it.
	points, _ := e.chainSeries(fmt.Sprintf("/v2/chains/C/metrics/txCount?timeInterval=hour&startTimestamp=%d&endTimestamp=%d", day0+1, day0+3600))
	if len(points) != 1 || points[0].Timestamp != day0+3600 || points[0].Value != "1" {
		t.Errorf("hours in (day0, day0+3600] = %v", points)
	}

	status, _, body := e.get("/v2/chains/43112/rollingWindowMetrics/txCount")
	if want := `{"result":{"lastHour":1,"lastDay":1,"lastWeek":1,"lastMonth":1,"last90Days":6,"lastYear":6,"allTime":6}}`; status != 200 || strings.TrimSpace(string(body)) != want {
		t.Errorf("rolling txCount = %d %s, want %s", status, body, want)
	}
	status, _, body = e.get("/v2/chains/C/rollingWindowMetrics/activeAddresses")
	if want := `{"result":{"lastHour":2,"lastDay":2,"lastWeek":2}}`; status != 200 || strings.TrimSpace(string(body)) != want {
		t.Errorf("rolling activeAddresses = %d %s, want %s", status, body, want)
	}
	status, _, body = e.get("/v2/chains/C/rollingWindowMetrics/deployers")
	if want := `{"result":{"lastHour":0,"lastDay":0,"lastWeek":0,"lastMonth":0,"last90Days":2,"lastYear":2,"allTime":2}}`; status != 200 || strings.TrimSpace(string(body)) != want {
		t.Errorf("rolling deployers = %d %s, want %s", status, body, want)
	}
	status, _, body = e.get("/v2/chains/C/rollingWindowMetrics/feesPaid")
	if want := `{"result":{"lastHour":21000,"lastDay":21000,"lastWeek":21000,"lastMonth":21000,"last90Days":3176000,"lastYear":3176000,"allTime":3176000}}`; status != 200 || strings.TrimSpace(string(body)) != want {
		t.Errorf("rolling feesPaid = %d %s, want %s", status, body, want)
	}
}

// cumulativeDays are the days of cumulativeTxCount that are not 0: every
// day holds the count up to its end.
func cumulativeDays() []string {
	out := []string{"2678400=6"}
	for day := int64(30); day >= 1; day-- {
		out = append(out, fmt.Sprintf("%d=5", day*secondsPerDay))
	}
	return append(out, "0=4")
}

// TestChainMetricsErrors: every refusal of the chain metrics, its exact
// body; a page token of one chain metric is not one of another.
func TestChainMetricsErrors(t *testing.T) {
	e := start(t, t.TempDir(), noLimits, &clock{now: time.Unix(day0+10*secondsPerDay, 0)})
	e.appendEVM(chainC.ID, metricsChain()[:5]...)
	e.waitCounted("C", 5)
	bad := func(msg string) string {
		b, _ := json.Marshal(msg)
		return `{"message":` + string(b) + `,"statusCode":400,"error":"Bad Request"}`
	}
	notFound := func(msg string) string {
		b, _ := json.Marshal(msg)
		return `{"message":` + string(b) + `,"statusCode":404,"error":"Not Found"}`
	}
	for path, want := range map[string]string{
		"/v2/chains/C/metrics/uptime":                                                 bad(`metric: must be one of activeAddresses|activeSenders|cumulativeTxCount|cumulativeAddresses|cumulativeContracts|cumulativeDeployers|contracts|deployers|gasUsed|txCount|avgGps|maxGps|avgTps|maxTps|avgGasPrice|maxGasPrice|feesPaid, got "uptime"`),
		"/v2/chains/C/rollingWindowMetrics/cumulativeTxCount":                         bad(`metric: must be one of gasUsed|txCount|avgGps|maxGps|avgTps|maxTps|avgGasPrice|maxGasPrice|feesPaid|contracts|deployers|activeAddresses|activeSenders, got "cumulativeTxCount"`),
		"/v2/chains/C/metrics/txCount?timeInterval=year":                              bad(`timeInterval: must be one of hour|day|week|month, got "year"`),
		"/v2/chains/C/metrics/txCount?startTimestamp=200&endTimestamp=100":            bad(`startTimestamp: 200 is after endTimestamp 100`),
		"/v2/chains/C/metrics/txCount?startTimestamp=-1&pageSize=2161":                bad(`startTimestamp: must be an integer of at least 0, got "-1"; pageSize: must be an integer from 1 to 2160, got "2161"`),
		"/v2/chains/C/metrics/txCount?endTimestamp=99999999999999999999":              bad(`endTimestamp: must be an integer of at least 0, got "99999999999999999999"`),
		"/v2/chains/C/metrics/txCount?pageSize=0":                                     bad(`pageSize: must be an integer from 1 to 2160, got "0"`),
		"/v2/chains/C/metrics/txCount?pageToken=abc":                                  bad(`pageToken: not a page token of this API, got "abc"; start again from the first page, without pageToken`),
		"/v2/chains/C/metrics/txCount?pageToken=8a1d3c4e-0000-4000-8000-000000000000": bad(`pageToken: unknown or expired page token; start again from the first page, without pageToken`),
		"/v2/chains/nope/metrics/txCount":                                             notFound(`chain "nope" not found: use a blockchain ID or alias of a chain with a block index, or an EVM chain ID`),
		"/v2/chains/kv/metrics/txCount":                                               notFound(`chain "kv" not found: use a blockchain ID or alias of a chain with a block index, or an EVM chain ID`),
		"/v2/chains/total/rollingWindowMetrics/txCount":                               notFound(`chain "total": the sums over a network's chains are not kept; ask for each chain of /v2/chains`),
	} {
		status := 400
		if strings.Contains(want, `"statusCode":404`) {
			status = 404
		}
		e.wantError(path, status, want)
	}
	// D has no block: its page tokens are checked all the same.
	e.wantError("/v2/chains/D/metrics/txCount?pageToken=abc", 400,
		bad(`pageToken: not a page token of this API, got "abc"; start again from the first page, without pageToken`))
	// A token of the hourly txCount is not one of the daily, nor of gasUsed.
	status, _, body := e.get("/v2/chains/C/metrics/txCount?timeInterval=hour&pageSize=1")
	var page struct{ NextPageToken string }
	if err := json.Unmarshal(body, &page); status != 200 || err != nil || page.NextPageToken == "" {
		t.Fatalf("first page: %d %s", status, body)
	}
	for _, other := range []string{"txCount?timeInterval=day&", "gasUsed?timeInterval=hour&", "txCount?timeInterval=hour&startTimestamp=0&"} {
		e.wantError("/v2/chains/C/metrics/"+other+"pageToken="+page.NextPageToken, 400,
			bad(`pageToken: issued for another request; start again from the first page, without pageToken`))
	}
	// A range past the last hour the buckets count is empty.
	if status, _, body := e.get("/v2/chains/C/metrics/txCount?startTimestamp=9000000000000000000"); status != 200 || strings.TrimSpace(string(body)) != `{"results":[]}` {
		t.Errorf("a range past the buckets: %d %s", status, body)
	}
}

// TestChainMetricsUpgrade: an EVM chain counted before the module kept
// the chain metrics (day counts and progress, no chain metrics) is counted
// again from its first block, once: its chain metrics hold every block,
// its day counts none twice.
func TestChainMetricsUpgrade(t *testing.T) {
	dir := t.TempDir()
	blocks := metricsChain()
	s, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	var light []store.Block
	for _, b := range blocks[:4] {
		light = append(light, store.Block{Time: int64(b.Timestamp), Txs: len(b.Transactions)})
	}
	if _, err := s.Add(chainC.ID, store.Progress{}, light, time.Unix(day0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e := start(t, dir, noLimits, &clock{now: time.Unix(day0+31*secondsPerDay+100, 0)})
	e.appendEVM(chainC.ID, blocks...)
	e.waitCounted("C", 6)
	points, _ := e.chainSeries("/v2/chains/C/metrics/cumulativeTxCount?timeInterval=month")
	if got := nonZero(points); !slices.Equal(got, []string{"2678400=6", "0=5"}) {
		t.Errorf("monthly cumulativeTxCount = %v", got)
	}
	checkPoints(t, "avg_tps", e.avgTPS("C", "").Results[30:], []point{{1, 1}, {0, 4}})
}
