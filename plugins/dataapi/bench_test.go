package dataapi_test

import (
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// BenchmarkIndexPipeline: the whole indexer on synthetic blocks (100
// blocks of 100 transactions, 1,000 accounts): the module over real gRPC,
// learning the blocks from the index feed, reading them with
// indexer_getBlocks through chain calls (4 requests of 100 blocks in
// flight) and token metadata with eth_call, deriving and writing; tx/s is
// from the first container to the last block indexed. The chain's side is
// a fake that answers from memory, so this is the module's cost.
func BenchmarkIndexPipeline(b *testing.B) {
	c := fakeevm.New(43112)
	c.Synthesize(fakeevm.SynthOptions{Blocks: 100, TxsPerBlock: 100, Accounts: 1000, Seed: 1})
	txs := 0
	for n := uint64(0); n <= c.Head(); n++ {
		txs += len(c.Block(n).Transactions)
	}
	var spent time.Duration
	for range b.N {
		e := startEnv(b, envOptions{infos: []host.ChainInfo{chainC}, chains: map[ids.ID]*fakeevm.Chain{}})
		e.mu.Lock()
		e.chains[chainC.ID] = c
		e.mu.Unlock()
		e.waitIndexed("C", 0) // the genesis block: the chain is followed
		begin := time.Now()
		e.sync(chainC.ID)
		e.waitIndexed("C", c.Head())
		spent += time.Since(begin)
	}
	b.ReportMetric(float64(txs*b.N)/spent.Seconds(), "tx/s")
}
