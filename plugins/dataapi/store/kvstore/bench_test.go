package kvstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/internal/offline"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
)

// BenchmarkWrite: the store's write path indexing synthetic blocks (200
// blocks of 100 transactions: ERC-20, native, ERC-721, ERC-1155 and
// internal-call transactions among 1,000 accounts), deriving the records
// and writing 100 blocks per atomic write, into an empty store; tx/s is
// the indexing rate.
func BenchmarkWrite(b *testing.B) {
	_, blocks := synthChain(200, 100, 1000)
	txs := 0
	for _, blk := range blocks {
		txs += len(blk.Transactions)
	}
	for _, engine := range []string{kvstore.EnginePebble, kvstore.EngineLevelDB} {
		b.Run(engine, func(b *testing.B) {
			var spent time.Duration
			for range b.N {
				s := open(b, engine, b.TempDir())
				begin := time.Now()
				if err := offline.Index(context.Background(), s, chain, 43112, blocks, 100); err != nil {
					b.Fatal(err)
				}
				spent += time.Since(begin)
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(txs*b.N)/spent.Seconds(), "tx/s")
		})
	}
}
