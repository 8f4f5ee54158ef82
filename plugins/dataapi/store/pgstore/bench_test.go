package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/offline"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/plugins/evm/evmapi"
)

// BenchmarkWrite: the write path of kvstore's BenchmarkWrite on
// PostgreSQL: synthetic blocks (200 blocks of 100 transactions among 1,000
// accounts) derived and written 100 blocks per transaction into an empty
// database; tx/s is the indexing rate.
func BenchmarkWrite(b *testing.B) {
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
		if err := offline.Index(context.Background(), s, chain, 43112, blocks, 100); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(begin)
		s.Close()
	}
	b.ReportMetric(float64(txs*b.N)/spent.Seconds(), "tx/s")
}
