package store

import (
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/sdk/ids"
)

// TestIntervalBoundaries: each interval's buckets start at the hour, the
// UTC midnight, the Monday and the first of the month, and a second
// before a start is in the bucket before.
func TestIntervalBoundaries(t *testing.T) {
	utc := func(y int, m time.Month, d, h, s int) int64 { return time.Date(y, m, d, h, 0, s, 0, time.UTC).Unix() }
	for _, c := range []struct {
		i     Interval
		start int64
	}{
		{Hour, utc(2026, 3, 1, 13, 0)},
		{Day, utc(2026, 3, 1, 0, 0)},
		{Day, utc(2028, 2, 29, 0, 0)},
		{Week, utc(2026, 3, 2, 0, 0)}, // a Monday
		{Week, utc(2025, 12, 29, 0, 0)},
		{Week, utc(1970, 1, 5, 0, 0)},
		{Month, utc(2026, 1, 1, 0, 0)},
		{Month, utc(2028, 3, 1, 0, 0)},
		{Month, utc(1970, 1, 1, 0, 0)},
	} {
		b := c.i.Bucket(c.start)
		if got := c.i.Start(b); got != c.start {
			t.Errorf("%c: Start(Bucket(%d)) = %d", c.i, c.start, got)
		}
		if c.start > 0 && c.i.Bucket(c.start-1) != b-1 {
			t.Errorf("%c: the second before %d is in bucket %d, want %d", c.i, c.start, c.i.Bucket(c.start-1), b-1)
		}
		if time.Unix(c.i.Start(b), 0).UTC().Weekday() != time.Monday && c.i == Week {
			t.Errorf("week %d starts on a %s", b, time.Unix(c.i.Start(b), 0).UTC().Weekday())
		}
	}
}

// chainBlocks are blocks over two days, a week's end and a month's end,
// with repeated addresses and creations.
func chainBlocks() []Block {
	a := func(n byte) common.Address { return common.Address{n} }
	to := func(n byte) *common.Address { x := a(n); return &x }
	start := time.Date(2026, 3, 29, 23, 0, 0, 0, time.UTC).Unix() // a Sunday, before the month's end
	var out []Block
	for i := range 40 {
		e := &EVMBlock{GasUsed: uint64(21000 * (i % 3))}
		for j := range i % 3 {
			e.Txs = append(e.Txs, EVMTx{From: a(byte(i % 5)), To: to(byte(j + i%7)), GasUsed: 21000, GasPrice: big.NewInt(int64(i + j))})
		}
		if i%4 == 0 {
			e.Deployers = append(e.Deployers, a(byte(i%6)))
			e.Transfers = append(e.Transfers, [2]common.Address{a(9), a(byte(10 + i%3))})
		}
		out = append(out, Block{Time: start + int64(i)*7200, Txs: len(e.Txs), EVM: e})
	}
	return out
}

// dump returns every bucket of every interval and the cumulative counts.
func dump(t *testing.T, s *Store, chain ids.ID) map[string]Bucket {
	t.Helper()
	out := map[string]Bucket{}
	for _, i := range Intervals {
		err := s.EachBucket(chain, i, 0, ^uint32(0)-1, true, func(n uint32, b *Bucket) {
			c := *b
			c.Fees, c.GasPrices, c.MaxGasPrice = new(big.Int).Set(b.Fees), new(big.Int).Set(b.GasPrices), new(big.Int).Set(b.MaxGasPrice)
			out[string(rune(i))+time.Unix(i.Start(n), 0).UTC().Format(time.RFC3339)] = c
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestChainMetricsRestart: blocks counted in batches, on one open store
// or with the store closed and opened again between two of them (a module
// that stops or crashes after a write), hold what one write of them all
// holds.
func TestChainMetricsRestart(t *testing.T) {
	chain := ids.ID{7}
	blocks := chainBlocks()
	write := func(dir string, splits ...int) map[string]Bucket {
		var p Progress
		from := 0
		for _, to := range append(splits, len(blocks)) {
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if p, err = s.Progress(chain); err != nil {
				t.Fatal(err)
			}
			if p.Next != uint64(from) {
				t.Fatalf("progress %d after %d blocks", p.Next, from)
			}
			if _, err = s.Add(chain, p, blocks[from:to], time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			from = to
		}
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return dump(t, s, chain)
	}
	want := write(t.TempDir())
	if len(want) < 20 {
		t.Fatalf("only %d buckets", len(want))
	}
	// One store open throughout, a write every three blocks: the writer's
	// cache of members between writes.
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var p Progress
	for from := 0; from < len(blocks); from += 3 {
		if p, err = s.Add(chain, p, blocks[from:min(from+3, len(blocks))], time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if got := dump(t, s, chain); !reflect.DeepEqual(got, want) {
		t.Fatalf("a write every three blocks: buckets differ\n got %v\nwant %v", got, want)
	}
	_ = s.Close()
	for k := 1; k < len(blocks); k += 7 {
		if got := write(t.TempDir(), k, min(k+5, len(blocks))); !reflect.DeepEqual(got, want) {
			t.Fatalf("restarts after blocks %d and %d: buckets differ\n got %v\nwant %v", k, k+5, got, want)
		}
	}
	// The last bucket's cumulative counts are the chain's.
	var addrs, deployers = map[common.Address]bool{}, map[common.Address]bool{}
	var txs, contracts uint64
	for _, b := range blocks {
		txs += uint64(len(b.EVM.Txs))
		contracts += uint64(len(b.EVM.Deployers))
		for _, tx := range b.EVM.Txs {
			addrs[tx.From], addrs[*tx.To] = true, true
		}
		for _, tr := range b.EVM.Transfers {
			addrs[tr[0]], addrs[tr[1]] = true, true
		}
		for _, d := range b.EVM.Deployers {
			deployers[d] = true
		}
	}
	last := want["m"+time.Date(2026, 3+1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)]
	if wantCum := (Cumulative{Txs: txs, Addresses: uint64(len(addrs)), Contracts: contracts, Deployers: uint64(len(deployers))}); last.Cumulative != wantCum {
		t.Errorf("cumulative %+v, want %+v", last.Cumulative, wantCum)
	}
}

// TestEachBucket: every range of hour buckets, across the records of
// UTC days, gives the newest bucket before it and those in it.
func TestEachBucket(t *testing.T) {
	chain := ids.ID{8}
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Add(chain, Progress{}, chainBlocks(), time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	var all []uint32
	if err := s.EachBucket(chain, Hour, 0, ^uint32(0)-1, false, func(n uint32, _ *Bucket) { all = append(all, n) }); err != nil {
		t.Fatal(err)
	}
	if first, ok, err := s.FirstBucket(chain, Hour); err != nil || !ok || first != all[0] {
		t.Fatalf("FirstBucket = %d, %v, %v; want %d", first, ok, err, all[0])
	}
	lo, hi := all[0]-30, all[len(all)-1]+30
	for bottom := lo; bottom <= hi; bottom++ {
		for top := bottom; top <= hi; top++ {
			var want, got []uint32
			for _, n := range all {
				switch {
				case n < bottom:
					want = []uint32{n}
				case n <= top:
					want = append(want, n)
				}
			}
			if err := s.EachBucket(chain, Hour, bottom, top, false, func(n uint32, _ *Bucket) { got = append(got, n) }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("EachBucket(%d, %d) = %v, want %v", bottom, top, got, want)
			}
		}
	}
}
