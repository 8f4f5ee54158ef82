package evmremote_test

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/internal/gethtest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// Size of the benchmark's chain: blocks of transactions (value transfers
// and a contract call with a log and an internal frame).
const (
	benchBlocks      = 1000
	benchTxsPerBlock = 5
	benchPerRequest  = evmremote.DefaultBlocksPerRequest
	benchInFlight    = evmremote.DefaultRequestsInFlight
)

// BenchmarkBlocks reads a geth --dev chain of benchBlocks blocks of
// transactions over HTTP with Blocks, as an indexer catching up does:
// benchInFlight requests at once of benchPerRequest blocks each. It
// reports transactions read a second.
func BenchmarkBlocks(b *testing.B) {
	url, _ := gethtest.Start(b)
	head, txs := buildBenchChain(b, url)
	c, err := evmremote.Dial(context.Background(), evmremote.Options{URL: url, InFlight: benchInFlight})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			read int
			ferr error
		)
		next := make(chan uint64)
		for range benchInFlight {
			wg.Go(func() {
				for from := range next {
					bs, err := c.Blocks(ctx, from, benchPerRequest)
					mu.Lock()
					if err != nil && ferr == nil {
						ferr = err
					}
					for _, blk := range bs {
						read += len(blk.Transactions)
					}
					mu.Unlock()
				}
			})
		}
		for from := uint64(1); from <= head; from += benchPerRequest {
			next <- from
		}
		close(next)
		wg.Wait()
		if ferr != nil {
			b.Fatal(ferr)
		}
		if read != txs {
			b.Fatalf("read %d transactions, the chain has %d", read, txs)
		}
	}
	b.ReportMetric(float64(txs)*float64(b.N)/time.Since(start).Seconds(), "tx/s")
	b.ReportMetric(float64(head), "blocks")
}

// buildBenchChain sends benchBlocks batches of benchTxsPerBlock
// transactions from geth's dev account, each batch after the last was
// mined, and returns the head and the count of transactions.
func buildBenchChain(b *testing.B, url string) (uint64, int) {
	b.Helper()
	ctx := context.Background()
	c, err := rpc.Dial(url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	from := devAccount(b, url)
	child := crypto.CreateAddress(from, 0)
	cs := loadContracts(b)
	var nonce uint64
	// send sends a batch with consecutive nonces (geth's own assignment
	// races within a batch).
	send := func(batch []map[string]any) {
		elems := make([]rpc.BatchElem, len(batch))
		for i := range batch {
			batch[i]["from"], batch[i]["nonce"] = from, hexutil.Uint64(nonce)
			nonce++
			elems[i] = rpc.BatchElem{Method: "eth_sendTransaction", Args: []any{batch[i]}, Result: new(common.Hash)}
		}
		if err := c.BatchCallContext(ctx, elems); err != nil {
			b.Fatal(err)
		}
		for _, e := range elems {
			if e.Error != nil {
				b.Fatal(e.Error)
			}
		}
	}
	waitMined := func(nonce uint64) {
		plugintest.Eventually(b, time.Minute, func() error {
			var n hexutil.Uint64
			if err := c.CallContext(ctx, &n, "eth_getTransactionCount", from, "latest"); err != nil {
				return err
			}
			if uint64(n) < nonce {
				return fmt.Errorf("%d of %d transactions mined", n, nonce)
			}
			return nil
		})
	}
	send([]map[string]any{{"data": hexutil.Bytes(cs["Child"].bin), "gas": hexutil.Uint64(1_000_000)}})
	waitMined(nonce)
	for i := range benchBlocks {
		batch := []map[string]any{{"to": child, "data": hexutil.Bytes(cs["Child"].call(b, "set", big.NewInt(int64(i)))), "gas": hexutil.Uint64(100_000)}}
		for j := 1; j < benchTxsPerBlock; j++ {
			batch = append(batch, map[string]any{"to": bob, "value": (*hexutil.Big)(big.NewInt(int64(j))), "gas": hexutil.Uint64(21_000)})
		}
		send(batch)
		waitMined(nonce)
	}
	var head hexutil.Uint64
	if err := c.CallContext(ctx, &head, "eth_blockNumber"); err != nil {
		b.Fatal(err)
	}
	return uint64(head), int(nonce)
}
