package evm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// benchTxs is about how many transactions the benchmark chain holds.
const benchTxs = 4000

// benchChain generates the benchmarks' chain in dir: block 1 deploys the
// ERC-20 of Tokens.sol and the Factory of Calls.sol and has the Factory
// make its children (CREATE, CREATE2); every later block alternates
// ERC-20 transfers (one frame each) and Factory.mixed calls (nine frames:
// value-carrying calls, a caught revert and out-of-gas, STATICCALL,
// DELEGATECALL, a precompile, a failed CREATE) while gas remains, until
// about txs transactions. It returns the chain file, the blocks and how
// many transactions they hold.
func benchChain(b *testing.B, dir string, txs int) (string, []*types.Block, int) {
	b.Helper()
	cs := testContracts(b)
	key := localKey(b)
	chainID := big.NewInt(43112)
	signer := types.LatestSignerForChainID(chainID)
	token, factory := created(0), created(1)
	bob := common.HexToAddress("0xb0b0000000000000000000000000000000000002")
	total := 0
	tx := func(g *core.BlockGen, to *common.Address, value int64, data []byte, gas uint64) {
		g.AddTx(types.MustSignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID: chainID, Nonce: g.TxNonce(localAddr), To: to, Value: big.NewInt(value), Data: data, Gas: gas,
			GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9),
		}))
		total++
	}
	blocks := 2 + txs/300
	path, chain := generateChain(b, dir, blocks, func(i int, g *core.BlockGen) {
		if i == 0 {
			tx(g, nil, 0, cs["Token20"].create(b, new(big.Int).Mul(big.NewInt(1e9), big.NewInt(1e18))), 2_000_000)
			tx(g, nil, 0, cs["Factory"].bin, 3_000_000)
			tx(g, &factory, 1000, cs["Factory"].call(b, "make", [32]byte{1}), 1_000_000)
			return
		}
		for n := 0; total < txs && g.Gas() >= 1_000_000; n++ {
			if n%2 == 0 {
				to := common.BigToAddress(big.NewInt(int64(0x1000 + total%500)))
				tx(g, &token, 0, cs["Token20"].call(b, "transfer", to, big.NewInt(1)), 100_000)
			} else {
				tx(g, &factory, 400, cs["Factory"].call(b, "mixed", bob), 1_000_000)
			}
		}
	})
	return path, chain, total
}

// postJSON posts a JSON-RPC body and reads the whole answer.
func postJSON(b *testing.B, url string, body []byte) []byte {
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	return out
}

// BenchmarkGetBlocks reads a chain of about 4,000 ERC-20 transfers and
// contract calls through indexer_getBlocks (pages of up to MaxBlocks
// blocks, each answer read whole over HTTP through the plugin's gRPC
// bridge, as plugintest serves it; the client's JSON decoding is not
// timed), against two baselines measured in the same run on the same
// blocks: the EVM's own import of them (import-tx/s: the chain file
// inserted into a new chain, the frame recorder attached, as
// import-chain-file does), and the per-block standard methods that give
// the same data (std-tx/s: one batch per block of eth_getBlockByNumber,
// eth_getBlockReceipts and debug_traceBlockByNumber with the call tracer).
// ns/op is one read of the whole chain. method-µs/tx and method-allocs/tx
// are the method's own cost, called in-process. docs/benchmarks.md has the command
// and the results.
func BenchmarkGetBlocks(b *testing.B) {
	dir := b.TempDir()
	path, blocks, txs := benchChain(b, dir, benchTxs)
	head := uint64(len(blocks))

	vm := evm.New()
	cfg, _ := json.Marshal(map[string]any{"cache-mb": 64, "log-level": "warn", "block-production": "none"})
	h := plugintest.Start(b, vm, plugintest.Options{Name: "C", Genesis: []byte(testGenesis(43112)), Config: cfg,
		DataDir: filepath.Join(dir, "chain")})
	start := time.Now()
	if n, err := vm.ImportChainFile(path); err != nil || n != len(blocks) {
		b.Fatalf("import: %d blocks, %v", n, err)
	}
	importTime := time.Since(start)
	plugintest.Eventually(b, time.Minute, func() error {
		if n, err := h.AcceptedCount(b.Context(), evm.Kind); err != nil || n != head {
			return fmt.Errorf("the imported blocks were not reported: %d of %d (%v)", n, head, err)
		}
		return nil
	})
	url := h.URL(evmapi.IndexerHandler)

	start = time.Now()
	for n := uint64(1); n <= head; n++ {
		body := fmt.Sprintf(`[{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["%#x",true]},`+
			`{"jsonrpc":"2.0","id":2,"method":"eth_getBlockReceipts","params":["%#x"]},`+
			`{"jsonrpc":"2.0","id":3,"method":"debug_traceBlockByNumber","params":["%#x",{"tracer":"callTracer"}]}]`, n, n, n)
		if out := postJSON(b, url, []byte(body)); bytes.Contains(out, []byte(`"error":{`)) {
			b.Fatalf("standard methods of block %d: %.300s", n, out)
		}
	}
	stdTime := time.Since(start)

	var answered, size int
	for b.Loop() {
		answered, size = 0, 0
		for from := uint64(1); ; {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":["%#x","%#x"]}`, evmapi.GetBlocksMethod, from, evmapi.MaxBlocks)
			out := postJSON(b, url, []byte(body))
			size += len(out)
			b.StopTimer()
			var resp struct {
				Result []struct {
					Number       hexutil.Uint64    `json:"number"`
					Transactions []json.RawMessage `json:"transactions"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out, &resp); err != nil {
				b.Fatal(err)
			}
			for _, blk := range resp.Result {
				answered += len(blk.Transactions)
			}
			b.StartTimer()
			if len(resp.Result) == 0 {
				break
			}
			from = uint64(resp.Result[len(resp.Result)-1].Number) + 1
		}
	}
	if answered != txs {
		b.Fatalf("read %d transactions, the chain holds %d", answered, txs)
	}
	b.StopTimer()
	// The method alone, in-process: no JSON-RPC, no HTTP, no gRPC.
	var serverTime time.Duration
	allocs := testing.AllocsPerRun(5, func() {
		start := time.Now()
		for from := uint64(1); from <= head; {
			out, err := vm.GetBlocks(b.Context(), from, evmapi.MaxBlocks)
			if err != nil {
				b.Fatal(err)
			}
			from += uint64(bytes.Count(out, []byte(`{"number":`)))
		}
		serverTime += time.Since(start)
	})
	read := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(txs)/read, "tx/s")
	b.ReportMetric(float64(txs)/importTime.Seconds(), "import-tx/s")
	b.ReportMetric(float64(txs)/stdTime.Seconds(), "std-tx/s")
	b.ReportMetric(read/importTime.Seconds(), "read/import")
	b.ReportMetric(float64(size)/float64(txs), "B/tx")
	b.ReportMetric(allocs/float64(txs), "method-allocs/tx")
	b.ReportMetric(serverTime.Seconds()/6*1e6/float64(txs), "method-µs/tx")
}

// BenchmarkFrameRecording inserts the benchmark chain's blocks into a new
// go-ethereum chain (an archival one on goleveldb, as the VM's): without a
// live tracer (none), with a live tracer that has no hook at all
// (empty-hooks: what go-ethereum costs for any live tracer), with the frame
// recorder writing to a goleveldb of its own (own-db, the VM's choice), and
// with it writing into the chain's own database (chain-db). ns/op is one
// insertion of the whole chain; import-tx/s is transactions per second of
// insertion, frame-B/tx the frame store's size on disk per transaction.
func BenchmarkFrameRecording(b *testing.B) {
	dir := b.TempDir()
	_, blocks, txs := benchChain(b, dir, benchTxs)
	genesis, err := evm.ParseGenesis([]byte(testGenesis(43112)))
	if err != nil {
		b.Fatal(err)
	}
	for _, variant := range []string{"none", "empty-hooks", "own-db", "chain-db"} {
		b.Run(variant, func(b *testing.B) {
			var frameBytes int64
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				run := filepath.Join(dir, fmt.Sprintf("%s-%d", variant, i))
				kv, err := evm.OpenFrameDB(filepath.Join(run, "chaindata"))
				if err != nil {
					b.Fatal(err)
				}
				db, err := rawdb.Open(kv, rawdb.OpenOptions{Ancient: filepath.Join(run, "ancient")})
				if err != nil {
					b.Fatal(err)
				}
				cfg := core.DefaultConfig().WithArchive(true).WithStateScheme(rawdb.HashScheme)
				cfg.SnapshotLimit = 0
				var frames ethdb.KeyValueStore
				switch variant {
				case "own-db":
					if frames, err = evm.OpenFrameDB(filepath.Join(run, "frames")); err != nil {
						b.Fatal(err)
					}
					cfg.VmConfig.Tracer = evm.FrameRecorderHooks(frames)
				case "chain-db":
					cfg.VmConfig.Tracer = evm.FrameRecorderHooks(kv)
				case "empty-hooks":
					cfg.VmConfig.Tracer = &tracing.Hooks{}
				}
				chain, err := core.NewBlockChain(db, genesis, beacon.New(ethash.NewFaker()), cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if n, err := chain.InsertChain(blocks); err != nil {
					b.Fatalf("insert block %d: %v", n, err)
				}
				b.StopTimer()
				chain.Stop()
				if frames != nil {
					_ = frames.Close()
					frameBytes = dirSize(b, filepath.Join(run, "frames"))
				}
				_ = db.Close()
				_ = os.RemoveAll(run)
				b.StartTimer()
			}
			b.ReportMetric(float64(txs)/(b.Elapsed().Seconds()/float64(b.N)), "import-tx/s")
			if frameBytes > 0 {
				b.ReportMetric(float64(frameBytes)/float64(txs), "frame-B/tx")
			}
		})
	}
}

// dirSize is the size of the files in dir.
func dirSize(b *testing.B, dir string) int64 {
	var size int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !e.IsDir() {
			size += info.Size()
		}
	}
	return size
}
