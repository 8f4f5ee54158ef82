package store

import (
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
		return append([]byte{prefixAllHour}, chain[:]...)
	}
	k := make([]byte, 0, 1+2*len(chain))
	return append(append(append(k, prefixSubnetHour), chain[:]...), s.Subnet[:]...)
}

func hourKey(prefix []byte, hour uint32) []byte {
	return binary.BigEndian.AppendUint32(append([]byte(nil), prefix...), hour)
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
	b, err := s.db.Get(stakingProgressKey(chain), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return p, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil {
		return p, fmt.Errorf("read the staking progress of chain %s: %w", chain, err)
	}
	return p, nil
}

// AddStaking stores changes, in order (a later change of the same series
// and hour replaces an earlier one), and the progress p, in one atomic
// write: a restart resumes exactly after the blocks they came from.
func (s *Store) AddStaking(chain ids.ID, p StakingProgress, changes []StakingChange) error {
	batch := new(leveldb.Batch)
	for _, c := range changes {
		batch.Put(hourKey(c.Series.prefix(chain), c.Hour), c.Totals.bytes())
	}
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
	return binary.BigEndian.Uint32(it.Key()[len(prefix):]), true, nil
}

// EachHour calls fn with the records of a series of chain from hour
// bottom to hour top, oldest first, after the newest record before bottom
// (whose totals hold at bottom when bottom has no record), if any. Only
// hours whose totals changed have a record: the caller carries each record
// forward over the hours after it. The records are decoded in place, one
// at a time: a page of 2160 hours builds no slice of them.
func (s *Store) EachHour(chain ids.ID, series Series, bottom, top uint32, fn func(HourTotals)) error {
	prefix := series.prefix(chain)
	limit := util.BytesPrefix(prefix).Limit
	if top < ^uint32(0) {
		limit = hourKey(prefix, top+1)
	}
	it := s.db.NewIterator(&util.Range{Start: prefix, Limit: limit}, nil)
	defer it.Release()
	emit := func() error {
		k := it.Key()
		t, valid := totalsOf(it.Value())
		if len(k) != len(prefix)+4 || !valid {
			return fmt.Errorf("chain %s: bad staking record %x", chain, k)
		}
		fn(HourTotals{Hour: binary.BigEndian.Uint32(k[len(prefix):]), Totals: t})
		return nil
	}
	// Start at the record before bottom (Prev from past the end is the
	// last record), or, when there is none, at the first record.
	it.Seek(hourKey(prefix, bottom))
	ok := it.Prev()
	if !ok {
		ok = it.First()
	}
	for ; ok; ok = it.Next() {
		if err := emit(); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("read the staking series of chain %s: %w", chain, err)
	}
	return nil
}
