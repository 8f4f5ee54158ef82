package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/chainhost/chainhost/sdk/ids"
)

// SecondsPerHour is the length of the staking series' step.
const SecondsPerHour = 60 * 60

// HourOf returns the number of the hour holding unix time t.
func HourOf(t int64) uint32 { return uint32(t / SecondsPerHour) }

// Totals are validators and delegators: how many and their weight.
type Totals struct {
	ValidatorCount, ValidatorWeight, DelegatorCount, DelegatorWeight uint64
}

// totalsSize is the length of a stored Totals.
const totalsSize = 4 * 8

func (t Totals) bytes() []byte {
	b := make([]byte, 0, totalsSize)
	for _, v := range []uint64{t.ValidatorCount, t.ValidatorWeight, t.DelegatorCount, t.DelegatorWeight} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

func totalsOf(b []byte) (Totals, bool) {
	if len(b) != totalsSize {
		return Totals{}, false
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(b[8*i:]) }
	return Totals{u(0), u(1), u(2), u(3)}, true
}

// Add returns the sum of t and o; a sum above 2^64-1 stays at 2^64-1.
func (t Totals) Add(o Totals) Totals {
	add := func(a, b uint64) uint64 {
		if s := a + b; s >= a {
			return s
		}
		return ^uint64(0)
	}
	return Totals{add(t.ValidatorCount, o.ValidatorCount), add(t.ValidatorWeight, o.ValidatorWeight),
		add(t.DelegatorCount, o.DelegatorCount), add(t.DelegatorWeight, o.DelegatorWeight)}
}

// HourTotals are the totals at the end of an hour.
type HourTotals struct {
	Hour   uint32
	Totals Totals
}

// Start returns the hour's first second.
func (h HourTotals) Start() int64 { return int64(h.Hour) * SecondsPerHour }

// StakingProgress is how far the staking series have read a P-Chain's
// block index.
type StakingProgress struct {
	// Next is the index position of the next block to read; the genesis
	// (height 0, not indexed) is read before position 0.
	Next uint64 `json:"next"`
	// Genesis is true once the genesis' totals are stored.
	Genesis bool `json:"genesis"`
	// LastBlockTime is the time of the last block read (the genesis' at
	// first), unix seconds.
	LastBlockTime int64 `json:"lastBlockTime"`
}

// Series names a staking series: one subnet's, or the sum over all
// subnets (All).
type Series struct {
	All    bool
	Subnet ids.ID
}

// AllSubnets is the series of the sum over all subnets.
var AllSubnets = Series{All: true}

// SubnetSeries is the series of one subnet.
func SubnetSeries(subnet ids.ID) Series { return Series{Subnet: subnet} }

// prefix returns the keys' prefix of the series of chain.
func (s Series) prefix(chain ids.ID) []byte {
	if s.All {
		return append([]byte{prefixAllDay}, chain[:]...)
	}
	k := make([]byte, 0, 1+2*len(chain))
	return append(append(append(k, prefixSubnetDay), chain[:]...), s.Subnet[:]...)
}

// A series keeps one key per UTC day with records, holding that day's
// hourly records: a page of 2160 hours reads 91 keys, not 2160, and the
// iterator's cost per key is most of a page's. The value is the records in
// hour order, each the hour of the day (one byte) and its Totals.
const (
	hoursPerDay = 24
	entrySize   = 1 + totalsSize
)

func stakingDayKey(prefix []byte, day uint32) []byte {
	k := make([]byte, 0, len(prefix)+4)
	return binary.BigEndian.AppendUint32(append(k, prefix...), day)
}

// dayRecords are one series' records of one day, by hour of the day.
type dayRecords struct {
	has    [hoursPerDay]bool
	totals [hoursPerDay]Totals
}

// set records the totals at the end of hour (of any day: the hour of the
// day is taken).
func (d *dayRecords) set(hour uint32, t Totals) {
	d.has[hour%hoursPerDay], d.totals[hour%hoursPerDay] = true, t
}

// bytes encodes d, which holds at least one record.
func (d *dayRecords) bytes() []byte {
	b := make([]byte, 0, hoursPerDay*entrySize)
	for h, ok := range d.has {
		if ok {
			b = append(append(b, byte(h)), d.totals[h].bytes()...)
		}
	}
	return b
}

// eachRecord calls fn with each record of a day's value, in hour order,
// or fails on a value that is not one.
func eachRecord(day uint32, v []byte, fn func(HourTotals)) error {
	if len(v) == 0 || len(v)%entrySize != 0 || day >= ^uint32(0)/hoursPerDay {
		return fmt.Errorf("bad staking record of day %d: %x", day, v)
	}
	prev := -1
	for off := 0; off < len(v); off += entrySize {
		h := int(v[off])
		t, _ := totalsOf(v[off+1 : off+entrySize])
		if h >= hoursPerDay || h <= prev {
			return fmt.Errorf("bad staking record of day %d: %x", day, v)
		}
		prev = h
		fn(HourTotals{Hour: day*hoursPerDay + uint32(h), Totals: t})
	}
	return nil
}

// readDay reads the records stored at key into d; none when there are
// none.
func (s *Store) readDay(key []byte, d *dayRecords) error {
	v, err := s.db.Get(key, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return eachRecord(binary.BigEndian.Uint32(key[len(key)-4:]), v, func(r HourTotals) { d.set(r.Hour, r.Totals) })
}

// dayBatch gathers changes to day records, each read from the store
// before its first change, and puts them into a batch.
type dayBatch struct {
	s     *Store
	days  map[string]*dayRecords
	order []string
}

// set records t at hour in the day record at prefix.
func (b *dayBatch) set(prefix []byte, hour uint32, t Totals) error {
	key := string(stakingDayKey(prefix, hour/hoursPerDay))
	d, ok := b.days[key]
	if !ok {
		d = new(dayRecords)
		if err := b.s.readDay([]byte(key), d); err != nil {
			return err
		}
		if b.days == nil {
			b.days = map[string]*dayRecords{}
		}
		b.days[key] = d
		b.order = append(b.order, key)
	}
	d.set(hour, t)
	return nil
}

// put adds the changed day records to batch.
func (b *dayBatch) put(batch *leveldb.Batch) {
	for _, key := range b.order {
		batch.Put([]byte(key), b.days[key].bytes())
	}
}

// StakingChange is a series' new totals at the end of an hour.
type StakingChange struct {
	Series Series
	HourTotals
}

func stakingProgressKey(chain ids.ID) []byte {
	return append([]byte{prefixStakingProgress}, chain[:]...)
}

// StakingProgress returns how far the staking series of chain have read
// it; the zero StakingProgress for a chain never read.
func (s *Store) StakingProgress(chain ids.ID) (StakingProgress, error) {
	var p StakingProgress
	if _, err := s.getJSON(stakingProgressKey(chain), &p); err != nil {
		return p, fmt.Errorf("read the staking progress of chain %s: %w", chain, err)
	}
	return p, nil
}

// AddStaking stores changes, in order (a later change of the same series
// and hour replaces an earlier one), and the progress p, in one atomic
// write: a restart resumes exactly after the blocks they came from.
// Each chain has one writer, so reading the day records it changes
// before the write races with nothing.
func (s *Store) AddStaking(chain ids.ID, p StakingProgress, changes []StakingChange) error {
	batch := new(leveldb.Batch)
	days := dayBatch{s: s}
	for _, c := range changes {
		if err := days.set(c.Series.prefix(chain), c.Hour, c.Totals); err != nil {
			return fmt.Errorf("read the staking series of chain %s: %w", chain, err)
		}
	}
	days.put(batch)
	pb, err := json.Marshal(p)
	if err != nil {
		return err
	}
	batch.Put(stakingProgressKey(chain), pb)
	if err := s.db.Write(batch, nil); err != nil {
		return fmt.Errorf("write the staking series of chain %s: %w", chain, err)
	}
	return nil
}

// FirstHour returns the first hour of a series of chain: the hour of the
// block where the subnet appeared (the genesis for the primary network and
// the sum), and false when the series has no record.
func (s *Store) FirstHour(chain ids.ID, series Series) (uint32, bool, error) {
	prefix := series.prefix(chain)
	it := s.db.NewIterator(util.BytesPrefix(prefix), nil)
	defer it.Release()
	if !it.First() {
		return 0, false, it.Error()
	}
	if len(it.Key()) != len(prefix)+4 {
		return 0, false, fmt.Errorf("chain %s: bad staking record %x", chain, it.Key())
	}
	first, found := uint32(0), false
	err := eachRecord(binary.BigEndian.Uint32(it.Key()[len(prefix):]), it.Value(), func(r HourTotals) {
		if !found {
			first, found = r.Hour, true
		}
	})
	if err != nil {
		return 0, false, fmt.Errorf("chain %s: %w", chain, err)
	}
	return first, true, nil
}

// EachHour calls fn with the records of a series of chain from hour
// bottom to hour top, oldest first, after the newest record before bottom
// (whose totals hold at bottom when bottom has no record), if any. Only
// hours whose totals changed have a record: the caller carries each record
// forward over the hours after it. The records are decoded in place, one
// at a time: a page of 2160 hours builds no slice of them.
func (s *Store) EachHour(chain ids.ID, series Series, bottom, top uint32, fn func(HourTotals)) error {
	prefix := series.prefix(chain)
	it := s.db.NewIterator(&util.Range{Start: prefix, Limit: stakingDayKey(prefix, top/hoursPerDay+1)}, nil)
	defer it.Release()
	var (
		carried    HourTotals // the newest record before bottom
		hasCarried bool
	)
	emit := func(r HourTotals) {
		switch {
		case r.Hour < bottom:
			carried, hasCarried = r, true
		case r.Hour <= top:
			if hasCarried {
				fn(carried)
				hasCarried = false
			}
			fn(r)
		}
	}
	// Start at the day before bottom's (Prev from past the end is the last
	// day), whose records are all before bottom, or, when there is none,
	// at the first day.
	it.Seek(stakingDayKey(prefix, bottom/hoursPerDay))
	ok := it.Prev()
	if !ok {
		ok = it.First()
	}
	for ; ok; ok = it.Next() {
		k := it.Key()
		if len(k) != len(prefix)+4 {
			return fmt.Errorf("chain %s: bad staking record %x", chain, k)
		}
		if err := eachRecord(binary.BigEndian.Uint32(k[len(prefix):]), it.Value(), emit); err != nil {
			return fmt.Errorf("chain %s: %w", chain, err)
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("read the staking series of chain %s: %w", chain, err)
	}
	if hasCarried {
		fn(carried)
	}
	return nil
}

// convertBatch is how many hourly records one write of convertHourRecords
// converts.
const convertBatch = 50_000

// convertHourRecords rewrites the staking records of a store written
// before they were kept a day per key (one key per hour, prefixes
// prefixAllHourV0 and prefixSubnetHourV0) into day records. Each write
// converts up to convertBatch records and deletes them, merging into the
// day records already written: a crash in between leaves the rest for the
// next open.
func (s *Store) convertHourRecords() error {
	for _, kind := range []struct {
		old, now byte
		keyLen   int
	}{
		{prefixAllHourV0, prefixAllDay, 1 + len(ids.ID{}) + 4},
		{prefixSubnetHourV0, prefixSubnetDay, 1 + 2*len(ids.ID{}) + 4},
	} {
		for {
			n, err := s.convertSome(kind.old, kind.now, kind.keyLen)
			if err != nil {
				return fmt.Errorf("convert the hourly staking records: %w", err)
			}
			if n < convertBatch {
				break
			}
		}
	}
	return nil
}

// convertSome converts up to convertBatch hourly records of prefix old,
// whose keys are keyLen long, into day records of prefix now.
func (s *Store) convertSome(old, now byte, keyLen int) (int, error) {
	it := s.db.NewIterator(util.BytesPrefix([]byte{old}), nil)
	defer it.Release()
	batch := new(leveldb.Batch)
	days := dayBatch{s: s}
	n := 0
	for ; n < convertBatch && it.Next(); n++ {
		k := it.Key()
		t, ok := totalsOf(it.Value())
		if len(k) != keyLen || !ok {
			return n, fmt.Errorf("bad staking record %x", k)
		}
		prefix := append([]byte{now}, k[1:len(k)-4]...)
		if err := days.set(prefix, binary.BigEndian.Uint32(k[len(k)-4:]), t); err != nil {
			return n, err
		}
		batch.Delete(bytes.Clone(k))
	}
	if err := it.Error(); err != nil {
		return n, err
	}
	if n == 0 {
		return 0, nil
	}
	days.put(batch)
	return n, s.db.Write(batch, nil)
}
