package dataapi_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// BenchmarkCatchUp: the module catching up on the same chain of 100,000
// transactions (1,000 blocks of 100 among 10,000 accounts: ERC-20,
// native, NFT and internal-call transactions) on each store, in the same
// run: the embedded store (pebble) and PostgreSQL (a local cluster on
// the same machine). As BenchmarkIndexPipeline, the module runs over real
// gRPC, learns the blocks from the index feed and reads them with
// indexer_getBlocks through chain calls from a fake chain that answers
// from memory, so that the figure is the module's and its store's; tx/s
// is from the first container to the last block indexed.
func BenchmarkCatchUp(b *testing.B) {
	c := fakeevm.New(43112)
	c.Synthesize(fakeevm.SynthOptions{Blocks: 1000, TxsPerBlock: 100, Accounts: 10_000, Seed: 1})
	txs := 0
	for n := uint64(0); n <= c.Head(); n++ {
		txs += len(c.Block(n).Transactions)
	}
	cluster := pgtest.New(b)
	for _, st := range []string{"pebble", "postgres"} {
		b.Run(st, func(b *testing.B) {
			var spent time.Duration
			for range b.N {
				config := noLimits
				if st == "postgres" {
					config = pgConfig(cluster.URL(cluster.NewDatabase(b)), "full", "")
				}
				e := startEnv(b, envOptions{config: config, infos: []host.ChainInfo{chainC}, chains: map[ids.ID]*fakeevm.Chain{}})
				e.mu.Lock()
				e.chains[chainC.ID] = c
				e.mu.Unlock()
				e.waitIndexed("C", 0) // the genesis block: the chain is followed
				begin := time.Now()
				e.sync(chainC.ID)
				waitHeight(b, e, "C", c.Head(), 10*time.Minute)
				spent += time.Since(begin)
			}
			b.ReportMetric(float64(txs*b.N)/spent.Seconds(), "tx/s")
		})
	}
}

// waitHeight waits until the chain aliased alias is indexed to height,
// within a bound fit for a long catch-up.
func waitHeight(b *testing.B, e *testEnv, alias string, height uint64, within time.Duration) {
	plugintest.EventuallyEvery(b, within, 5*time.Millisecond, func() error {
		details, err := e.h.HealthDetails(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		chains, _ := details["chains"].(map[string]any)
		c, _ := chains[alias].(map[string]any)
		if h, ok := c["height"].(float64); ok && uint64(h) >= height {
			return nil
		}
		return fmt.Errorf("chain %s not indexed to %d: %v", alias, height, c)
	})
}
