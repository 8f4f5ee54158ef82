package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/chainhost/chainhost/sdk/ids"
)

// The chain metrics of an EVM chain (docs/metrics-api.md, "Chain
// metrics") are kept per bucket of each interval, written with the block
// counts and the progress in one atomic write (Add):
//
//	B <chain> <interval> <record uint32>                  -> the record's Buckets
//	M <chain> <interval> <bucket uint32> <kind> <address> -> nothing: the bucket's distinct addresses
//	G <chain> <kind> <address>                            -> nothing: every address ever seen
//	C <chain>                                             -> the cumulative counts after the last block
const (
	prefixBucket     = 'B'
	prefixMember     = 'M'
	prefixEver       = 'G'
	prefixCumulative = 'C'
)

// Interval is a step of the chain metrics.
type Interval byte

// The intervals, as the contract's TimeIntervalGranularity names them.
const (
	Hour  Interval = 'h'
	Day   Interval = 'd'
	Week  Interval = 'w' // from Monday 00:00 UTC
	Month Interval = 'm' // calendar months, UTC
)

// Intervals are every interval a block is counted into.
var Intervals = []Interval{Hour, Day, Week, Month}

// mondayOffset is how many days the Monday of a week of days from the
// epoch (a Thursday) lies before: week w starts on day 7w-3.
const mondayOffset = 3

// MaxTime is the last second the chain metrics' buckets hold: that of the
// last hour a bucket number counts. A later block counts in its hour.
const MaxTime = math.MaxUint32*SecondsPerHour - 1

// Bucket returns the number of the bucket that holds unix time t, from 0
// to MaxTime (a later time is in MaxTime's bucket).
func (i Interval) Bucket(t int64) uint32 {
	t = min(max(t, 0), MaxTime)
	switch i {
	case Hour:
		return uint32(t / SecondsPerHour)
	case Day:
		return uint32(t / SecondsPerDay)
	case Week:
		return uint32((t/SecondsPerDay + mondayOffset) / 7)
	default:
		d := time.Unix(t, 0).UTC()
		return uint32((d.Year()-1970)*12 + int(d.Month()) - 1)
	}
}

// Start returns the first second of bucket b.
func (i Interval) Start(b uint32) int64 {
	switch i {
	case Hour:
		return int64(b) * SecondsPerHour
	case Day:
		return int64(b) * SecondsPerDay
	case Week:
		return (int64(b)*7 - mondayOffset) * SecondsPerDay
	default:
		return time.Date(1970+int(b/12), time.Month(b%12+1), 1, 0, 0, 0, 0, time.UTC).Unix()
	}
}

// Member kinds: the distinct addresses a bucket or the chain counts.
const (
	// Active: the from and to of transactions and of token transfer
	// events.
	Active byte = 'a'
	// Sender: their from only.
	Sender byte = 's'
	// Deployer: the from of the frames that created a contract.
	Deployer byte = 'd'
)

// EVMBlock is what the chain metrics take of an EVM block.
type EVMBlock struct {
	// GasUsed is the gas its transactions used.
	GasUsed uint64
	Txs     []EVMTx
	// Transfers are the from and to of its ERC-20, ERC-721 and ERC-1155
	// transfer events.
	Transfers [][2]common.Address
	// Deployers holds, per contract created (by a transaction or a call
	// frame of one, not undone), the address that created it.
	Deployers []common.Address
}

// EVMTx is what the chain metrics take of a transaction.
type EVMTx struct {
	From common.Address
	// To is nil for a contract creation.
	To      *common.Address
	GasUsed uint64
	// GasPrice is the effective gas price of its receipt, wei.
	GasPrice *big.Int
}

// Cumulative are the counts from the chain's first block counted.
type Cumulative struct {
	Txs, Addresses, Contracts, Deployers uint64
}

// Bucket is what a chain did in one bucket of an interval.
type Bucket struct {
	Blocks, Txs, GasUsed uint64
	// Fees is the sum of gas used times gas price, GasPrices the sum of
	// the transactions' gas prices, MaxGasPrice the highest; wei.
	Fees, GasPrices, MaxGasPrice *big.Int
	// MaxTPS and MaxGPS are the highest of a block's transactions and gas
	// over the seconds since the block before it (at least one).
	MaxTPS, MaxGPS float64
	// Since is the time of the block before the bucket's first (that
	// block's own time for the chain's first block counted), Last the
	// time of its last block: the span of the averages.
	Since, Last int64
	// Active, Senders and Deployers are its distinct addresses of each
	// kind; Contracts the contracts created in it.
	Active, Senders, Deployers, Contracts uint64
	// Cumulative are the chain's counts after its last block.
	Cumulative Cumulative
}

func newBucket() *Bucket {
	return &Bucket{Fees: new(big.Int), GasPrices: new(big.Int), MaxGasPrice: new(big.Int)}
}

// Span is the seconds the bucket's averages divide by: from the block
// before its first to its last, at least one.
func (b *Bucket) Span() int64 { return max(b.Last-b.Since, 1) }

// Merge adds o, a later bucket, to b: a window of buckets as one. The
// distinct counts cannot be added; they are left as they are.
func (b *Bucket) Merge(o *Bucket) {
	if o.Blocks == 0 {
		return
	}
	if b.Blocks == 0 {
		b.Since = o.Since
	}
	b.Blocks += o.Blocks
	b.Txs += o.Txs
	b.GasUsed += o.GasUsed
	b.Fees.Add(b.Fees, o.Fees)
	b.GasPrices.Add(b.GasPrices, o.GasPrices)
	if o.MaxGasPrice.Cmp(b.MaxGasPrice) > 0 {
		b.MaxGasPrice.Set(o.MaxGasPrice)
	}
	b.MaxTPS, b.MaxGPS = max(b.MaxTPS, o.MaxTPS), max(b.MaxGPS, o.MaxGPS)
	b.Last = o.Last
	b.Contracts += o.Contracts
	b.Cumulative = o.Cumulative
}

func (b *Bucket) bytes() []byte {
	out := make([]byte, 0, 96)
	for _, v := range []uint64{b.Blocks, b.Txs, b.GasUsed, b.Active, b.Senders, b.Deployers, b.Contracts,
		b.Cumulative.Txs, b.Cumulative.Addresses, b.Cumulative.Contracts, b.Cumulative.Deployers} {
		out = binary.AppendUvarint(out, v)
	}
	out = binary.AppendVarint(binary.AppendVarint(out, b.Since), b.Last)
	out = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(out, math.Float64bits(b.MaxTPS)), math.Float64bits(b.MaxGPS))
	for _, v := range []*big.Int{b.Fees, b.GasPrices, b.MaxGasPrice} {
		out = binary.AppendUvarint(out, uint64(len(v.Bytes())))
		out = append(out, v.Bytes()...)
	}
	return out
}

// errBadBucket is decodeBucket's refusal of a record that is not one.
var errBadBucket = errors.New("bad chain metrics record")

// decodeBucket decodes a stored Bucket into b, reusing its integers; the
// wei sums only when wei is set (their decoding is most of a record's).
func decodeBucket(v []byte, b *Bucket, wei bool) error {
	bad := errBadBucket
	for _, p := range []*uint64{&b.Blocks, &b.Txs, &b.GasUsed, &b.Active, &b.Senders, &b.Deployers, &b.Contracts,
		&b.Cumulative.Txs, &b.Cumulative.Addresses, &b.Cumulative.Contracts, &b.Cumulative.Deployers} {
		x, n := binary.Uvarint(v)
		if n <= 0 {
			return bad
		}
		*p, v = x, v[n:]
	}
	for _, p := range []*int64{&b.Since, &b.Last} {
		x, n := binary.Varint(v)
		if n <= 0 {
			return bad
		}
		*p, v = x, v[n:]
	}
	if len(v) < 16 {
		return bad
	}
	b.MaxTPS, b.MaxGPS = math.Float64frombits(binary.BigEndian.Uint64(v)), math.Float64frombits(binary.BigEndian.Uint64(v[8:]))
	v = v[16:]
	if !wei {
		return nil
	}
	for _, p := range []**big.Int{&b.Fees, &b.GasPrices, &b.MaxGasPrice} {
		l, n := binary.Uvarint(v)
		if n <= 0 || uint64(len(v)-n) < l {
			return bad
		}
		if *p == nil {
			*p = new(big.Int)
		}
		(*p).SetBytes(v[n : n+int(l)])
		v = v[n+int(l):]
	}
	return nil
}

// A record holds the buckets of one key: an hour bucket is kept with the
// other hours of its UTC day, so that a page of 2160 hours reads 91 keys,
// not 2160 (the iterator's cost per key is most of a page's); a bucket of
// the other intervals has a key of its own. The value is the record's
// buckets in order, each its slot in the record (one byte), its length
// (uvarint) and its bytes.
func (i Interval) perRecord() uint32 {
	if i == Hour {
		return 24
	}
	return 1
}

// eachEntry calls fn with each bucket of record rk of interval i: its
// number and bytes, in order.
func eachEntry(i Interval, rk uint32, v []byte, fn func(n uint32, b []byte) error) error {
	for len(v) > 0 {
		slot := uint32(v[0])
		l, n := binary.Uvarint(v[1:])
		if n <= 0 || slot >= i.perRecord() || uint64(len(v)-1-n) < l {
			return errBadBucket
		}
		if err := fn(rk*i.perRecord()+slot, v[1+n:1+n+int(l)]); err != nil {
			return err
		}
		v = v[1+n+int(l):]
	}
	return nil
}

func bucketPrefix(chain ids.ID, i Interval) []byte {
	k := make([]byte, 0, 2+len(chain)+4)
	return append(append(append(k, prefixBucket), chain[:]...), byte(i))
}

func bucketKey(chain ids.ID, i Interval, b uint32) []byte {
	return binary.BigEndian.AppendUint32(bucketPrefix(chain, i), b)
}

func memberPrefix(chain ids.ID, i Interval, b uint32, kind byte) []byte {
	k := make([]byte, 0, 2+len(chain)+4+1+common.AddressLength)
	k = append(append(append(k, prefixMember), chain[:]...), byte(i))
	return append(binary.BigEndian.AppendUint32(k, b), kind)
}

func everKey(chain ids.ID, kind byte, a common.Address) []byte {
	k := make([]byte, 0, 2+len(chain)+common.AddressLength)
	return append(append(append(append(k, prefixEver), chain[:]...), kind), a[:]...)
}

func cumulativeKey(chain ids.ID) []byte { return append([]byte{prefixCumulative}, chain[:]...) }

// chainBatch gathers the chain metrics of the blocks of one Add: the
// buckets they change (each read before its first change) and the
// members they add (each looked up once).
type chainBatch struct {
	s       *Store
	chain   ids.ID
	batch   *leveldb.Batch
	records map[[5]byte]*record // interval, record
	order   [][5]byte
	cache   *memberCache
	pending map[memberKey]struct{} // members looked up in this write that a full set does not hold
	cum     Cumulative
	// hasCum is set when the chain had counted a block before.
	hasCum bool
}

func (s *Store) newChainBatch(chain ids.ID, batch *leveldb.Batch) (*chainBatch, error) {
	cb := &chainBatch{s: s, chain: chain, batch: batch, records: map[[5]byte]*record{},
		cache: s.members(chain), pending: map[memberKey]struct{}{}}
	v, err := s.db.Get(cumulativeKey(chain), nil)
	cb.hasCum = err == nil
	switch {
	case errors.Is(err, leveldb.ErrNotFound):
	case err != nil:
		return nil, err
	case len(v) != 32:
		return nil, fmt.Errorf("bad cumulative record %x", v)
	default:
		u := func(i int) uint64 { return binary.BigEndian.Uint64(v[8*i:]) }
		cb.cum = Cumulative{u(0), u(1), u(2), u(3)}
	}
	return cb, nil
}

// record is the buckets of one record key being changed.
type record struct {
	buckets [24]*Bucket // by slot; nil: none
	stored  [24]bool    // the buckets stored before this write
}

// bucket returns the bucket of interval i holding t, its number, and
// whether it was stored before this write.
func (cb *chainBatch) bucket(i Interval, t int64) (*Bucket, uint32, bool, error) {
	n := i.Bucket(t)
	rk, slot := n/i.perRecord(), n%i.perRecord()
	var k [5]byte
	k[0] = byte(i)
	binary.BigEndian.PutUint32(k[1:], rk)
	r, ok := cb.records[k]
	if !ok {
		r = new(record)
		v, err := cb.s.db.Get(bucketKey(cb.chain, i, rk), nil)
		if err == nil {
			err = eachEntry(i, rk, v, func(n uint32, v []byte) error {
				b := newBucket()
				r.buckets[n%i.perRecord()], r.stored[n%i.perRecord()] = b, true
				return decodeBucket(v, b, true)
			})
		} else if errors.Is(err, leveldb.ErrNotFound) {
			err = nil
		}
		if err != nil {
			return nil, 0, false, fmt.Errorf("read %c bucket %d: %w", i, n, err)
		}
		cb.records[k] = r
		cb.order = append(cb.order, k)
	}
	if r.buckets[slot] == nil {
		r.buckets[slot] = newBucket()
	}
	return r.buckets[slot], n, r.stored[slot], nil
}

// block counts one block at time t; prev is the time of the block before
// it, hasPrev false for the chain's first block counted.
func (cb *chainBatch) block(t, prev int64, hasPrev bool, blk *EVMBlock) error {
	if !hasPrev {
		prev = t
	}
	secs := float64(max(t-prev, 1))
	active, senders, deployers := addressSets(blk)
	cb.cum.Txs += uint64(len(blk.Txs))
	cb.cum.Contracts += uint64(len(blk.Deployers))
	for _, kind := range []struct {
		set   []common.Address
		kind  byte
		count *uint64
	}{{active, Active, &cb.cum.Addresses}, {deployers, Deployer, &cb.cum.Deployers}} {
		for _, a := range kind.set {
			fresh, err := cb.add(memberKey{i: ever, kind: kind.kind, addr: a}, cb.hasCum)
			if err != nil {
				return err
			}
			if fresh {
				*kind.count++
			}
		}
	}
	for _, i := range Intervals {
		b, n, stored, err := cb.bucket(i, t)
		if err != nil {
			return err
		}
		if b.Blocks == 0 {
			b.Since = prev
		}
		b.Blocks++
		b.Txs += uint64(len(blk.Txs))
		b.GasUsed += blk.GasUsed
		b.MaxTPS = max(b.MaxTPS, float64(len(blk.Txs))/secs)
		b.MaxGPS = max(b.MaxGPS, float64(blk.GasUsed)/secs)
		b.Last = t
		b.Contracts += uint64(len(blk.Deployers))
		for _, tx := range blk.Txs {
			price := tx.GasPrice
			if price == nil {
				price = new(big.Int)
			}
			b.Fees.Add(b.Fees, new(big.Int).Mul(new(big.Int).SetUint64(tx.GasUsed), price))
			b.GasPrices.Add(b.GasPrices, price)
			if price.Cmp(b.MaxGasPrice) > 0 {
				b.MaxGasPrice.Set(price)
			}
		}
		for _, kind := range []struct {
			set   []common.Address
			kind  byte
			count *uint64
		}{{active, Active, &b.Active}, {senders, Sender, &b.Senders}, {deployers, Deployer, &b.Deployers}} {
			for _, a := range kind.set {
				fresh, err := cb.add(memberKey{i: i, bucket: n, kind: kind.kind, addr: a}, stored)
				if err != nil {
					return err
				}
				if fresh {
					*kind.count++
				}
			}
		}
		b.Cumulative = cb.cum
	}
	return nil
}

// put adds the changed buckets and the cumulative counts to the batch.
func (cb *chainBatch) put() {
	for _, k := range cb.order {
		var v []byte
		for slot, b := range cb.records[k].buckets {
			if b != nil {
				e := b.bytes()
				v = append(binary.AppendUvarint(append(v, byte(slot)), uint64(len(e))), e...)
			}
		}
		cb.batch.Put(bucketKey(cb.chain, Interval(k[0]), binary.BigEndian.Uint32(k[1:])), v)
	}
	v := make([]byte, 0, 32)
	for _, u := range []uint64{cb.cum.Txs, cb.cum.Addresses, cb.cum.Contracts, cb.cum.Deployers} {
		v = binary.BigEndian.AppendUint64(v, u)
	}
	cb.batch.Put(cumulativeKey(cb.chain), v)
}

// addressSets returns a block's distinct active addresses, senders and
// deployers.
func addressSets(blk *EVMBlock) (active, senders, deployers []common.Address) {
	seen := map[[21]byte]bool{}
	put := func(list *[]common.Address, kind byte, a common.Address) {
		var k [21]byte
		k[0] = kind
		copy(k[1:], a[:])
		if !seen[k] {
			seen[k] = true
			*list = append(*list, a)
		}
	}
	for _, tx := range blk.Txs {
		put(&active, Active, tx.From)
		put(&senders, Sender, tx.From)
		if tx.To != nil {
			put(&active, Active, *tx.To)
		}
	}
	for _, t := range blk.Transfers {
		put(&active, Active, t[0])
		put(&active, Active, t[1])
		put(&senders, Sender, t[0])
	}
	for _, d := range blk.Deployers {
		put(&deployers, Deployer, d)
	}
	return active, senders, deployers
}

// FirstBucket returns the chain's oldest bucket of interval i, and false
// when it has none.
func (s *Store) FirstBucket(chain ids.ID, i Interval) (uint32, bool, error) {
	prefix := bucketPrefix(chain, i)
	it := s.db.NewIterator(util.BytesPrefix(prefix), nil)
	defer it.Release()
	if !it.First() {
		return 0, false, it.Error()
	}
	k, v := it.Key(), it.Value()
	if len(k) != len(prefix)+4 || len(v) == 0 {
		return 0, false, fmt.Errorf("chain %s: bad chain metrics record %x", chain, k)
	}
	return binary.BigEndian.Uint32(k[len(prefix):])*i.perRecord() + uint32(v[0]), true, nil
}

// errPastTop ends EachBucket's reading at its top bucket.
var errPastTop = errors.New("past the top bucket")

// EachBucket calls fn with the newest stored bucket of interval i before
// bottom, if any, then with each stored bucket from bottom to top, oldest
// first; with its wei sums only when wei is set. The buckets passed are
// reused between calls.
func (s *Store) EachBucket(chain ids.ID, i Interval, bottom, top uint32, wei bool, fn func(n uint32, b *Bucket)) error {
	prefix := bucketPrefix(chain, i)
	it := s.db.NewIterator(&util.Range{Start: prefix, Limit: bucketKey(chain, i, top/i.perRecord()+1)}, nil)
	defer it.Release()
	ok := it.Seek(bucketKey(chain, i, bottom/i.perRecord()))
	if ok {
		ok = it.Prev()
	} else {
		ok = it.Last() // every stored record is before bottom's
	}
	if !ok {
		ok = it.First()
	}
	var (
		b, before = newBucket(), newBucket()
		beforeN   uint32
		hasBefore bool
	)
	for ; ok; ok = it.Next() {
		k := it.Key()
		if len(k) != len(prefix)+4 {
			return fmt.Errorf("chain %s: bad chain metrics key %x", chain, k)
		}
		err := eachEntry(i, binary.BigEndian.Uint32(k[len(prefix):]), it.Value(), func(n uint32, v []byte) error {
			if n > top {
				return errPastTop
			}
			if n < bottom {
				beforeN, hasBefore = n, true
				return decodeBucket(v, before, wei)
			}
			if hasBefore {
				fn(beforeN, before)
				hasBefore = false
			}
			if err := decodeBucket(v, b, wei); err != nil {
				return err
			}
			fn(n, b)
			return nil
		})
		if errors.Is(err, errPastTop) {
			break
		}
		if err != nil {
			return fmt.Errorf("chain %s, key %x: %w", chain, k, err)
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("read the chain metrics of chain %s: %w", chain, err)
	}
	if hasBefore {
		fn(beforeN, before)
	}
	return nil
}

// CountMembers returns how many distinct addresses of kind the buckets
// from bottom to top of interval i hold together.
func (s *Store) CountMembers(chain ids.ID, i Interval, bottom, top uint32, kind byte, seen map[common.Address]struct{}) error {
	start := memberPrefix(chain, i, bottom, 0)
	it := s.db.NewIterator(&util.Range{Start: start[:len(start)-1], Limit: memberPrefix(chain, i, top+1, 0)[:len(start)-1]}, nil)
	defer it.Release()
	for it.Next() {
		k := it.Key()
		if len(k) != len(start)+common.AddressLength || k[len(start)-1] != kind {
			continue
		}
		seen[common.Address(k[len(start):])] = struct{}{}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("read the addresses of chain %s: %w", chain, err)
	}
	return nil
}

// HasChainMetrics tells whether chain has counted a block into its chain
// metrics: an EVM chain counted before the module kept them has day
// counts and progress but none.
func (s *Store) HasChainMetrics(chain ids.ID) (bool, error) {
	has, err := s.db.Has(cumulativeKey(chain), nil)
	if err != nil {
		return false, fmt.Errorf("read the chain metrics of chain %s: %w", chain, err)
	}
	return has, nil
}

// ResetCounts deletes chain's progress and day counts in one write, so
// that its blocks are counted again from the first: once, for an EVM
// chain counted before the module kept the chain metrics.
func (s *Store) ResetCounts(chain ids.ID) error {
	batch := new(leveldb.Batch)
	it := s.db.NewIterator(util.BytesPrefix(append([]byte{prefixDay}, chain[:]...)), nil)
	for it.Next() {
		batch.Delete(append([]byte(nil), it.Key()...))
	}
	it.Release()
	if err := it.Error(); err != nil {
		return fmt.Errorf("reset the counts of chain %s: %w", chain, err)
	}
	batch.Delete(progressKey(chain))
	if err := s.db.Write(batch, nil); err != nil {
		return fmt.Errorf("reset the counts of chain %s: %w", chain, err)
	}
	return nil
}
