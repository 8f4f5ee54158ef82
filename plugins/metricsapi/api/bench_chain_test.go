package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The history of the chain metrics benchmark: a year of hours from
// benchT0, two blocks an hour, each of benchTxs transactions among
// benchAddrs addresses.
const (
	benchChainHours = 365 * 24
	benchTxs        = 8
	benchAddrs      = 200
)

// evmChainIDCaller answers eth_chainId: the API asks an EVM chain for its
// EVM chain ID once.
type evmChainIDCaller struct{}

func (evmChainIDCaller) Call(context.Context, string, string, []byte) (int, []byte, error) {
	return http.StatusOK, []byte(`{"jsonrpc":"2.0","id":1,"result":"0xa868"}`), nil
}

// benchChainStore counts the history into a store in a temporary
// directory, as the follower does: 256 blocks a write.
func benchChainStore(b *testing.B, chain ids.ID) *store.Store {
	b.Helper()
	s, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	begin := time.Now()
	var p store.Progress
	var batch []store.Block
	for n := range 2 * benchChainHours {
		e := &store.EVMBlock{GasUsed: benchTxs * 21000}
		for i := range benchTxs {
			to := common.Address{byte((n*7 + i*13) % benchAddrs), 1}
			e.Txs = append(e.Txs, store.EVMTx{From: common.Address{byte((n + i) % benchAddrs)}, To: &to, GasUsed: 21000, GasPrice: big.NewInt(int64(25_000_000_000 + n))})
		}
		if n%100 == 0 {
			e.Deployers = []common.Address{{byte(n % benchAddrs)}}
		}
		batch = append(batch, store.Block{Time: benchT0 + int64(n)*1800 + 7, Txs: benchTxs, EVM: e})
		if len(batch) == 256 || n == 2*benchChainHours-1 {
			if p, err = s.Add(chain, p, batch, time.Now()); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	counting := time.Since(begin)
	if err := s.Compact(); err != nil {
		b.Fatal(err)
	}
	b.Logf("counted %d blocks of %d transactions in %v (%.0f tx/s), compacted", 2*benchChainHours, benchTxs, counting.Round(time.Millisecond),
		float64(2*benchChainHours*benchTxs)/counting.Seconds())
	return s
}

// BenchmarkChainMetric: a chain metric at hourly granularity over 90
// days, 2160 points in one page, through the API handler (parameters, the
// store scan, JSON, the page token), over a year of history: the newest
// page of txCount and of feesPaid (wei, big integers), a page of
// cumulativeAddresses in the middle (by page token), and the rolling
// windows of txCount (day buckets) and activeAddresses (a week of hours'
// members), with the collector set as in the module's process.
func BenchmarkChainMetric(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	}
	chain := series.Chain{Info: host.ChainInfo{ID: ids.ID{0xc}, VMName: evmapi.VMName, Aliases: []string{"C"},
		InternalHandlers: []string{evmapi.IndexerHandler}, IndexKinds: []string{"block"}, Running: true}}
	s := benchChainStore(b, chain.Info.ID)
	srv, err := New(Options{
		Store: s, Chains: func() []series.Chain { return []series.Chain{chain} },
		Host: host.Services{Calls: evmChainIDCaller{}}, TokenTTL: time.Hour,
		Clock: func() time.Time { return time.Unix(benchT0+benchChainHours*store.SecondsPerHour, 0) },
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
	page := func(path string) string {
		var out struct {
			Results       []json.RawMessage
			NextPageToken string
		}
		if err := json.Unmarshal(serve(path), &out); err != nil || len(out.Results) != benchPage || out.NextPageToken == "" {
			b.Fatalf("GET %s: %d points, %v", path, len(out.Results), err)
		}
		return out.NextPageToken
	}
	hourly := func(metric string) string {
		return fmt.Sprintf("/v2/chains/43112/metrics/%s?timeInterval=hour&pageSize=%d", metric, benchPage)
	}
	deep := hourly("cumulativeAddresses")
	deep += "&pageToken=" + page(deep)
	for _, c := range []struct {
		name, path string
		full       bool
	}{
		{"txCount/newest", hourly("txCount"), true},
		{"feesPaid/newest", hourly("feesPaid"), true},
		{"cumulativeAddresses/middle", deep, true},
		{"rolling/txCount", "/v2/chains/43112/rollingWindowMetrics/txCount", false},
		{"rolling/activeAddresses", "/v2/chains/43112/rollingWindowMetrics/activeAddresses", false},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.full {
				page(c.path) // a full page, with a next one
			}
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
