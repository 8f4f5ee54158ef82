package metricsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The chains of the tests: two EVM chains and a chain of a VM whose blocks
// the series do not read.
var (
	chainC   = host.ChainInfo{ID: ids.ID{0x0c}, VMName: evmapi.VMName, Aliases: []string{"C"}, IndexKinds: []string{"block"}, InternalHandlers: []string{evmapi.IndexerHandler}, Running: true}
	chainD   = host.ChainInfo{ID: ids.ID{0x0d}, VMName: evmapi.VMName, Aliases: []string{"D"}, IndexKinds: []string{"block"}, InternalHandlers: []string{evmapi.IndexerHandler}, Running: true}
	chainKV  = host.ChainInfo{ID: ids.ID{0x0e}, VMName: "example", Aliases: []string{"kv"}, IndexKinds: []string{"block"}, Running: true}
	evmChain = map[ids.ID]uint64{chainC.ID: 43112, chainD.ID: 99999}
)

// day0 is the first day of the tests' chains: 2026-03-01 UTC.
var day0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Unix()

const secondsPerDay = 86400

// clock is a clock the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is a metrics module on the memory host.
type env struct {
	t     *testing.T
	h     *plugintest.Harness
	clock *clock
	// pBlocks is how many blocks of the P-Chain the module's host holds.
	pBlocks int
	// evmBlocks are the blocks appended to each EVM chain's index, as the
	// EVM tells them (evmapi.GetBlocksMethod).
	mu        sync.Mutex
	evmBlocks map[ids.ID][]evmapi.Block
}

// start starts the module on dir with config, the clock at now.
func start(t *testing.T, dir, config string, clk *clock) *env {
	return startWith(t, dir, config, clk, nil, nil)
}

// startWith starts the module as start does, with the P-Chain p and the
// chain of an avalanchego VM plugin vm when not nil.
func startWith(t *testing.T, dir, config string, clk *clock, p *pChain, vm *vmChain) *env {
	t.Helper()
	chains := []host.ChainInfo{chainC, chainD, chainKV}
	if p != nil {
		chains = append(chains, p.info)
	}
	if vm != nil {
		chains = append(chains, vm.info)
	}
	e := &env{t: t, clock: clk, evmBlocks: map[ids.ID][]evmapi.Block{}}
	m := metricsapi.New(metricsapi.Options{Clock: clk.Now})
	e.h = plugintest.StartModule(t, m, plugintest.Options{
		Name: "metrics", Config: []byte(config), DataDir: dir, NetworkID: 12345,
		Prefixes: api.Prefixes, Chains: chains,
		Call: func(ctx context.Context, c host.ChainInfo, handler string, body []byte) (int, []byte, error) {
			if p != nil && c.ID == p.info.ID {
				return p.call(ctx, handler, body)
			}
			if vm != nil && c.ID == vm.info.ID {
				return vm.call(ctx, c, handler, body)
			}
			id, ok := evmChain[c.ID]
			switch {
			case !ok || handler != evmapi.IndexerHandler:
			case strings.Contains(string(body), `"eth_chainId"`):
				return 200, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"result":"0x%x"}`, id), nil
			case strings.Contains(string(body), `"`+evmapi.GetBlocksMethod+`"`):
				return e.getBlocks(c.ID, body)
			}
			return 0, nil, fmt.Errorf("call %s/%s: %w", c.ID, handler, host.ErrNotFound)
		},
	})
	return e
}

// getBlocks answers evmapi.GetBlocksMethod on an EVM chain from the
// blocks appended to its index.
func (e *env) getBlocks(chain ids.ID, body []byte) (int, []byte, error) {
	var req struct {
		Params []hexutil.Uint64 `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Params) != 2 {
		return 0, nil, fmt.Errorf("%s: params of %s: %v", evmapi.GetBlocksMethod, body, err)
	}
	e.mu.Lock()
	appended := e.evmBlocks[chain]
	e.mu.Unlock()
	out := []evmapi.Block{}
	for n := uint64(req.Params[0]); n < uint64(req.Params[0]+req.Params[1]) && n >= 1 && n <= uint64(len(appended)); n++ {
		out = append(out, appended[n-1])
	}
	answer, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": out})
	return 200, answer, err
}

// noLimits turns the rate limit off.
const noLimits = `{"rate-limit": {"anonymous": {"per-second": 0}}}`

// evmBlock is an EVM block at time ts with n transactions, as the EVM
// indexes it.
func evmBlock(t *testing.T, number uint64, ts int64, n int) (ids.ID, []byte) {
	t.Helper()
	txs := make([]*types.Transaction, n)
	for i := range txs {
		txs[i] = types.NewTx(&types.LegacyTx{Nonce: number<<16 | uint64(i), To: &common.Address{1}, Value: big.NewInt(1), Gas: 21000, GasPrice: big.NewInt(1)})
	}
	blk := types.NewBlock(&types.Header{Number: new(big.Int).SetUint64(number), Time: uint64(ts)}, &types.Body{Transactions: txs}, nil, trie.NewStackTrie(nil))
	b, err := rlp.EncodeToBytes(blk)
	if err != nil {
		t.Fatal(err)
	}
	return ids.ID(blk.Hash()), b
}

// appendBlocks appends blocks to a chain's block index: one per (time,
// transactions) pair, each transaction a transfer from one address to
// another.
func (e *env) appendBlocks(chain ids.ID, first uint64, blocks ...[2]int64) {
	for i, b := range blocks {
		blk := evmapi.Block{Number: hexutil.Uint64(first + uint64(i)), Timestamp: hexutil.Uint64(b[0])}
		for range b[1] {
			blk.Transactions = append(blk.Transactions, evmapi.Transaction{From: common.Address{2}, To: &common.Address{1}, GasUsed: 21000, GasPrice: (*hexutil.Big)(big.NewInt(1))})
		}
		e.appendEVM(chain, blk)
	}
}

// appendEVM appends whole blocks to a chain's block index; a block
// without a number gets the next one.
func (e *env) appendEVM(chain ids.ID, blocks ...evmapi.Block) {
	for _, b := range blocks {
		e.mu.Lock()
		if b.Number == 0 {
			b.Number = hexutil.Uint64(len(e.evmBlocks[chain]) + 1)
		}
		e.evmBlocks[chain] = append(e.evmBlocks[chain], b)
		e.mu.Unlock()
		id, raw := evmBlock(e.t, uint64(b.Number), int64(b.Timestamp), len(b.Transactions))
		e.h.AppendContainer(chain, "block", id, raw)
	}
}

// waitCounted waits until the module has counted n blocks of chain.
func (e *env) waitCounted(alias string, n uint64) {
	e.t.Helper()
	plugintest.Eventually(e.t, 10*time.Second, func() error {
		d, err := e.h.HealthDetails(context.Background())
		if err == nil {
			if c, ok := d["chains"].(map[string]any)[alias].(map[string]any); ok && c["counted"] == float64(n) {
				return nil
			}
		}
		return fmt.Errorf("chain %s: %d blocks not counted: %v %v", alias, n, d, err)
	})
}

// get GETs path and returns the status and the body.
func (e *env) get(path string) (int, http.Header, []byte) {
	e.t.Helper()
	resp, err := http.Get(e.h.ModuleURL() + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// avgTPS GETs one page of /v1/avg_tps.
func (e *env) avgTPS(chain, token string) api.AvgTPSResponse {
	e.t.Helper()
	path := "/v1/avg_tps/" + chain
	if token != "" {
		path += "?pageToken=" + token
	}
	status, _, body := e.get(path)
	if status != 200 {
		e.t.Fatalf("GET %s = %d %s", path, status, body)
	}
	var out api.AvgTPSResponse
	if err := json.Unmarshal(body, &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// wantError checks an error answer's exact body.
func (e *env) wantError(path string, status int, body string) {
	e.t.Helper()
	got, _, b := e.get(path)
	if got != status || strings.TrimSpace(string(b)) != body {
		e.t.Errorf("GET %s = %d %s\nwant %d %s", path, got, b, status, body)
	}
}

// point is an expected point: a day from day0 and its transactions.
type point struct {
	day int64
	txs float64
}

func checkPoints(t *testing.T, what string, got []api.MetricPoint, want []point) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d points, want %d: %+v", what, len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Timestamp != day0+w.day*secondsPerDay || got[i].Value != w.txs/secondsPerDay {
			t.Fatalf("%s: point %d = %+v, want day %d with %v transactions (%v tx/s)", what, i, got[i], w.day, w.txs, w.txs/secondsPerDay)
		}
	}
}

// TestAvgTPS: each UTC day's transactions over 86,400 seconds, by block
// timestamp, newest first; days without blocks are zeros; a block at
// 23:59:59 and one at 00:00:00 fall on their own days; the chain answers
// by alias, blockchain ID and EVM chain ID; lastRun is the module's clock
// at its last run over the chain: the last count of a block, or the start
// of its current run, so that a chain without a block has one from the
// first request on; a restart counts nothing twice.
func TestAvgTPS(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{now: time.Unix(day0+10*secondsPerDay, 0)}
	t.Run("first run", func(t *testing.T) {
		e := start(t, dir, noLimits, clk)
		e.appendBlocks(chainC.ID, 1,
			[2]int64{day0 + 100, 3}, [2]int64{day0 + secondsPerDay - 1, 4}, // day 0: 7
			[2]int64{day0 + secondsPerDay, 5}, // day 1: 5
			// day 2: none
			[2]int64{day0 + 3*secondsPerDay + 7, 0}, [2]int64{day0 + 3*secondsPerDay + 8, 2}, // day 3: 2
		)
		e.waitCounted("C", 5)
		want := []point{{3, 2}, {2, 0}, {1, 5}, {0, 7}}
		for _, chain := range []string{"C", chainC.ID.String(), "43112"} {
			got := e.avgTPS(chain, "")
			checkPoints(t, chain, got.Results, want)
			if got.Status != 200 || got.LastRun != clk.Now().Unix() || got.NextPageToken != "" {
				t.Errorf("%s: status %d, lastRun %d (want %d), token %q", chain, got.Status, got.LastRun, clk.Now().Unix(), got.NextPageToken)
			}
		}
		// D has no block yet: no points, and the run that found none.
		if got := e.avgTPS("99999", ""); len(got.Results) != 0 || got.Status != 200 || got.LastRun != clk.Now().Unix() {
			t.Errorf("D before its first block: %+v, want no point and lastRun %d", got, clk.Now().Unix())
		}
	})
	clk.Advance(time.Hour)
	t.Run("second run", func(t *testing.T) {
		e := start(t, dir, noLimits, clk)
		// The memory host starts empty: the index is given again, with
		// one block more, which alone must be counted.
		e.appendBlocks(chainC.ID, 1,
			[2]int64{day0 + 100, 3}, [2]int64{day0 + secondsPerDay - 1, 4},
			[2]int64{day0 + secondsPerDay, 5},
			[2]int64{day0 + 3*secondsPerDay + 7, 0}, [2]int64{day0 + 3*secondsPerDay + 8, 2},
			[2]int64{day0 + 3*secondsPerDay + 9, 10},
		)
		e.waitCounted("C", 6)
		got := e.avgTPS("C", "")
		checkPoints(t, "C after the restart", got.Results, []point{{3, 12}, {2, 0}, {1, 5}, {0, 7}})
		if got.LastRun != clk.Now().Unix() {
			t.Errorf("lastRun %d, want %d", got.LastRun, clk.Now().Unix())
		}
		if got := e.avgTPS("D", ""); got.LastRun != clk.Now().Unix() {
			t.Errorf("D: lastRun %d, want this run's start %d", got.LastRun, clk.Now().Unix())
		}
	})
}

// TestAvgTPSPages: 250 days are three pages of 100, 100 and 50, joined
// by nextPageToken, which also works after a restart of the module;
// tokens expire after 24 hours, belong to their request and must be
// tokens of this API.
func TestAvgTPSPages(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{now: time.Unix(day0+300*secondsPerDay, 0)}
	var tokens []string
	var blocks [][2]int64
	var want []point
	for d := int64(249); d >= 0; d-- {
		want = append(want, point{d, float64(d % 7)})
	}
	for d := range int64(250) {
		blocks = append(blocks, [2]int64{day0 + d*secondsPerDay + d*11, d % 7})
	}
	t.Run("first run", func(t *testing.T) {
		e := start(t, dir, noLimits, clk)
		e.appendBlocks(chainC.ID, 1, blocks...)
		e.waitCounted("C", 250)
		page1 := e.avgTPS("C", "")
		checkPoints(t, "page 1", page1.Results, want[:100])
		page2 := e.avgTPS("C", page1.NextPageToken)
		checkPoints(t, "page 2", page2.Results, want[100:200])
		if page1.NextPageToken == "" || page2.NextPageToken == "" {
			t.Fatalf("tokens %q %q", page1.NextPageToken, page2.NextPageToken)
		}
		tokens = []string{page1.NextPageToken, page2.NextPageToken}
		// A token of C's series is not one of D's.
		e.appendBlocks(chainD.ID, 1, [2]int64{day0, 1})
		e.waitCounted("D", 1)
		e.wantError("/v1/avg_tps/D?pageToken="+tokens[0], 400,
			`{"message":["pageToken: issued for another request; start again from the first page, without pageToken"],"statusCode":400,"error":"Bad Request"}`)
	})
	clk.Advance(23 * time.Hour)
	t.Run("after a restart", func(t *testing.T) {
		e := start(t, dir, noLimits, clk)
		e.appendBlocks(chainC.ID, 1, blocks...)
		e.waitCounted("C", 250)
		page3 := e.avgTPS("C", tokens[1])
		checkPoints(t, "page 3", page3.Results, want[200:])
		if page3.NextPageToken != "" {
			t.Errorf("the last page has a token")
		}
		clk.Advance(time.Hour) // 24 hours after the tokens were issued
		e.wantError("/v1/avg_tps/C?pageToken="+tokens[0], 400,
			fmt.Sprintf(`{"message":["pageToken: expired at %s; start again from the first page, without pageToken"],"statusCode":400,"error":"Bad Request"}`,
				time.Unix(day0+300*secondsPerDay, 0).Add(24*time.Hour).UTC().Format(time.RFC3339)))
		e.wantError("/v1/avg_tps/C?pageToken=8a1d3c4e-0000-4000-8000-000000000000", 400,
			`{"message":["pageToken: unknown or expired page token; start again from the first page, without pageToken"],"statusCode":400,"error":"Bad Request"}`)
		e.wantError("/v1/avg_tps/C?pageToken=abc", 400,
			`{"message":["pageToken: not a page token of this API, got \"abc\"; start again from the first page, without pageToken"],"statusCode":400,"error":"Bad Request"}`)
	})
}

// TestErrors: the v1 error bodies carry message arrays; an unknown chain,
// or one whose blocks the series do not read, is a 404; other methods
// 405; over the anonymous limit 429 with Retry-After, no key needed.
func TestErrors(t *testing.T) {
	clk := &clock{now: time.Unix(day0, 0)}
	e := start(t, t.TempDir(), `{"rate-limit": {"anonymous": {"per-second": 1, "burst": 30}}}`, clk)
	for _, chain := range []string{"Z", "1", "kv", chainKV.ID.String()} {
		e.wantError("/v1/avg_tps/"+chain, 404, fmt.Sprintf(
			`{"message":["chain \"%s\" not found: use a blockchain ID or alias of a chain with a block index, or an EVM chain ID"],"statusCode":404,"error":"Not Found"}`, chain))
	}
	e.wantError("/v1/avg_tps/C?pageToken=1&pageToken=2", 400,
		`{"message":["pageToken: must be given at most once, got 2 values"],"statusCode":400,"error":"Bad Request"}`)
	e.wantError("/v1/nothing", 404, `{"message":["no endpoint GET /v1/nothing"],"statusCode":404,"error":"Not Found"}`)
	resp, err := http.Post(e.h.ModuleURL()+"/v1/avg_tps/C", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 405 || strings.TrimSpace(string(body)) != `{"message":["method POST not allowed: use GET"],"statusCode":405,"error":"Method Not Allowed"}` {
		t.Errorf("POST = %d %s", resp.StatusCode, body)
	}
	for {
		status, header, body := e.get("/v1/avg_tps/C")
		if status == 200 {
			continue
		}
		if status != 429 || header.Get("Retry-After") != "1" ||
			strings.TrimSpace(string(body)) != `{"message":["rate limit exceeded, retry in 1 second"],"statusCode":429,"error":"Too Many Requests"}` {
			t.Fatalf("over the limit: %d %v %s", status, header, body)
		}
		break
	}
}
