package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/testchain"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
)

// The data API benchmarks of issue 10 (docs/benchmarks.md, "Chain data
// API"): catch-up indexing of a pre-built chain through the real node and
// module, against the EVM's own import of the same chain in the same run;
// and the live lag from a block's acceptance until the data API serves
// it. The list-page benchmarks are plugins/dataapi/api's.

// dataCatchUpChain is the catch-up benchmark's chain: 100,000 ERC-20
// transfers and Factory.mixed calls (value moved on by internal calls,
// among reverted ones) from five senders to 500 recipients, in blocks
// filled to half their gas limit.
var dataCatchUpChain = testchain.Options{Txs: 100_000, Mix: testchain.TransfersAndCalls, Recipients: 500}

// dataModuleConfig is the data module without rate limits; prefixes lets
// the node route it before its plugin is installed.
var dataModuleConfig = fmt.Sprintf(`
modules:
  - name: data
    plugin: dataapi
    prefixes: [%s]
    config:
      rate-limit: {anonymous: {per-second: 0}}
`, strings.Join(api.Prefixes, ", "))

// compactJSON writes a JSON document on one line, as YAML takes it inline.
func compactJSON(b *testing.B, doc string) string {
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(doc)); err != nil {
		b.Fatal(err)
	}
	return out.String()
}

// BenchmarkDataAPICatchUp (run it with -benchtime Nx: each iteration is
// one catch-up, ns/op is that of the indexing) generates a chain of
// 100,000 transactions once, then in each iteration starts a node whose
// plugin dir is empty and installs the plugins one at a time, so that each
// phase is timed alone: the EVM first (admin.loadVMs returns once the
// chain has imported the file, import-chain-file, and reported its blocks
// to the index: the baseline), then the data module (from admin.loadVMs
// until the data API serves the last block: the catch-up, process start
// included). Each iteration is logged (with -v); the metrics are the
// medians: tx/s of the catch-up, of the import, and the catch-up's time
// over the import's.
func BenchmarkDataAPICatchUp(b *testing.B) {
	chain, err := testchain.Generate(b.TempDir(), dataCatchUpChain)
	if err != nil {
		b.Fatal(err)
	}
	_, built := nodetest.Binaries(b)
	config := fmt.Sprintf(`
log-display-level: WARN
chains:
  - alias: C
    vm: evm
    genesis: %s
    config: {block-production: none, import-chain-file: %q}
%s`, compactJSON(b, testchain.GenesisJSON), chain.File, dataModuleConfig)
	txs := float64(len(chain.Txs))
	var indexRate, importRate, ratio []float64
	for i := 0; b.Loop(); i++ {
		b.StopTimer() // b.Loop times the catch-up alone
		dataDir, pluginDir := b.TempDir(), b.TempDir()
		n := nodetest.Start(b, nodetest.Options{Config: config, DataDir: dataDir, PluginDir: pluginDir, Args: []string{"--api-admin-enabled=true"}})
		load := loadAverage()
		installLink(b, built, pluginDir, "evm")
		began := time.Now()
		loadPlugins(b, n)
		imported := time.Since(began)
		var head hexutil.Uint64
		if err := n.Call(context.Background(), "/ext/bc/C/rpc", "eth_blockNumber", []any{}, &head); err != nil || uint64(head) != chain.Head {
			b.Fatalf("after the import: head %d (%v), the chain file's %d", head, err, chain.Head)
		}

		installLink(b, built, pluginDir, "dataapi")
		b.StartTimer()
		began = time.Now()
		loadPlugins(b, n)
		blk := waitDataBlock(b, n.URL, chain.Head, 10*time.Minute)
		indexed := time.Since(began)
		b.StopTimer()
		if blk.CumulativeTransactions != fmt.Sprint(len(chain.Txs)) {
			b.Fatalf("the head block counts %s transactions, the chain %d", blk.CumulativeTransactions, len(chain.Txs))
		}
		n.Stop(b)
		if err := os.RemoveAll(dataDir); err != nil {
			b.Fatal(err)
		}
		indexRate, importRate = append(indexRate, txs/indexed.Seconds()), append(importRate, txs/imported.Seconds())
		ratio = append(ratio, indexed.Seconds()/imported.Seconds())
		b.Logf("run %d (load average %s): import %.1fs (%.0f tx/s), catch-up %.1fs (%.0f tx/s), %.2f of the import",
			i+1, load, imported.Seconds(), importRate[i], indexed.Seconds(), indexRate[i], ratio[i])
		b.StartTimer()
	}
	b.ReportMetric(median(indexRate), "tx/s")
	b.ReportMetric(median(importRate), "import-tx/s")
	b.ReportMetric(median(ratio), "catchup/import")
}

// BenchmarkDataAPIExternalCatchUp (run it with -benchtime Nx: each
// iteration is one catch-up each way, ns/op is that of the external one)
// indexes the chain of BenchmarkDataAPICatchUp both ways in each
// iteration, in alternating order: through the EVM's internal path (the
// data module installed on the node that imported the chain, its store
// emptied first) and as an external chain of a second node (no chains of
// its own, the data module installed likewise) that reads the first over
// HTTP with the standard methods (docs/data-api.md, "Indexing a chain of
// another node"). Each is timed from admin.loadVMs until the data API
// serves the last block. The metrics are the medians: tx/s of the
// external catch-up and of the internal one, and the external's time over
// the internal's.
func BenchmarkDataAPIExternalCatchUp(b *testing.B) {
	chain, err := testchain.Generate(b.TempDir(), dataCatchUpChain)
	if err != nil {
		b.Fatal(err)
	}
	_, built := nodetest.Binaries(b)
	upDir, upPlugins := b.TempDir(), b.TempDir()
	upConfig := fmt.Sprintf(`
log-display-level: WARN
chains:
  - alias: C
    vm: evm
    genesis: %s
    config: {block-production: none, import-chain-file: %q}
%s`, compactJSON(b, testchain.GenesisJSON), chain.File, dataModuleConfig)
	// admin.loadVMs answers once the import is done: minutes on a busy
	// machine, past the default write timeout.
	upOpts := nodetest.Options{Config: upConfig, DataDir: upDir, PluginDir: upPlugins,
		Args: []string{"--api-admin-enabled=true", "--http-write-timeout=30m"}}
	// The EVM is installed once the node runs: admin.loadVMs returns
	// after the import, however long it takes.
	up := nodetest.Start(b, upOpts)
	installLink(b, built, upPlugins, "evm")
	loadPlugins(b, up)
	var head hexutil.Uint64
	if err := up.Call(context.Background(), "/ext/bc/C/rpc", "eth_blockNumber", []any{}, &head); err != nil || uint64(head) != chain.Head {
		b.Fatalf("after the import: head %d (%v), the chain file's %d", head, err, chain.Head)
	}
	txs := float64(len(chain.Txs))

	// internal indexes the chain on the upstream node itself, from an
	// empty store; the node is left without the module.
	internal := func() time.Duration {
		up.Stop(b)
		up = nodetest.Start(b, upOpts)
		installLink(b, built, upPlugins, "dataapi")
		began := time.Now()
		loadPlugins(b, up)
		waitDataBlock(b, up.URL, chain.Head, 10*time.Minute)
		took := time.Since(began)
		up.Stop(b)
		for _, p := range []string{filepath.Join(upPlugins, "dataapi"), filepath.Join(upDir, "modules", "data")} {
			if err := os.RemoveAll(p); err != nil {
				b.Fatal(err)
			}
		}
		up = nodetest.Start(b, upOpts)
		return took
	}
	// external indexes the upstream's C-Chain from a second node.
	external := func() time.Duration {
		dataDir, pluginDir := b.TempDir(), b.TempDir()
		config := fmt.Sprintf(`
log-display-level: WARN
chains: []
%s      external-chains:
        - {name: upstream, chain-id: %d, rpc-url: %q}
`, dataModuleConfig, testchain.ChainID, up.URL+"/ext/bc/C/rpc")
		n := nodetest.Start(b, nodetest.Options{Config: config, DataDir: dataDir, PluginDir: pluginDir, Args: []string{"--api-admin-enabled=true"}})
		installLink(b, built, pluginDir, "dataapi")
		began := time.Now()
		loadPlugins(b, n)
		blk := waitDataBlock(b, n.URL, chain.Head, 30*time.Minute)
		took := time.Since(began)
		if blk.CumulativeTransactions != fmt.Sprint(len(chain.Txs)) {
			b.Fatalf("the head block counts %s transactions, the chain %d", blk.CumulativeTransactions, len(chain.Txs))
		}
		n.Stop(b)
		if err := os.RemoveAll(dataDir); err != nil {
			b.Fatal(err)
		}
		return took
	}
	var extRate, intRate, traceRate, ratio []float64
	for i := 0; b.Loop(); i++ {
		b.StopTimer() // b.Loop times the external catch-up alone
		load := loadAverage()
		var ext, in time.Duration
		if i%2 == 0 {
			in = internal()
			b.StartTimer()
			ext = external()
			b.StopTimer()
		} else {
			b.StartTimer()
			ext = external()
			b.StopTimer()
			in = internal()
		}
		traced := traceAll(b, up.URL+"/ext/bc/C/rpc", chain.Head)
		extRate, intRate = append(extRate, txs/ext.Seconds()), append(intRate, txs/in.Seconds())
		traceRate, ratio = append(traceRate, txs/traced.Seconds()), append(ratio, ext.Seconds()/in.Seconds())
		b.Logf("run %d (load average %s): internal %.1fs (%.0f tx/s), external %.1fs (%.0f tx/s), external/internal %.2f; "+
			"the upstream's call tracer alone %.1fs (%.0f tx/s)",
			i+1, load, in.Seconds(), intRate[i], ext.Seconds(), extRate[i], ratio[i], traced.Seconds(), traceRate[i])
		b.StartTimer()
	}
	b.ReportMetric(median(extRate), "tx/s")
	b.ReportMetric(median(intRate), "internal-tx/s")
	b.ReportMetric(median(ratio), "external/internal")
	b.ReportMetric(median(traceRate), "upstream-trace-tx/s")
}

// traceAll asks the node at rpcURL for the call tracer's frames of blocks
// 1 to head, as the external catch-up does (evmremote's defaults: 4
// requests at once, 2 blocks a request) and nothing else: the part of the
// catch-up that is the upstream re-executing the chain.
func traceAll(b *testing.B, rpcURL string, head uint64) time.Duration {
	c, err := rpc.Dial(rpcURL)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	began := time.Now()
	next := make(chan uint64)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for from := range next {
				var batch []rpc.BatchElem
				for n := from; n < from+2 && n <= head; n++ {
					var res json.RawMessage
					batch = append(batch, rpc.BatchElem{Method: "debug_traceBlockByNumber", Args: []any{hexutil.Uint64(n), map[string]string{"tracer": "callTracer"}}, Result: &res})
				}
				if err := c.BatchCall(batch); err != nil {
					b.Error(err)
				}
				for _, e := range batch {
					if e.Error != nil {
						b.Error(e.Error)
					}
				}
			}
		})
	}
	for n := uint64(1); n <= head; n += 2 {
		next <- n
	}
	close(next)
	wg.Wait()
	return time.Since(began)
}

// dataLagRate and dataLagBatch: the live benchmark sends dataLagBatch
// transfers dataLagRate/dataLagBatch times a second.
const (
	dataLagRate  = 200
	dataLagBatch = 10
)

// dataLagWindow is how long each iteration of the live benchmark sends.
const dataLagWindow = 20 * time.Second

// BenchmarkDataAPILiveLag (run it with -benchtime Nx: each iteration is a
// window of dataLagWindow) sends a steady stream of ERC-20 transfers
// (dataLagRate a second, in batches of dataLagBatch) to a node producing
// blocks as soon as transactions are pending, and measures for every
// block the time from its newHeads notification (the WebSocket
// subscription of the C-Chain) until the data API serves it
// (/v1/chains/43112/blocks/{n} answers 200, polled every 5 ms: a block's
// transactions are written with it, in one atomic write). The metrics are
// the p50, p99 and largest lag in milliseconds, over every block of every
// iteration.
func BenchmarkDataAPILiveLag(b *testing.B) {
	n := nodetest.Start(b, nodetest.Options{Config: fmt.Sprintf(`
log-display-level: WARN
chains:
  - alias: C
    vm: evm
    genesis: %s
    config: {block-production: auto, cache-mb: 128}
%s`, compactJSON(b, evmBenchGenesis), dataModuleConfig)})
	ctx := context.Background()
	rc, err := rpc.Dial(n.URL + "/ext/bc/C/rpc")
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	c := ethclient.NewClient(rc)
	ws, err := ethclient.Dial(strings.Replace(n.URL, "http://", "ws://", 1) + "/ext/bc/C/ws")
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	key := benchKey(b)
	tok := loadERC20(b)
	token := deployERC20(b, c, tok, key)
	chainID := big.NewInt(evmBenchChainID)
	nonce := uint64(1)

	var (
		mu   sync.Mutex
		lags []float64
		txs  int
	)
	for i := 0; b.Loop(); i++ {
		b.StopTimer() // b.Loop times the sending alone
		load := loadAverage()
		heads := make(chan *types.Header, 1024)
		sub, err := ws.SubscribeNewHead(ctx, heads)
		if err != nil {
			b.Fatal(err)
		}
		// Every block announced during the window is followed until the
		// data API serves it.
		var followers sync.WaitGroup
		done := make(chan struct{})
		var collected sync.WaitGroup
		collected.Go(func() {
			for {
				select {
				case h := <-heads:
					seen := time.Now()
					followers.Go(func() {
						waitDataBlock(b, n.URL, h.Number.Uint64(), time.Minute)
						mu.Lock()
						lags = append(lags, float64(time.Since(seen).Microseconds())/1000)
						mu.Unlock()
					})
				case err := <-sub.Err():
					b.Errorf("newHeads subscription: %v", err)
					return
				case <-done:
					return
				}
			}
		})
		b.StartTimer()
		var last *types.Transaction
		tick := time.NewTicker(time.Second * dataLagBatch / dataLagRate)
		for end := time.Now().Add(dataLagWindow); time.Now().Before(end); <-tick.C {
			batch := make([]*types.Transaction, dataLagBatch)
			for j := range batch {
				to := common.BigToAddress(big.NewInt(int64(0x1000 + nonce%500)))
				batch[j] = signTx(key, chainID, nonce, &token, tok.transferData(b, to), 60_000)
				nonce++
			}
			sendAll(b, c, batch)
			txs += len(batch)
			last = batch[len(batch)-1]
		}
		tick.Stop()
		b.StopTimer()
		// The last blocks are announced shortly after the last submission.
		waitMined(b, c, last.Hash())
		time.Sleep(200 * time.Millisecond)
		close(done)
		collected.Wait()
		followers.Wait()
		sub.Unsubscribe()
		mu.Lock()
		sorted := slices.Sorted(slices.Values(lags))
		mu.Unlock()
		b.Logf("window %d (load average %s): %d blocks so far; lag p50 %.1f ms, p99 %.1f ms, max %.1f ms",
			i+1, load, len(sorted), quantile(sorted, 0.5), quantile(sorted, 0.99), sorted[len(sorted)-1])
		b.StartTimer()
	}
	sorted := slices.Sorted(slices.Values(lags))
	b.ReportMetric(quantile(sorted, 0.5), "p50-ms")
	b.ReportMetric(quantile(sorted, 0.99), "p99-ms")
	b.ReportMetric(sorted[len(sorted)-1], "max-ms")
	b.ReportMetric(float64(len(sorted)), "blocks")
	b.ReportMetric(float64(txs)/(float64(b.N)*dataLagWindow.Seconds()), "sent-tx/s")
}

// waitDataBlock polls the data API every 5 ms until it serves block n of
// the C-Chain, and returns it.
func waitDataBlock(b *testing.B, url string, n uint64, limit time.Duration) api.Block {
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(fmt.Sprintf("%s/v1/chains/%d/blocks/%d", url, evmBenchChainID, n))
		if err == nil {
			body, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && rerr == nil {
				var blk api.Block
				if err := json.Unmarshal(body, &blk); err != nil {
					b.Errorf("block %d: %v", n, err)
				}
				return blk
			}
		}
		if time.Now().After(deadline) {
			b.Errorf("block %d not served by the data API within %s", n, limit)
			return api.Block{}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// installLink installs a built plugin into a plugin dir as a symbolic
// link.
func installLink(b *testing.B, built, pluginDir, name string) {
	if err := os.Symlink(filepath.Join(built, name), filepath.Join(pluginDir, name)); err != nil {
		b.Fatal(err)
	}
}

// loadPlugins calls admin.loadVMs, which returns once the chains and
// modules waiting for the new plugins are started.
func loadPlugins(b *testing.B, n *nodetest.Node) {
	var res struct {
		FailedVMs map[string]string `json:"failedVMs"`
	}
	if err := n.Call(context.Background(), "/ext/admin", "admin.loadVMs", struct{}{}, &res); err != nil || len(res.FailedVMs) > 0 {
		b.Fatalf("admin.loadVMs: %v %v", err, res.FailedVMs)
	}
}

// loadAverage is the one-minute load average, for the logs.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

// median is the median of xs.
func median(xs []float64) float64 { return quantile(slices.Sorted(slices.Values(xs)), 0.5) }

// quantile is the q-quantile of sorted values (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
