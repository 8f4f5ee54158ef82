package store

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/sdk/ids"
)

// BenchmarkCount: counting a catch-up of 1,000 blocks of 100 transactions
// among 10,000 accounts (the data module's catch-up mix), a block every 2
// seconds, 256 blocks a write as the follower writes them: the day counts
// alone (the series before the chain metrics, and of the X- and P-Chain's
// blocks) and with the chain metrics.
func BenchmarkCount(b *testing.B) {
	const blocks, txs, accounts = 1000, 100, 10_000
	addr := func(n int) common.Address { return common.Address{byte(n >> 8), byte(n), 0xaa} }
	var all []Block
	for n := range blocks {
		e := &EVMBlock{GasUsed: txs * 21000}
		for i := range txs {
			to := addr((n*txs + i*7919) % accounts)
			e.Txs = append(e.Txs, EVMTx{From: addr((n*txs + i) % accounts), To: &to, GasUsed: 21000, GasPrice: big.NewInt(25_000_000_000)})
		}
		all = append(all, Block{Time: 1_780_000_000 + int64(n)*2, Txs: txs, EVM: e})
	}
	for _, c := range []struct {
		name string
		evm  bool
	}{{"days", false}, {"chain-metrics", true}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				s, err := Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				batch := make([]Block, 0, 256)
				b.StartTimer()
				var p Progress
				for i, blk := range all {
					if !c.evm {
						blk.EVM = nil
					}
					batch = append(batch, blk)
					if len(batch) == 256 || i == len(all)-1 {
						if p, err = s.Add(ids.ID{1}, p, batch, time.Now()); err != nil {
							b.Fatal(err)
						}
						batch = batch[:0]
					}
				}
				b.StopTimer()
				_ = s.Close()
			}
			b.ReportMetric(float64(blocks*txs*b.N)/b.Elapsed().Seconds(), "tx/s")
		})
	}
}
