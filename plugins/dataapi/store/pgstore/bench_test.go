package pgstore_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/offline"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/sdk/rest"
)

// BenchmarkWrite: the write path of kvstore's BenchmarkWrite on
// PostgreSQL: synthetic blocks (200 blocks of 100 transactions among 1,000
// accounts) derived and written 100 blocks per transaction into an empty
// database; tx/s is the indexing rate.
func BenchmarkWrite(b *testing.B) {
	benchWrite(b, func(s store.Store) store.Store { return s })
}

// BenchmarkWriteUndo: BenchmarkWrite with every write keeping its undo
// records (store.Batch.Undo).
func BenchmarkWriteUndo(b *testing.B) {
	benchWrite(b, func(s store.Store) store.Store { return storetest.UndoWrites{Store: s} })
}

// benchWrite indexes the synthetic blocks into the store that wrap makes
// of an empty database.
func benchWrite(b *testing.B, wrap func(store.Store) store.Store) {
	c := fakeevm.New(43112)
	c.Synthesize(fakeevm.SynthOptions{Blocks: 200, TxsPerBlock: 100, Accounts: 1000, Seed: 1})
	blocks := make([]evmapi.Block, c.Head()+1)
	txs := 0
	for n := range blocks {
		blocks[n] = c.Block(uint64(n))
		txs += len(blocks[n].Transactions)
	}
	var spent time.Duration
	for range b.N {
		s, err := pgstore.Open(context.Background(), pgstore.Options{URL: cluster.URL(cluster.NewDatabase(b))})
		if err != nil {
			b.Fatal(err)
		}
		begin := time.Now()
		if err := offline.Index(context.Background(), wrap(s), chain, 43112, blocks, 100); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(begin)
		s.Close()
	}
	b.ReportMetric(float64(txs*b.N)/spent.Seconds(), "tx/s")
}

// pageTxs is how many transactions the hot address of the page
// benchmarks took part in.
const pageTxs = 1_000_000

var (
	pageChain = ids.ID{0xbe}
	hot       = common.HexToAddress("0x4070000000000000000000000000000000000001")
	pageToken = store.Token{Address: common.HexToAddress("0x70ce000000000000000000000000000000000001"), Kind: store.KindERC20, Name: "Bench", Symbol: "BEN", Decimals: 18}
)

// pageStores holds the stores of the page benchmarks, made once per
// engine per test binary run (writing a million transactions takes a
// while); TestMain closes them.
var pageStores struct {
	sync.Mutex
	byEngine map[string]store.Store
	dir      string
	db       string // the PostgreSQL database
}

// pageStore returns a store of engine (pebble, or postgres) where hot took
// part in pageTxs transactions, ten per block, each with an ERC-20
// transfer; the last of each block failed.
func pageStore(b *testing.B, engine string) store.Store {
	b.Helper()
	pageStores.Lock()
	defer pageStores.Unlock()
	if s := pageStores.byEngine[engine]; s != nil {
		return s
	}
	if pageStores.byEngine == nil {
		dir, err := os.MkdirTemp("", "pgstore-bench-")
		if err != nil {
			b.Fatal(err)
		}
		pageStores.byEngine, pageStores.dir = map[string]store.Store{}, dir
	}
	var s store.Store
	var err error
	db := ""
	if engine == "postgres" {
		db = cluster.NewDatabase(b)
		s, err = pgstore.Open(context.Background(), pgstore.Options{URL: cluster.URL(db)})
	} else {
		s, err = kvstore.Open(filepath.Join(pageStores.dir, engine), kvstore.Options{Engine: engine})
	}
	if err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	const perBatch, perBlock = 10_000, 10
	for start := 0; start < pageTxs; start += perBatch {
		batch := &store.Batch{Chain: pageChain}
		for i := start; i < start+perBatch; i++ {
			n := uint64(i / perBlock)
			other := common.BigToAddress(big.NewInt(int64(i%5000) + 1))
			from, to := hot, other
			if i%2 == 1 {
				from, to = other, hot
			}
			if i%perBlock == 0 {
				batch.Blocks = append(batch.Blocks, store.Block{Number: n, Hash: common.BigToHash(big.NewInt(int64(n))), Timestamp: 1_700_000_000 + 2*n,
					BaseFee: big.NewInt(25_000_000_000), TxCount: perBlock, CumulativeTxs: uint64(i + perBlock), FeesSpent: new(big.Int)})
			}
			batch.Txs = append(batch.Txs, store.Tx{
				BlockNumber: n, BlockHash: common.BigToHash(big.NewInt(int64(n))), BlockTimestamp: 1_700_000_000 + 2*n,
				Index: uint64(i % perBlock), Hash: common.BigToHash(big.NewInt(int64(i) + 1<<40)), Type: 2, From: from, To: pageToken.Address,
				Value: new(big.Int), Nonce: uint64(i), GasLimit: 60_000, GasUsed: 51_000, GasPrice: big.NewInt(25_000_000_000),
				DynamicFee: true, MaxFeePerGas: big.NewInt(50_000_000_000), MaxPriorityFeePerGas: big.NewInt(1_000_000_000),
				BaseFee: big.NewInt(25_000_000_000), Success: i%10 != 9, Method: []byte{0xa9, 0x05, 0x9c, 0xbb},
				ERC20: []store.ERC20Transfer{{LogIndex: uint64(i % perBlock), From: from, To: to, Value: big.NewInt(int64(i) * 1e12), Token: pageToken}},
			})
		}
		batch.State = store.ChainState{EVMChainID: 43112, Next: uint64((start + perBatch) / perBlock), CumulativeTxs: uint64(start + perBatch)}
		if err := s.Write(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: wrote %d transactions of one address in %v", engine, pageTxs, time.Since(begin).Round(time.Millisecond))
	if db != "" {
		// As autovacuum would, before the pages are read.
		if err := cluster.Exec(context.Background(), db, "VACUUM ANALYZE"); err != nil {
			b.Fatal(err)
		}
		pageStores.db = db
	}
	pageStores.byEngine[engine] = s
	return s
}

// pageHandler returns the API over s, without rate limits.
func pageHandler(b *testing.B, s store.Reader) http.Handler {
	b.Helper()
	tokens, err := rest.NewPageTokens(make([]byte, 32), time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := api.New(api.Options{Store: s, Tokens: tokens, PublicURL: "http://127.0.0.1:9650", Chains: func() []indexer.Chain {
		return []indexer.Chain{{Info: host.ChainInfo{ID: pageChain, VMName: "evm", Aliases: []string{"C"}, Running: true}, EVMChainID: 43112, Indexed: true, Height: pageTxs / 10}}
	}})
	if err != nil {
		b.Fatal(err)
	}
	return srv.Handler()
}

// servePage answers GET path, failing unless 200; it returns the body.
func servePage(b *testing.B, h http.Handler, path string) []byte {
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
// transactions through the API handler (parameters, the store's page,
// JSON, page token), on the embedded store and on PostgreSQL (a local
// cluster) in the same run: the first page and a page in the middle of
// the history, in both orders. The api package's benchmark of the same
// name measures the embedded engines alone.
func BenchmarkTransactionsPage(b *testing.B) {
	for _, engine := range []string{kvstore.EnginePebble, "postgres"} {
		for _, order := range []string{"desc", "asc"} {
			for _, page := range []string{"first", "deep"} {
				b.Run(engine+"/"+order+"/"+page, func(b *testing.B) {
					h := pageHandler(b, pageStore(b, engine))
					path := "/v1/chains/43112/addresses/" + hot.Hex() + "/transactions?pageSize=100&sortOrder=" + order
					if page == "deep" {
						// The token of a cursor half way through the history
						// (block pageTxs/20, position 0), as the API seals it.
						tokens, _ := rest.NewPageTokens(make([]byte, 32), time.Hour)
						cursor := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, pageTxs/20), 0)
						deep, err := tokens.Seal(rest.Scope("transactions", pageChain.String(), strings.ToLower(hot.Hex()), "", "", order),
							map[string][]byte{"c": cursor})
						if err != nil {
							b.Fatal(err)
						}
						path += "&pageToken=" + deep
					}
					var resp api.ListTransactionDetailsResponse
					if err := json.Unmarshal(servePage(b, h, path), &resp); err != nil || len(resp.Transactions) != 100 || resp.NextPageToken == "" {
						b.Fatalf("page: %d items, %v", len(resp.Transactions), err)
					}
					durations := make([]time.Duration, 0, b.N)
					b.ResetTimer()
					for range b.N {
						begin := time.Now()
						servePage(b, h, path)
						durations = append(durations, time.Since(begin))
					}
					b.StopTimer()
					reportLatency(b, durations)
				})
			}
		}
	}
}

// readWorkers is how many clients the read scaling benchmark runs at
// once, and readDuration how long it reads from each set of instances.
const (
	readWorkers  = 8
	readDuration = 10 * time.Second
)

// BenchmarkReadScaling: the read throughput of one API-only instance
// against two on the same PostgreSQL database (the million transactions
// of BenchmarkTransactionsPage's hot address): chainhost processes with
// no chain and the data module in the API role, on the same machine as
// the database and the clients. readWorkers clients send, for
// readDuration, pages of 100 of the address (the first or a deep one,
// either order, at random), each request to the next instance in turn.
// It reports requests per second, the latency's p50 and p99, and the CPU
// time per request of the API instances (host and plugin processes) and
// of the database (its server processes): on two shared cores the
// machine, not the read side, is the limit, and the CPU times say how far
// instances on machines of their own go before the database is.
func BenchmarkReadScaling(b *testing.B) {
	ctx := context.Background()
	pg := pageStore(b, "postgres").(*pgstore.Store)
	err := pg.PublishChains(ctx, []host.ChainInfo{{ID: pageChain, VMName: "evm", Aliases: []string{"C"}, Handlers: []string{"rpc", "ws"}, Running: true}})
	if err != nil {
		b.Fatal(err)
	}
	config := fmt.Sprintf(`
log-display-level: WARN
chains: []
modules:
  - name: data
    plugin: dataapi
    config:
      role: api
      rate-limit: {anonymous: {per-second: 0}}
      store: {engine: postgres, url: %q, max-conns: 16}
      page-token-key: %q
      upstream-url: http://127.0.0.1:9
`, cluster.URL(pageStores.db), strings.Repeat("00", 32))
	nodes := []*nodetest.Node{nodetest.Start(b, nodetest.Options{Config: config}), nodetest.Start(b, nodetest.Options{Config: config})}
	// Pages: first and deep, both orders; the API's tokens, sealed with the
	// nodes' key.
	tokens, _ := rest.NewPageTokens(make([]byte, 32), time.Hour)
	var paths []string
	for _, order := range []string{"desc", "asc"} {
		path := "/v1/chains/43112/addresses/" + hot.Hex() + "/transactions?pageSize=100&sortOrder=" + order
		paths = append(paths, path)
		for _, at := range []uint64{pageTxs / 40, pageTxs / 20, pageTxs / 15} {
			cursor := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, at), 0)
			deep, err := tokens.Seal(rest.Scope("transactions", pageChain.String(), strings.ToLower(hot.Hex()), "", "", order), map[string][]byte{"c": cursor})
			if err != nil {
				b.Fatal(err)
			}
			paths = append(paths, path+"&pageToken="+deep)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: readWorkers}}
	for _, n := range nodes {
		for _, p := range paths {
			if err := getOK(client, n.URL+p); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, count := range []int{1, 2} {
		b.Run(fmt.Sprintf("instances=%d", count), func(b *testing.B) {
			var mu sync.Mutex
			var durations []time.Duration
			var wg sync.WaitGroup
			var next atomic.Uint64
			apiBefore, dbBefore := cpuTicks(apiPIDs(nodes[:count])), cpuTicks(append(nodetest.ChildPIDs(cluster.PID()), cluster.PID()))
			end := time.Now().Add(readDuration)
			for w := range readWorkers {
				wg.Go(func() {
					var mine []time.Duration
					for i := w; time.Now().Before(end); i++ {
						n := nodes[next.Add(1)%uint64(count)]
						begin := time.Now()
						if err := getOK(client, n.URL+paths[i%len(paths)]); err != nil {
							b.Error(err)
							return
						}
						mine = append(mine, time.Since(begin))
					}
					mu.Lock()
					durations = append(durations, mine...)
					mu.Unlock()
				})
			}
			wg.Wait()
			apiCPU, dbCPU := cpuTicks(apiPIDs(nodes[:count]))-apiBefore, cpuTicks(append(nodetest.ChildPIDs(cluster.PID()), cluster.PID()))-dbBefore
			b.ReportMetric(float64(len(durations))/readDuration.Seconds(), "req/s")
			reportLatency(b, durations)
			b.ReportMetric(1000*apiCPU/float64(len(durations)), "api-cpu-ms/req")
			b.ReportMetric(1000*dbCPU/float64(len(durations)), "db-cpu-ms/req")
		})
	}
}

// getOK GETs a URL, reads the answer and checks that it is a 200.
func getOK(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s = %d", url, resp.StatusCode)
	}
	return nil
}

// apiPIDs returns the processes of API instances: each host and its
// plugins.
func apiPIDs(nodes []*nodetest.Node) []int {
	var out []int
	for _, n := range nodes {
		out = append(append(out, n.PID()), n.ChildPIDs()...)
	}
	return out
}

// clockTicks is the unit of /proc/<pid>/stat's CPU times (USER_HZ).
const clockTicks = 100

// cpuTicks returns the CPU time, in seconds, that processes used so far
// (user and system, from /proc/<pid>/stat).
func cpuTicks(pids []int) float64 {
	var total float64
	for _, pid := range pids {
		if st, err := plugintest.ReadProcStat(pid); err == nil {
			total += float64(st.UserTicks+st.SystemTicks) / clockTicks
		}
	}
	return total
}
