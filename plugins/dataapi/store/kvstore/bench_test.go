package kvstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/internal/offline"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

// BenchmarkWrite: the store's write path indexing synthetic blocks (200
// blocks of 100 transactions: ERC-20, native, ERC-721, ERC-1155 and
// internal-call transactions among 1,000 accounts), deriving the records
// and writing 100 blocks per atomic write, into an empty store; tx/s is
// the indexing rate.
func BenchmarkWrite(b *testing.B) {
	benchWrite(b, func(s store.Store) store.Store { return s })
}

// BenchmarkWriteUndo: BenchmarkWrite with every write keeping its undo
// records (store.Batch.Undo), as the indexer of a chain that may
// reorganise writes.
func BenchmarkWriteUndo(b *testing.B) {
	benchWrite(b, func(s store.Store) store.Store { return storetest.UndoWrites{Store: s} })
}

// benchWrite indexes the synthetic blocks into the store that wrap makes
// of an empty one, on each engine.
func benchWrite(b *testing.B, wrap func(store.Store) store.Store) {
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
				if err := offline.Index(context.Background(), wrap(s), chain, 43112, blocks, 100); err != nil {
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
