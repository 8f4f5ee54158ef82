package series

import (
	"encoding/json"
	"math/big"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/blockinfo"
	"github.com/chainhost/chainhost/sdk/ids"
)

// processCPU returns the CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkCatchUp: the module's share of counting a catch-up of 1,000
// blocks of 100 transactions among 10,000 accounts (the data module's
// catch-up mix: transfers and ERC-20 transfers), a block every 2 seconds,
// 256 blocks a call and a write: decoding the chain's answers and writing
// the counts. "light" is the series before the chain metrics (the light
// read of sdk/blockinfo, the day counts); "whole" decodes the whole blocks
// of indexer_getBlocks and keeps the chain metrics too. The VM's own cost
// of reading its blocks is not in it.
func BenchmarkCatchUp(b *testing.B) {
	const blocks, txs, accounts, batch = 1000, 100, 10_000, 256
	addr := func(n int) common.Address { return common.Address{byte(n >> 8), byte(n), 0xaa} }
	token := common.Address{0x70}
	whole := make([]evmapi.Block, blocks)
	light := make([]blockinfo.Block, blocks)
	for n := range whole {
		blk := evmapi.Block{Number: hexutil.Uint64(n + 1), Timestamp: hexutil.Uint64(1_780_000_000 + 2*n), GasUsed: txs * 21000}
		for i := range txs {
			from, to := addr((n*txs+i)%accounts), addr((n*txs+i*7919)%accounts)
			tx := evmapi.Transaction{Index: hexutil.Uint64(i), From: from, To: &to, Value: (*hexutil.Big)(big.NewInt(1)), Gas: 21000,
				GasPrice: (*hexutil.Big)(big.NewInt(25_000_000_000)), Status: 1, GasUsed: 21000, Logs: []evmapi.Log{},
				Calls: []evmapi.CallFrame{{Type: evmapi.CallType, From: from, To: to, Value: (*hexutil.Big)(big.NewInt(1)), Gas: 21000}}}
			if i%2 == 1 {
				tx.To = &token
				tx.Logs = []evmapi.Log{{Address: token, Topics: []common.Hash{transferTopic, common.BytesToHash(from[:]), common.BytesToHash(to[:])}, Data: make([]byte, 32)}}
			}
			blk.Transactions = append(blk.Transactions, tx)
		}
		whole[n] = blk
		light[n] = blockinfo.Block{Position: uint64(n), Height: uint64(n + 1), Time: int64(blk.Timestamp), Txs: txs}
	}
	answers := func(v any, n int) [][]byte {
		var out [][]byte
		for from := 0; from < n; from += batch {
			var part any
			switch v := v.(type) {
			case []evmapi.Block:
				part = v[from:min(from+batch, n)]
			case []blockinfo.Block:
				part = v[from:min(from+batch, n)]
			}
			raw, err := json.Marshal(part)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, raw)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		raw   [][]byte
		count func(raw []byte) ([]store.Block, error)
	}{
		{"light", answers(light, blocks), func(raw []byte) ([]store.Block, error) {
			var got []blockinfo.Block
			err := json.Unmarshal(raw, &got)
			out := make([]store.Block, len(got))
			for i, blk := range got {
				out[i] = store.Block{Time: blk.Time, Txs: blk.Txs}
			}
			return out, err
		}},
		{"whole", answers(whole, blocks), func(raw []byte) ([]store.Block, error) {
			var got []evmapi.Block
			err := json.Unmarshal(raw, &got)
			out := make([]store.Block, len(got))
			for i := range got {
				out[i] = evmCounts(&got[i])
			}
			return out, err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cpu := processCPU(b)
			for range b.N {
				b.StopTimer()
				s, err := store.Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				var p store.Progress
				for _, raw := range c.raw {
					counts, err := c.count(raw)
					if err != nil {
						b.Fatal(err)
					}
					if p, err = s.Add(ids.ID{1}, p, counts, time.Now()); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				_ = s.Close()
			}
			b.ReportMetric(float64(blocks*txs*b.N)/b.Elapsed().Seconds(), "tx/s")
			// The CPU time, which other processes' load does not change
			// (setting up included: small beside the whole read).
			b.ReportMetric(float64(blocks*txs*b.N)/(processCPU(b)-cpu).Seconds(), "tx/cpu-s")
		})
	}
}
