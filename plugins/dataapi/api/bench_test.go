package api

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// benchTxs is how many transactions the hot address of the page
// benchmarks took part in.
const benchTxs = 1_000_000

var (
	benchChain = ids.ID{0xbe}
	hot        = common.HexToAddress("0x4070000000000000000000000000000000000001")
	benchToken = store.Token{Address: common.HexToAddress("0x70ce000000000000000000000000000000000001"), Kind: store.KindERC20, Name: "Bench", Symbol: "BEN", Decimals: 18}
)

// benchStores holds the stores of the page benchmarks, made once per
// engine per test binary run (writing a million transactions takes a
// while).
var benchStores struct {
	sync.Mutex
	byEngine map[string]*kvstore.Store
	dir      string
}

// benchStore returns a store of engine where hot took part in benchTxs
// transactions, ten per block, each with an ERC-20 transfer.
func benchStore(b *testing.B, engine string) *kvstore.Store {
	b.Helper()
	benchStores.Lock()
	defer benchStores.Unlock()
	if s := benchStores.byEngine[engine]; s != nil {
		return s
	}
	if benchStores.byEngine == nil {
		dir, err := os.MkdirTemp("", "dataapi-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchStores.byEngine, benchStores.dir = map[string]*kvstore.Store{}, dir
	}
	s, err := kvstore.Open(filepath.Join(benchStores.dir, engine), kvstore.Options{Engine: engine, CacheMB: 64})
	if err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	const perBatch, perBlock = 10_000, 10
	for start := 0; start < benchTxs; start += perBatch {
		batch := &store.Batch{Chain: benchChain}
		for i := start; i < start+perBatch; i++ {
			n := uint64(i / perBlock)
			other := common.BigToAddress(big.NewInt(int64(i%5000) + 1))
			from, to := hot, other
			if i%2 == 1 {
				from, to = other, hot
			}
			batch.Txs = append(batch.Txs, store.Tx{
				BlockNumber: n, BlockHash: common.BigToHash(big.NewInt(int64(n))), BlockTimestamp: 1_700_000_000 + 2*n,
				Index: uint64(i % perBlock), Hash: common.BigToHash(big.NewInt(int64(i) + 1<<40)), Type: 2, From: from, To: benchToken.Address,
				Value: new(big.Int), Nonce: uint64(i), GasLimit: 60_000, GasUsed: 51_000, GasPrice: big.NewInt(25_000_000_000),
				DynamicFee: true, MaxFeePerGas: big.NewInt(50_000_000_000), MaxPriorityFeePerGas: big.NewInt(1_000_000_000),
				BaseFee: big.NewInt(25_000_000_000), Success: true, Method: []byte{0xa9, 0x05, 0x9c, 0xbb},
				ERC20: []store.ERC20Transfer{{LogIndex: uint64(i % perBlock), From: from, To: to, Value: big.NewInt(int64(i) * 1e12), Token: benchToken}},
			})
		}
		batch.State = store.ChainState{EVMChainID: 43112, Next: uint64((start+perBatch)/perBlock) + 1, CumulativeTxs: uint64(start + perBatch)}
		if err := s.Write(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: wrote %d transactions of one address in %v", engine, benchTxs, time.Since(begin).Round(time.Millisecond))
	benchStores.byEngine[engine] = s
	return s
}

// benchServer returns the API over s, without rate limits.
func benchServer(b *testing.B, s store.Reader) http.Handler {
	b.Helper()
	tokens, err := rest.NewPageTokens(make([]byte, 32), time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Store: s, Tokens: tokens, PublicURL: "http://127.0.0.1:9650", Chains: func() []indexer.Chain {
		return []indexer.Chain{{Info: host.ChainInfo{ID: benchChain, VMName: "evm", Aliases: []string{"C"}, Running: true}, EVMChainID: 43112, Indexed: true, Height: benchTxs / 10}}
	}})
	if err != nil {
		b.Fatal(err)
	}
	return srv.Handler()
}

// serve answers GET path, failing unless 200; it returns the body.
func serve(b *testing.B, h http.Handler, path string) []byte {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s = %d %s", path, rec.Code, rec.Body.Bytes())
	}
	return rec.Body.Bytes()
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

// BenchmarkTransactionsPage: one page of 100 of an address with a million
// transactions, through the API handler (parameters, store scan, JSON,
// page token): the first page and a page in the middle of the history,
// in both orders.
func BenchmarkTransactionsPage(b *testing.B) {
	for _, engine := range []string{kvstore.EnginePebble, kvstore.EngineLevelDB} {
		for _, order := range []string{"desc", "asc"} {
			for _, page := range []string{"first", "deep"} {
				b.Run(engine+"/"+order+"/"+page, func(b *testing.B) {
					h := benchServer(b, benchStore(b, engine))
					path := "/v1/chains/43112/addresses/" + hot.Hex() + "/transactions?pageSize=100&sortOrder=" + order
					if page == "deep" {
						// The token of a cursor half way through the history.
						tokens, _ := rest.NewPageTokens(make([]byte, 32), time.Hour)
						deep, err := tokens.Seal(rest.Scope("transactions", benchChain.String(), lowerHex(hot), "", "", order), cursor{C: middleCursor()})
						if err != nil {
							b.Fatal(err)
						}
						path += "&pageToken=" + deep
					}
					var resp ListTransactionDetailsResponse
					if err := json.Unmarshal(serve(b, h, path), &resp); err != nil || len(resp.Transactions) != 100 || resp.NextPageToken == "" {
						b.Fatalf("page: %d items, %v", len(resp.Transactions), err)
					}
					timePage(b, h, path)
				})
			}
		}
	}
}

// middleCursor is a store cursor in the middle of the hot address's
// history: block benchTxs/20, position 0.
func middleCursor() []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, benchTxs/20), 0)
}

// TestMain removes the benchmarks' stores.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchStores.dir != "" {
		for _, s := range benchStores.byEngine {
			_ = s.Close()
		}
		_ = os.RemoveAll(benchStores.dir)
	}
	os.Exit(code)
}

// BenchmarkAddressChains: /v1/address/{address}/chains of the hot address
// and of an address without activity.
func BenchmarkAddressChains(b *testing.B) {
	s := benchStore(b, kvstore.EnginePebble)
	h := benchServer(b, s)
	for _, who := range []struct {
		name string
		addr common.Address
	}{{"active", hot}, {"unknown", common.HexToAddress("0x1234")}} {
		b.Run(who.name, func(b *testing.B) {
			path := "/v1/address/" + who.addr.Hex() + "/chains"
			durations := make([]time.Duration, 0, b.N)
			for range b.N {
				begin := time.Now()
				serve(b, h, path)
				durations = append(durations, time.Since(begin))
			}
			reportLatency(b, durations)
		})
	}
}

// timePage serves path b.N times and reports the latency percentiles.
func timePage(b *testing.B, h http.Handler, path string) {
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		begin := time.Now()
		serve(b, h, path)
		durations = append(durations, time.Since(begin))
	}
	b.StopTimer()
	reportLatency(b, durations)
}
