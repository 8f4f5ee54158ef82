package store

import (
	"encoding/binary"
	"maps"
	"slices"
	"testing"

	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/chainhost/chainhost/sdk/ids"
)

// model is what a series holds: totals by hour.
type model map[uint32]Totals

// want returns what EachHour(bottom, top) must give: the newest record
// before bottom, if any, then those from bottom to top, oldest first.
func (m model) want(bottom, top uint32) []HourTotals {
	var out []HourTotals
	for _, h := range slices.Sorted(maps.Keys(m)) {
		switch {
		case h < bottom:
			out = []HourTotals{{Hour: h, Totals: m[h]}}
		case h <= top:
			out = append(out, HourTotals{Hour: h, Totals: m[h]})
		}
	}
	return out
}

func each(t *testing.T, s *Store, chain ids.ID, series Series, bottom, top uint32) []HourTotals {
	t.Helper()
	var out []HourTotals
	if err := s.EachHour(chain, series, bottom, top, func(r HourTotals) { out = append(out, r) }); err != nil {
		t.Fatalf("EachHour(%d, %d): %v", bottom, top, err)
	}
	return out
}

// checkSeries compares every range of hours lo..hi of a series with m.
func checkSeries(t *testing.T, s *Store, chain ids.ID, series Series, m model, lo, hi uint32) {
	t.Helper()
	for bottom := lo; bottom <= hi; bottom++ {
		for top := bottom; top <= hi; top++ {
			if got, want := each(t, s, chain, series, bottom, top), m.want(bottom, top); !slices.Equal(got, want) {
				t.Fatalf("EachHour(%d, %d) = %v, want %v", bottom, top, got, want)
			}
		}
	}
	first, ok, err := s.FirstHour(chain, series)
	if wantFirst := slices.Min(slices.Collect(maps.Keys(m))); err != nil || !ok || first != wantFirst {
		t.Errorf("FirstHour = %d, %v, %v, want %d", first, ok, err, wantFirst)
	}
}

// TestStakingDays: records kept a day per key read back as hourly
// records, for every range, across midnights, after changes that replace
// hours of a day already stored.
func TestStakingDays(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	chain, subnet := ids.ID{1}, ids.ID{2}
	all, one := model{}, model{}
	write := func(changes ...StakingChange) {
		t.Helper()
		for _, c := range changes {
			if c.Series.All {
				all[c.Hour] = c.Totals
			} else {
				one[c.Hour] = c.Totals
			}
		}
		if err := s.AddStaking(chain, StakingProgress{Next: 1, Genesis: true}, changes); err != nil {
			t.Fatal(err)
		}
	}
	at := func(series Series, hour uint32, v uint64) StakingChange {
		return StakingChange{Series: series, HourTotals: HourTotals{Hour: hour, Totals: Totals{v, v + 1, v + 2, ^uint64(0) - v}}}
	}
	sub := SubnetSeries(subnet)
	// Day 4 holds hours 96 to 119.
	write(at(AllSubnets, 100, 1), at(AllSubnets, 101, 2), at(AllSubnets, 101, 3), at(sub, 119, 4), at(sub, 120, 5))
	write(at(AllSubnets, 119, 6), at(AllSubnets, 144, 7), at(sub, 119, 8), at(AllSubnets, 100, 9), at(sub, 170, 10))
	write(at(AllSubnets, 96, 11), at(AllSubnets, 143, 12))
	checkSeries(t, s, chain, AllSubnets, all, 90, 150)
	checkSeries(t, s, chain, sub, one, 110, 175)
	if got := each(t, s, ids.ID{3}, AllSubnets, 0, 1000); got != nil {
		t.Errorf("a chain without records: %v", got)
	}
	if got := each(t, s, chain, AllSubnets, 0, ^uint32(0)); len(got) != len(all) {
		t.Errorf("the whole series: %d records, want %d", len(got), len(all))
	}
}

// TestOpenConvertsHourRecords: a store written with one key per hour is
// converted to day records on open, over several writes (a day split
// between two), and reads the same.
func TestOpenConvertsHourRecords(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	chain, subnet := ids.ID{1}, ids.ID{2}
	all, one := model{}, model{}
	put := func(prefix []byte, m model, hour uint32, v uint64) {
		totals := Totals{v, 2 * v, 3 * v, 4 * v}
		m[hour] = totals
		if err := s.db.Put(binary.BigEndian.AppendUint32(prefix, hour), totals.bytes(), nil); err != nil {
			t.Fatal(err)
		}
	}
	const hours = convertBatch + 1000
	for h := range uint32(hours) {
		put(append([]byte{prefixAllHourV0}, chain[:]...), all, 1000+h, uint64(h%7))
	}
	for _, h := range []uint32{5, 6, 29, 300} {
		put(append(append([]byte{prefixSubnetHourV0}, chain[:]...), subnet[:]...), one, h, uint64(h))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, old := range []byte{prefixAllHourV0, prefixSubnetHourV0} {
		it := s.db.NewIterator(util.BytesPrefix([]byte{old}), nil)
		if it.First() {
			t.Errorf("an hourly record is left: %x", it.Key())
		}
		it.Release()
	}
	if got := each(t, s, chain, AllSubnets, 0, ^uint32(0)); !slices.Equal(got, all.want(0, ^uint32(0))) {
		t.Errorf("the converted series: %d records, want %d", len(got), len(all))
	}
	for _, r := range [][2]uint32{{999, 1100}, {1000 + convertBatch - 30, 1000 + convertBatch + 30}, {1000 + hours - 5, 1000 + hours + 5}} {
		if got, want := each(t, s, chain, AllSubnets, r[0], r[1]), all.want(r[0], r[1]); !slices.Equal(got, want) {
			t.Errorf("EachHour(%d, %d) = %v, want %v", r[0], r[1], got, want)
		}
	}
	checkSeries(t, s, chain, SubnetSeries(subnet), one, 0, 35)
	if got, want := each(t, s, chain, SubnetSeries(subnet), 31, 400), one.want(31, 400); !slices.Equal(got, want) {
		t.Errorf("EachHour(31, 400) = %v, want %v", got, want)
	}
}
