package bench

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/bench/internal/post"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/host/hosttest"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The EVM benchmarks of issue 5: JSON-RPC throughput of the C-Chain through
// the host against the same go-ethereum RPC server served directly, and a
// burst of ERC-20 transfers from submission to acceptance against
// go-ethereum's own simulated backend.

// evmBenchKey is the local network's funded key (a public test value).
const evmBenchKey = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// evmBenchChainID is the C-Chain's EVM chain ID.
const evmBenchChainID = 43112

// evmBenchGasLimit is the block gas limit of both chains (30M).
const evmBenchGasLimit = 30_000_000

// evmBenchGenesis funds the local key on a Cancun chain.
var evmBenchGenesis = fmt.Sprintf(`{"config": {"chainId": %d, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0,
 "eip158Block": 0, "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
 "muirGlacierBlock": 0, "berlinBlock": 0, "londonBlock": 0, "shanghaiTime": 0, "cancunTime": 0,
 "terminalTotalDifficulty": 0}, "gasLimit": "%#x", "difficulty": "0x0",
 "alloc": {"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC": {"balance": "0x295be96e64066972000000"}}}`, evmBenchChainID, evmBenchGasLimit)

// evmBenchConfig runs only the C-Chain, and no module: the data API would
// index the blocks the benchmarks make while they measure, which the
// standalone server they are compared with does not do.
var evmBenchConfig = fmt.Sprintf(`
log-display-level: WARN
modules: []
chains:
  - alias: C
    vm: evm
    genesis: %s
    config:
      cache-mb: 128
`, evmBenchGenesis)

// erc20 is the ERC-20 of tests/e2e/testdata/evm (Tokens.sol).
type erc20 struct {
	abi abi.ABI
	bin []byte
}

func loadERC20(b *testing.B) erc20 {
	b.Helper()
	raw, err := os.ReadFile("../tests/e2e/testdata/evm/tokens.json")
	if err != nil {
		b.Fatal(err)
	}
	var all map[string]struct {
		ABI json.RawMessage `json:"abi"`
		Bin string          `json:"bin"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		b.Fatal(err)
	}
	a, err := abi.JSON(bytes.NewReader(all["Token20"].ABI))
	if err != nil {
		b.Fatal(err)
	}
	return erc20{abi: a, bin: hexutil.MustDecode(all["Token20"].Bin)}
}

func (t erc20) deployData(b *testing.B) []byte {
	ctor, err := t.abi.Pack("", new(big.Int).Mul(big.NewInt(1e9), big.NewInt(1e18)))
	if err != nil {
		b.Fatal(err)
	}
	return append(append([]byte(nil), t.bin...), ctor...)
}

func (t erc20) transferData(b *testing.B, to common.Address) []byte {
	d, err := t.abi.Pack("transfer", to, big.NewInt(1))
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func benchKey(b *testing.B) *ecdsa.PrivateKey {
	k, err := crypto.HexToECDSA(evmBenchKey)
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// signTx signs a dynamic-fee transaction with the local key.
func signTx(key *ecdsa.PrivateKey, chainID *big.Int, nonce uint64, to *common.Address, data []byte, gas uint64) *types.Transaction {
	return types.MustSignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, To: to, Data: data, Gas: gas,
		GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9),
	})
}

// waitMined polls for a receipt.
func waitMined(b *testing.B, c *ethclient.Client, hash common.Hash) *types.Receipt {
	b.Helper()
	var r *types.Receipt
	plugintest.EventuallyEvery(b, 2*time.Minute, 5*time.Millisecond, func() error {
		var err error
		if r, err = c.TransactionReceipt(context.Background(), hash); err != nil {
			return fmt.Errorf("transaction %s not mined: %w", hash, err)
		}
		return nil
	})
	return r
}

// deployERC20 deploys the token with nonce 0, signed for the chain ID c
// answers, and returns its address.
func deployERC20(b *testing.B, c *ethclient.Client, tok erc20, key *ecdsa.PrivateKey) common.Address {
	chainID, err := c.ChainID(context.Background())
	if err != nil {
		b.Fatalf("eth_chainId: %v", err)
	}
	tx := signTx(key, chainID, 0, nil, tok.deployData(b), 2_000_000)
	if err := c.SendTransaction(context.Background(), tx); err != nil {
		b.Fatal(err)
	}
	return waitMined(b, c, tx.Hash()).ContractAddress
}

// evmDirect runs the EVM VM in this process with an in-memory host and
// serves its rpc handler with httptest: the same go-ethereum RPC server,
// without the host and the plugin hop.
func evmDirect(b *testing.B) string {
	b.Helper()
	vm, h, err := newDirectEVM(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	b.Cleanup(func() {
		srv.Close()
		_ = vm.Shutdown(context.Background())
	})
	return srv.URL
}

// newDirectEVM initialises the C-Chain VM in this process, its data in
// dataDir and the host services in memory, and returns it with its rpc
// handler.
func newDirectEVM(dataDir string) (*evm.VM, http.Handler, error) {
	vm := evm.New()
	env := &sdk.Env{
		Name:    "C",
		Genesis: []byte(evmBenchGenesis),
		Config:  []byte(`{"cache-mb": 128}`),
		DataDir: dataDir,
		Logger:  hclog.NewNullLogger(),
	}
	db := hosttest.NewDatabase()
	env.Host = host.Services{DB: db, Index: evmMemIndex{db: db}}
	if err := vm.Initialize(context.Background(), env); err != nil {
		return nil, nil, fmt.Errorf("initialize the EVM: %w", err)
	}
	return vm, vm.Handlers()["rpc"], nil
}

// evmHost starts the host binary with the C-Chain and returns its rpc URL.
func evmHost(b *testing.B) string {
	b.Helper()
	n := nodetest.Start(b, nodetest.Options{Config: evmBenchConfig})
	return n.URL + "/ext/bc/C/rpc"
}

// evmListener starts the host binary with the C-Chain on a listener of its
// own (docs/listeners.md) and returns the rpc URL there, which the plugin
// process serves itself.
func evmListener(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := strings.Replace(evmBenchConfig, "    vm: evm\n", fmt.Sprintf("    vm: evm\n    listen: %q\n", addr), 1)
	nodetest.Start(b, nodetest.Options{Config: cfg})
	return "http://" + addr + "/rpc"
}

// BenchmarkEVMRPC measures requests per second of eth_blockNumber,
// eth_getBalance and eth_call (an ERC-20 balanceOf) from 8 concurrent
// clients, and the median latency of one client's sequential requests,
// through the host to the plugin (host), on the chain's own listener
// served by the plugin (listener), and against the same go-ethereum RPC
// server served directly: in the benchmark's process (direct) and by a
// process of its own, as a standalone node is (standalone).
func BenchmarkEVMRPC(b *testing.B) {
	tok := loadERC20(b)
	key := benchKey(b)
	for _, target := range []evmTarget{{"direct", evmDirect}, {"standalone", evmStandalone}, {"host", evmHost}, {"listener", evmListener}} {
		b.Run(target.name, func(b *testing.B) {
			url := target.url(b)
			c, err := ethclient.Dial(url)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			bodies := evmBodies(tok, crypto.PubkeyToAddress(key.PublicKey), deployERC20(b, c, tok, key))
			for _, m := range evmMethods {
				b.Run(m, func(b *testing.B) { evmThroughput(b, url, bodies[m]) })
				b.Run(m+"/sequential", func(b *testing.B) { evmLatency(b, url, bodies[m]) })
			}
		})
	}
}

// evmTarget is a server the RPC benchmarks measure: its name, and how to
// start it and get its rpc URL.
type evmTarget struct {
	name string
	url  func(*testing.B) string
}

// evmMethods are the methods the RPC benchmarks measure.
var evmMethods = []string{"eth_blockNumber", "eth_getBalance", "eth_call"}

// evmBodies are the requests of evmMethods by method: owner's balance, and
// owner's balance of the ERC-20 token at token.
func evmBodies(tok erc20, owner, token common.Address) map[string]string {
	call, _ := tok.abi.Pack("balanceOf", owner)
	return map[string]string{
		"eth_blockNumber": `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
		"eth_getBalance":  fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["%s","latest"]}`, owner),
		"eth_call":        fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"%s","data":"%s"},"latest"]}`, token, hexutil.Encode(call)),
	}
}

// evmThroughput posts body b.N times from 8 goroutines and reports req/s.
func evmThroughput(b *testing.B, url, body string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var failed atomic.Int64
	b.SetParallelism(4) // 4 × GOMAXPROCS (2) = 8 clients
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if post.One(client, url, body) != nil {
				failed.Add(1)
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d requests failed", n, b.N)
	}
}

// evmLatency posts body b.N times from one client, one after another, and
// reports the median latency.
func evmLatency(b *testing.B, url, body string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := post.One(client, url, body); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
}

// evmBurst is the number of ERC-20 transfers of the burst benchmark.
const evmBurst = 5000

// BenchmarkEVMBurst (run it with -benchtime 1x: every run is one burst on a
// fresh chain, ns/op is meaningless) submits 5,000 ERC-20 transfers as fast as the client
// can send them and measures transactions and Mgas per second until the
// last one is accepted: through the host to the C-Chain plugin (automatic
// block production), and on go-ethereum's simulated backend with the same
// transactions (blocks committed back to back while any is pending).
func BenchmarkEVMBurst(b *testing.B) {
	tok := loadERC20(b)
	key := benchKey(b)
	b.Run("host", func(b *testing.B) {
		c, err := ethclient.Dial(evmHost(b))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		token := deployERC20(b, c, tok, key)
		txs := burstTxs(b, tok, key, big.NewInt(evmBenchChainID), token)
		b.ResetTimer()
		start := time.Now()
		sendAll(b, c, txs)
		r := waitMined(b, c, txs[len(txs)-1].Hash())
		reportBurst(b, c, time.Since(start), r.BlockNumber.Uint64())
	})
	b.Run("simulated-backend", func(b *testing.B) {
		owner := crypto.PubkeyToAddress(key.PublicKey)
		balance, _ := new(big.Int).SetString("295be96e64066972000000", 16)
		sim := simulated.NewBackend(types.GenesisAlloc{owner: {Balance: balance}}, simulated.WithBlockGasLimit(evmBenchGasLimit))
		defer sim.Close()
		c := sim.Client()
		chainID, _ := c.ChainID(context.Background())
		deploy := signTx(key, chainID, 0, nil, tok.deployData(b), 2_000_000)
		if err := c.SendTransaction(context.Background(), deploy); err != nil {
			b.Fatal(err)
		}
		sim.Commit()
		r, err := c.TransactionReceipt(context.Background(), deploy.Hash())
		if err != nil {
			b.Fatal(err)
		}
		txs := burstTxs(b, tok, key, chainID, r.ContractAddress)
		b.ResetTimer()
		start := time.Now()
		var wg sync.WaitGroup
		wg.Add(1)
		done := make(chan struct{})
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
					sim.Commit()
				}
			}
		}()
		for _, tx := range txs {
			if err := c.SendTransaction(context.Background(), tx); err != nil {
				b.Fatal(err)
			}
		}
		var last *types.Receipt
		for last == nil {
			last, _ = c.TransactionReceipt(context.Background(), txs[len(txs)-1].Hash())
			time.Sleep(time.Millisecond)
		}
		close(done)
		wg.Wait()
		elapsed := time.Since(start)
		var gas uint64
		for n := last.BlockNumber.Uint64(); n > 1; n-- {
			blk, err := c.BlockByNumber(context.Background(), new(big.Int).SetUint64(n))
			if err != nil {
				b.Fatal(err)
			}
			gas += blk.GasUsed()
		}
		b.ReportMetric(evmBurst/elapsed.Seconds(), "tx/s")
		b.ReportMetric(float64(gas)/1e6/elapsed.Seconds(), "Mgas/s")
	})
}

// burstTxs signs the burst: transfers of 1 unit to distinct addresses,
// nonces 1..evmBurst (nonce 0 deployed the token).
func burstTxs(b *testing.B, tok erc20, key *ecdsa.PrivateKey, chainID *big.Int, token common.Address) []*types.Transaction {
	txs := make([]*types.Transaction, evmBurst)
	for i := range txs {
		to := common.BigToAddress(big.NewInt(int64(0x1000 + i)))
		txs[i] = signTx(key, chainID, uint64(i+1), &token, tok.transferData(b, to), 60_000)
	}
	return txs
}

// sendAll submits txs in batches of 40 (the public batch limit) through
// eth_sendRawTransaction.
func sendAll(b *testing.B, c *ethclient.Client, txs []*types.Transaction) {
	for i := 0; i < len(txs); i += 40 {
		end := min(i+40, len(txs))
		elems := make([]rpc.BatchElem, 0, end-i)
		for _, tx := range txs[i:end] {
			raw, err := tx.MarshalBinary()
			if err != nil {
				b.Fatal(err)
			}
			elems = append(elems, rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Encode(raw)}, Result: new(common.Hash)})
		}
		if err := c.Client().BatchCallContext(context.Background(), elems); err != nil {
			b.Fatal(err)
		}
		for _, e := range elems {
			if e.Error != nil {
				b.Fatal(e.Error)
			}
		}
	}
}

// reportBurst reports tx/s and Mgas/s of the blocks after the deployment.
func reportBurst(b *testing.B, c *ethclient.Client, elapsed time.Duration, last uint64) {
	var gas uint64
	for n := last; n > 1; n-- {
		blk, err := c.BlockByNumber(context.Background(), new(big.Int).SetUint64(n))
		if err != nil {
			b.Fatal(err)
		}
		gas += blk.GasUsed()
	}
	b.ReportMetric(evmBurst/elapsed.Seconds(), "tx/s")
	b.ReportMetric(float64(gas)/1e6/elapsed.Seconds(), "Mgas/s")
	b.ReportMetric(float64(last-1), "blocks")
}

// evmMemIndex applies the state writes of Accept and keeps no index.
type evmMemIndex struct {
	db *hosttest.Database
}

func (x evmMemIndex) Accept(ctx context.Context, _ string, _ ids.ID, _ []byte, state []host.Op) (host.Accepted, error) {
	return host.Accepted{Timestamp: time.Now()}, x.db.Write(ctx, state, false)
}

func (evmMemIndex) Feed(context.Context, string, string, uint64, bool, func(host.Container) error) error {
	return nil
}
