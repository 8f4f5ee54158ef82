package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/xvm/client"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// killLoopRounds is how many times TestHostKillLoop SIGKILLs the host (at
// least 10); every killLoopEarly-th kill also lands during start-up.
const (
	killLoopRounds = 10
	killLoopEarly  = 4
)

// killLoopAcks is what the node acknowledged during the loop.
type killLoopAcks struct {
	mu    sync.Mutex
	evm   []evmSeen // transfers whose receipt the node returned
	x     []ids.ID  // X transfers issueTx answered (it answers on acceptance)
	reads int       // answered reads of the index, data and metrics APIs
}

func (a *killLoopAcks) addEVM(s evmSeen) { a.mu.Lock(); a.evm = append(a.evm, s); a.mu.Unlock() }
func (a *killLoopAcks) addX(id ids.ID)   { a.mu.Lock(); a.x = append(a.x, id); a.mu.Unlock() }
func (a *killLoopAcks) addRead()         { a.mu.Lock(); a.reads++; a.mu.Unlock() }

// snapshot returns copies of what was acknowledged so far.
func (a *killLoopAcks) snapshot() ([]evmSeen, []ids.ID, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]evmSeen(nil), a.evm...), append([]ids.ID(nil), a.x...), a.reads
}

// killLoopLoad keeps every chain and module of the node at url busy until
// ctx ends: EVM transfers (their receipts collected), X transfers, and
// reads of the index, data and metrics APIs.
func killLoopLoad(ctx context.Context, t *testing.T, url string, x xChainInfo, acks *killLoopAcks) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Go(func() {
		rc, err := rpc.DialHTTP(url + "/ext/bc/C/rpc")
		if err != nil {
			return
		}
		defer rc.Close()
		c := ethclient.NewClient(rc)
		key := evmKey(t)
		to := common.HexToAddress("0x00000000000000000000000000000000000000dd")
		for ctx.Err() == nil {
			nonce, err := c.PendingNonceAt(ctx, common.HexToAddress(evmLocalAddr))
			if err != nil {
				pause(ctx, 20*time.Millisecond)
				continue
			}
			var sent []common.Hash
			for k := range uint64(4) {
				tx := evmTransfer(key, evmChainID, nonce+k, to, 1)
				if c.SendTransaction(ctx, tx) != nil {
					break
				}
				sent = append(sent, tx.Hash())
			}
			for _, h := range sent {
				for ctx.Err() == nil {
					r, err := c.TransactionReceipt(ctx, h)
					if err == nil {
						acks.addEVM(evmSeen{tx: h, block: r.BlockHash, number: r.BlockNumber.Uint64()})
						break
					}
					pause(ctx, 10*time.Millisecond)
				}
			}
		}
	})
	wg.Go(func() {
		ewoq, _ := avax.ParsePrivateKey(ewoqKey)
		w := x.wallet(url, ewoq)
		to := avax.ShortID{0xdd}
		for ctx.Err() == nil {
			id, err := w.Send(ctx, x.feeAsset, 1000, to)
			if err != nil {
				pause(ctx, 20*time.Millisecond)
				continue
			}
			acks.addX(id)
		}
	})
	reads := []struct{ method, path, body string }{
		{http.MethodPost, "/ext/index/C/block", `{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{"encoding":"hex"}}`},
		{http.MethodPost, "/ext/index/X/tx", `{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{"encoding":"hex"}}`},
		{http.MethodGet, "/v1/chains/43112/addresses/" + evmLocalAddr + "/transactions?pageSize=10", ""},
		{http.MethodGet, "/v1/chains", ""},
		{http.MethodGet, "/v1/avg_tps/43112", ""},
		{http.MethodGet, "/v1/avg_tps/X", ""},
	}
	for _, r := range reads {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, r.method, url+r.path, strings.NewReader(r.body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := xHTTP.Do(req)
				if err == nil {
					if resp.StatusCode == 200 {
						acks.addRead()
					}
					resp.Body.Close()
				}
				pause(ctx, 20*time.Millisecond)
			}
		})
	}
	return &wg
}

// checkAcks fails unless every acknowledged EVM transfer is in the block
// whose receipt was returned, and every acknowledged X transfer accepted.
func checkAcks(t *testing.T, n *nodetest.Node, evm []evmSeen, xs []ids.ID, when string) {
	t.Helper()
	ctx := context.Background()
	c := evmDial(t, n, "C", "rpc")
	for _, s := range evm {
		r, err := c.TransactionReceipt(ctx, s.tx)
		if err != nil || r.BlockHash != s.block {
			t.Fatalf("%s: acknowledged EVM transfer %s (block %d %s) lost: %v, %v", when, s.tx, s.number, s.block, r, err)
		}
	}
	xc := client.New(n.URL, "X", xHTTP)
	for _, id := range xs {
		if st, err := xc.GetTxStatus(ctx, id); err != nil || st != "Accepted" {
			t.Fatalf("%s: acknowledged X transfer %s lost: %q, %v", when, id, st, err)
		}
	}
}

// TestHostKillLoop: the host of the default node (the embedded default
// config, whose data and metrics APIs limit no one) is SIGKILLed
// killLoopRounds times, at random moments, while every chain and module is
// busy (EVM and X transfers,
// index, data and metrics reads), and restarted on its data each time.
// Nothing acknowledged is lost: every EVM transfer whose receipt was
// returned stays in its block, every X transfer issueTx answered stays
// accepted; and the modules' derived data ends up exactly the chains'
// (the data API's cumulative transaction count and the metrics API's
// daily counts equal what the chains hold).
func TestHostKillLoop(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("random delays from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	opts := nodetest.Options{DataDir: t.TempDir()}
	n := nodetest.Start(t, opts)
	x := xchainInfo(t, n, "X")
	acks := &killLoopAcks{}
	var checkedEVM, checkedX int
	for round := range killLoopRounds {
		ctx, cancel := context.WithCancel(context.Background())
		wg := killLoopLoad(ctx, t, n.URL, x, acks)
		time.Sleep(time.Duration(1000+rng.IntN(1500)) * time.Millisecond)
		n.Kill()
		cancel()
		wg.Wait()
		if round%killLoopEarly == killLoopEarly-1 {
			o := opts
			o.NoWait = true
			s := nodetest.Start(t, o)
			time.Sleep(time.Duration(rng.IntN(1000)) * time.Millisecond)
			s.Kill()
		}
		n = nodetest.Start(t, opts)
		evm, xs, _ := acks.snapshot()
		checkAcks(t, n, evm[checkedEVM:], xs[checkedX:], fmt.Sprintf("after kill %d", round+1))
		checkedEVM, checkedX = len(evm), len(xs)
	}
	evm, xs, reads := acks.snapshot()
	t.Logf("%d kills: %d EVM and %d X transfers acknowledged, %d reads answered", killLoopRounds, len(evm), len(xs), reads)
	if len(evm) == 0 || len(xs) == 0 || reads == 0 {
		t.Fatal("a part of the load got nothing acknowledged: the test proved nothing")
	}
	checkAcks(t, n, evm, xs, "at the end")
	killLoopCheckModules(t, n, evm)
}

// killLoopCheckModules waits for the modules to catch up with the chains,
// then compares what they derived with what the chains hold.
func killLoopCheckModules(t *testing.T, n *nodetest.Node, evm []evmSeen) {
	t.Helper()
	ctx := context.Background()
	c := evmDial(t, n, "C", "rpc")
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var evmTxs uint64
	for i := uint64(1); i <= head; i++ {
		b, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(i))
		if err != nil {
			t.Fatal(err)
		}
		evmTxs += uint64(len(b.Transactions()))
	}
	// The data API: the head block with the chain's transaction count, and
	// every acknowledged transfer in its block.
	b := waitDataBlock(t, n, head)
	if b.CumulativeTransactions != strconv.FormatUint(evmTxs, 10) {
		t.Errorf("data API: cumulativeTransactions %s at block %d, the chain holds %d", b.CumulativeTransactions, head, evmTxs)
	}
	for _, s := range evm {
		var tx struct {
			NativeTransaction api.NativeTransaction `json:"nativeTransaction"`
		}
		dataGet(t, n, "/v1/chains/43112/transactions/"+s.tx.Hex(), &tx)
		if tx.NativeTransaction.BlockHash != s.block.Hex() {
			t.Fatalf("data API: transfer %s in block %s, the chain has it in %s", s.tx, tx.NativeTransaction.BlockHash, s.block)
		}
	}
	// The metrics API: every day's count, summed, is the chain's.
	xTxs := uint64(len(indexedBytes(t, n, "X", "tx")))
	for chain, want := range map[string]uint64{"43112": evmTxs, "X": xTxs} {
		plugintest.Eventually(t, 60*time.Second, func() error {
			if got := avgTPSCount(t, n, chain); got != want {
				return fmt.Errorf("metrics API: %d transactions counted on %s, the chain holds %d", got, chain, want)
			}
			return nil
		})
	}
}

// avgTPSCount sums the transactions behind every day of a chain's
// /v1/avg_tps series (each day's value is its count over 86,400).
func avgTPSCount(t *testing.T, n *nodetest.Node, chain string) uint64 {
	t.Helper()
	var total uint64
	token := ""
	for {
		var page struct {
			Results []struct {
				Value float64 `json:"value"`
			} `json:"results"`
			NextPageToken string `json:"nextPageToken"`
		}
		path := "/v1/avg_tps/" + chain
		if token != "" {
			path += "?pageToken=" + token
		}
		status, body := restGet(t, context.Background(), n.URL+path)
		if status != 200 {
			t.Fatalf("GET %s = %d %s", path, status, body)
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Results {
			total += uint64(math.Round(r.Value * 86400))
		}
		if token = page.NextPageToken; token == "" {
			return total
		}
	}
}
