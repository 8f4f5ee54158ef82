package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The history of the benchmarks' store: four years of hours from
// benchT0, the sum and the primary network changing every hour, and
// benchL1s L1s changing every hour of the last year.
const (
	benchT0    = 1_640_995_200 // 2022-01-01T00:00:00Z
	benchHours = 4 * 365 * 24
	benchL1s   = 100
	benchPage  = 2160 // 90 days of hours, the largest page
)

// benchChainCaller answers the module's calls to the P-Chain: its
// handlers, through the harness's gRPC connection.
type benchChainCaller struct{ h *plugintest.Harness }

func (c benchChainCaller) Call(ctx context.Context, _ string, handler string, body []byte) (int, []byte, error) {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	c.h.Handler(handler).ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}

// benchPChain starts a real P-Chain VM (manual clock, genesis at
// benchT0) whose clock is in the last hour of the history: the staking
// answers ask it for its time.
func benchPChain(b *testing.B) *plugintest.Harness {
	b.Helper()
	genesis := fmt.Sprintf(`{"avaxAssetID":"2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe","timestamp":%d,
		"allocations":[{"address":"P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u","amount":"1000000000000000"}]}`, benchT0)
	h := plugintest.Start(b, pvm.New(), plugintest.Options{
		Name: "P", NetworkID: avax.LocalID, Genesis: []byte(genesis), Config: []byte(`{"clock":"manual","dev-api-enabled":true}`),
	})
	now := uint64(benchT0 + benchHours*store.SecondsPerHour - 1800)
	if got, err := client.NewEndpoint(h.URL(""), "P", nil).SetTime(context.Background(), now); err != nil || got != now {
		b.Fatalf("pvm.setTime: %d, %v", got, err)
	}
	return h
}

// benchStore writes the history into a store in a temporary directory.
func benchStore(b *testing.B, chain ids.ID) (*store.Store, []ids.ID) {
	b.Helper()
	s, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	l1s := make([]ids.ID, benchL1s)
	for i := range l1s {
		l1s[i] = ids.ID{0x11, byte(i)}
	}
	begin := time.Now()
	records := 0
	var changes []store.StakingChange
	for h := range uint32(benchHours) {
		hour := store.HourOf(benchT0) + h
		v := uint64(h)
		primary := store.Totals{ValidatorCount: 1000 + v%97, ValidatorWeight: 250_000_000_000_000_000 + v*1_000_000_000, DelegatorCount: 30_000 + v%1013, DelegatorWeight: 90_000_000_000_000_000 + v}
		sum := primary
		changes = append(changes, store.StakingChange{Series: store.SubnetSeries(txs.PrimaryNetworkID), HourTotals: store.HourTotals{Hour: hour, Totals: primary}})
		if h >= benchHours-365*24 {
			for i, id := range l1s {
				t := store.Totals{ValidatorCount: 5 + (v+uint64(i))%7, ValidatorWeight: 1_000 + v%100}
				sum = sum.Add(t)
				changes = append(changes, store.StakingChange{Series: store.SubnetSeries(id), HourTotals: store.HourTotals{Hour: hour, Totals: t}})
			}
		}
		changes = append(changes, store.StakingChange{Series: store.AllSubnets, HourTotals: store.HourTotals{Hour: hour, Totals: sum}})
		if len(changes) >= 20_000 || h == benchHours-1 {
			p := store.StakingProgress{Next: uint64(h) + 1, Genesis: true, LastBlockTime: int64(hour) * store.SecondsPerHour}
			if err := s.AddStaking(chain, p, changes); err != nil {
				b.Fatal(err)
			}
			records += len(changes)
			changes = changes[:0]
		}
	}
	if err := s.Compact(); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote and compacted %d hourly staking records in %v", records, time.Since(begin).Round(time.Millisecond))
	return s, l1s
}

// processCPU returns the CPU time the process has used: per request, it
// does not grow with the load of other processes as latency does.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// reportLatency reports the p50 and p99 of durations in milliseconds.
func reportLatency(b *testing.B, durations []time.Duration) {
	slices.Sort(durations)
	p := func(q float64) float64 {
		return float64(durations[min(len(durations)-1, int(q*float64(len(durations))))].Microseconds()) / 1000
	}
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
}

// BenchmarkStakingSeries: a 90-day hourly staking series, 2160 points in
// one page, through the API handler (parameters, the P-Chain's time from
// a real P-Chain VM over gRPC, the store scan, JSON, the page token), over
// four years of history: the newest page of the sum and of an L1, and a
// page in the middle of the history (by page token, without the time),
// with the collector set as in the module's process.
func BenchmarkStakingSeries(b *testing.B) {
	if os.Getenv("GOGC") == "" { // as the module's process runs
		defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	}
	p := benchPChain(b)
	chain := series.Chain{
		Info:    host.ChainInfo{ID: p.ChainID(), VMName: pvmapi.VMName, Aliases: []string{"P"}, IndexKinds: []string{"block"}, Running: true},
		Staking: true, Seen: benchHours, StakingRead: benchHours, Counted: benchHours,
	}
	s, l1s := benchStore(b, chain.Info.ID)
	srv, err := New(Options{
		Store: s, Chains: func() []series.Chain { return []series.Chain{chain} },
		Host: host.Services{Calls: benchChainCaller{p}}, TokenTTL: time.Hour,
	})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	serve := func(path string) []byte {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d %s", path, rec.Code, rec.Body.Bytes())
		}
		return rec.Body.Bytes()
	}
	get := func(path string) MetricsResponse {
		var out MetricsResponse
		if err := json.Unmarshal(serve(path), &out); err != nil || len(out.Results) != benchPage || out.NextPageToken == "" {
			b.Fatalf("GET %s: %d points, %v", path, len(out.Results), err)
		}
		return out
	}
	base := fmt.Sprintf("/v2/networks/fuji/metrics/validatorWeight?pageSize=%d", benchPage)
	deep := base
	for range benchHours / benchPage / 2 {
		deep = base + "&pageToken=" + get(deep).NextPageToken
	}
	for _, c := range []struct{ name, path string }{
		{"sum/newest", base},
		{"L1/newest", base + "&subnetId=" + l1s[benchL1s/2].String()},
		{"sum/middle", deep},
	} {
		b.Run(c.name, func(b *testing.B) {
			get(c.path) // a full page, with a next one
			durations := make([]time.Duration, 0, b.N)
			cpu := processCPU(b)
			for range b.N {
				begin := time.Now()
				serve(c.path)
				durations = append(durations, time.Since(begin))
			}
			reportLatency(b, durations)
			b.ReportMetric(float64((processCPU(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
