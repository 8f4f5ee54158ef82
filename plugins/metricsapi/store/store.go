// Package store keeps the metrics module's series and page tokens in a
// goleveldb database of its own, in the module's data directory
// (docs/metrics-api.md, "Storage"): per chain, its transaction and block
// counts per UTC day and how far it has read the chain's block index; per
// EVM chain, its chain metrics per bucket of each interval, with the
// distinct addresses of each bucket (chain.go); per
// P-Chain, each subnet's staking totals (and their sum) at the end of every
// hour in which they changed (a UTC day of them per key), and how far
// they have read its index; the page tokens the API has issued, by UUID.
package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/chainhost/chainhost/sdk/ids"
)

// Key prefixes, one byte each.
const (
	prefixProgress = 'p' // p <chain> -> Progress
	prefixDay      = 'd' // d <chain> <day uint32> -> DayCount
	prefixToken    = 't' // t <uuid> -> Token
	prefixExpiry   = 'e' // e <unix seconds uint64> <uuid> -> nothing

	prefixStakingProgress = 'q' // q <chain> -> StakingProgress
	prefixSubnetDay       = 'H' // H <chain> <subnet> <day uint32> -> the day's hourly Totals
	prefixAllDay          = 'A' // A <chain> <day uint32> -> the same, summed over the subnets

	prefixValidationsProgress = 'v' // v <chain> -> ValidationsProgress
	prefixValidation          = 'V' // V <chain> <start uint64> <txID> -> Validation (a primary-network validator)
	prefixSubnetL1            = 'L' // L <chain> <subnet> <validationID> -> nothing
	prefixNodeL1              = 'N' // N <chain> <nodeID> <validationID> -> nothing

	// One key per hour, as stores written before the day records kept
	// them; Open converts them.
	prefixSubnetHourV0 = 'h' // h <chain> <subnet> <hour uint32> -> Totals
	prefixAllHourV0    = 'a' // a <chain> <hour uint32> -> Totals
)

// ErrNotFound is the answer for a token the store does not hold.
var ErrNotFound = errors.New("not found")

// Store is the module's database. Its methods are safe for concurrent
// use; each chain has one writer (its follower).
type Store struct {
	db *leveldb.DB

	mu     sync.Mutex
	caches map[ids.ID]*memberCache // each chain's writer's
}

// Open opens (or creates) the store in dir.
func Open(dir string) (*Store, error) {
	db, err := leveldb.OpenFile(filepath.Join(dir, "leveldb"), &opt.Options{
		BlockCacheCapacity: 8 << 20, OpenFilesCacheCapacity: 64,
		// Most lookups of an address in a bucket find none.
		Filter: filter.NewBloomFilter(10),
	})
	if err != nil {
		return nil, fmt.Errorf("open the metrics store in %s: %w", dir, err)
	}
	s := &Store{db: db}
	if err := s.convertHourRecords(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open the metrics store in %s: %w", dir, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Compact compacts the whole database now, as goleveldb does in the
// background over time: the benchmarks measure a store in that state, not
// one still compacting what they just wrote.
func (s *Store) Compact() error {
	if err := s.db.CompactRange(util.Range{}); err != nil {
		return fmt.Errorf("compact the metrics store: %w", err)
	}
	return nil
}

// Progress is how far a chain's block index has been read.
type Progress struct {
	// Next is the index position of the next block to read.
	Next uint64 `json:"next"`
	// LastBlockTime is the timestamp of the last block read (unix
	// seconds); 0 before the first.
	LastBlockTime int64 `json:"lastBlockTime"`
	// LastRun is when the series last changed (unix seconds, the module's
	// clock); 0 before the first block.
	LastRun int64 `json:"lastRun"`
	// EVMChainID is, for an external chain, the EVM chain ID its blocks
	// were counted under, so that a config naming another chain under the
	// same name is refused; 0 for the node's own chains.
	EVMChainID uint64 `json:"evmChainId,omitempty"`
}

// DayCount is what a chain did in one UTC day.
type DayCount struct {
	// Day is the day's number since the Unix epoch.
	Day uint32
	// Txs and Blocks count the day's transactions and blocks, by block
	// timestamp.
	Txs, Blocks uint64
}

// Start returns the day's first second.
func (d DayCount) Start() int64 { return int64(d.Day) * SecondsPerDay }

// SecondsPerDay is the length of a UTC day.
const SecondsPerDay = 24 * 60 * 60

// DayOf returns the number of the UTC day holding unix time t.
func DayOf(t int64) uint32 { return uint32(t / SecondsPerDay) }

// Block is one block as the series count it.
type Block struct {
	// Time is the block's timestamp, unix seconds.
	Time int64
	// Txs is its number of transactions.
	Txs int
	// EVM is, for a block of an EVM chain, what its chain metrics take of
	// it; nil for other chains.
	EVM *EVMBlock
}

func progressKey(chain ids.ID) []byte { return append([]byte{prefixProgress}, chain[:]...) }

func dayKey(chain ids.ID, day uint32) []byte {
	k := make([]byte, 0, 1+len(chain)+4)
	k = append(append(k, prefixDay), chain[:]...)
	return binary.BigEndian.AppendUint32(k, day)
}

// Progress returns how far chain has been read; the zero Progress for a
// chain never read.
func (s *Store) Progress(chain ids.ID) (Progress, error) {
	var p Progress
	if _, err := s.getJSON(progressKey(chain), &p); err != nil {
		return p, fmt.Errorf("read the progress of chain %s: %w", chain, err)
	}
	return p, nil
}

// getJSON reads the JSON record under key into v; false when there is
// none.
func (s *Store) getJSON(key []byte, v any) (bool, error) {
	b, err := s.db.Get(key, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(b, v)
}

// Add counts blocks, the chain's index positions p.Next to
// p.Next+len(blocks)-1, into their days and, for an EVM chain, into the
// buckets of its chain metrics, and moves the chain's progress past them,
// in one atomic write: a block is counted exactly once, whenever the
// module stops.
func (s *Store) Add(chain ids.ID, p Progress, blocks []Block, now time.Time) (Progress, error) {
	if len(blocks) == 0 {
		return p, nil
	}
	batch := new(leveldb.Batch)
	var cb *chainBatch
	written := false
	defer func() {
		if cb != nil && !written { // the writer's cache took members that are not stored
			s.dropCache(chain)
		}
	}()
	days := map[uint32]*DayCount{}
	var order []uint32
	for _, b := range blocks {
		if b.EVM != nil {
			if cb == nil {
				var err error
				if cb, err = s.newChainBatch(chain, batch); err != nil {
					return p, fmt.Errorf("read the chain metrics of chain %s: %w", chain, err)
				}
			}
			if err := cb.block(b.Time, p.LastBlockTime, p.LastBlockTime != 0, b.EVM); err != nil {
				return p, fmt.Errorf("count a block of chain %s: %w", chain, err)
			}
		}
		day := DayOf(b.Time)
		d := days[day]
		if d == nil {
			d = &DayCount{Day: day}
			if v, err := s.db.Get(dayKey(chain, day), nil); err == nil && len(v) == 16 {
				d.Txs, d.Blocks = binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])
			} else if err != nil && !errors.Is(err, leveldb.ErrNotFound) {
				return p, fmt.Errorf("read day %d of chain %s: %w", day, chain, err)
			}
			days[day] = d
			order = append(order, day)
		}
		d.Txs += uint64(b.Txs)
		d.Blocks++
		p.LastBlockTime = b.Time
	}
	p.Next += uint64(len(blocks))
	p.LastRun = now.Unix()
	if cb != nil {
		cb.put()
	}
	for _, day := range order {
		d := days[day]
		v := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, d.Txs), d.Blocks)
		batch.Put(dayKey(chain, day), v)
	}
	pb, err := json.Marshal(p)
	if err != nil {
		return p, err
	}
	batch.Put(progressKey(chain), pb)
	if err := s.db.Write(batch, nil); err != nil {
		return p, fmt.Errorf("write the series of chain %s: %w", chain, err)
	}
	written = true
	return p, nil
}

// Days returns at most limit of the chain's stored days, from day from
// down, newest first. A day without a block is not stored: the caller
// fills the gaps.
func (s *Store) Days(chain ids.ID, from uint32, limit int) ([]DayCount, error) {
	prefix := append([]byte{prefixDay}, chain[:]...)
	it := s.db.NewIterator(&util.Range{Start: prefix, Limit: dayKey(chain, from+1)}, nil)
	defer it.Release()
	var out []DayCount
	for ok := it.Last(); ok && len(out) < limit; ok = it.Prev() {
		k, v := it.Key(), it.Value()
		if len(k) != len(prefix)+4 || len(v) != 16 {
			return nil, fmt.Errorf("chain %s: bad day record %x", chain, k)
		}
		out = append(out, DayCount{
			Day: binary.BigEndian.Uint32(k[len(prefix):]),
			Txs: binary.BigEndian.Uint64(v), Blocks: binary.BigEndian.Uint64(v[8:]),
		})
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("read the days of chain %s: %w", chain, err)
	}
	return out, nil
}

// FirstDay returns the chain's oldest day with a block, and false when it
// has none.
func (s *Store) FirstDay(chain ids.ID) (uint32, bool, error) {
	prefix := append([]byte{prefixDay}, chain[:]...)
	it := s.db.NewIterator(util.BytesPrefix(prefix), nil)
	defer it.Release()
	if !it.First() {
		return 0, false, it.Error()
	}
	k := it.Key()
	if len(k) != len(prefix)+4 {
		return 0, false, fmt.Errorf("chain %s: bad day record %x", chain, k)
	}
	return binary.BigEndian.Uint32(k[len(prefix):]), true, nil
}

// Token is a page token's record: what it continues, and until when.
type Token struct {
	// Scope names the request it continues (route and parameters).
	Scope string `json:"scope"`
	// Cursor is where the next page starts, in the route's terms.
	Cursor json.RawMessage `json:"cursor"`
	// Expires is when it stops being valid, unix seconds.
	Expires int64 `json:"expires"`
}

func tokenKey(id uuid.UUID) []byte { return append([]byte{prefixToken}, id[:]...) }

func expiryKey(expires int64, id uuid.UUID) []byte {
	k := binary.BigEndian.AppendUint64([]byte{prefixExpiry}, uint64(max(expires, 0)))
	return append(k, id[:]...)
}

// PutToken stores a token under id. The write reaches the operating
// system before the answer leaves, so the token survives a restart or a
// crash of the module or of the node; it is not synced to the disk, whose
// flush can take a hundred milliseconds on a busy machine: a crash of the
// machine itself may lose the newest tokens, whose clients are then told
// to start again (docs/metrics-api.md, "Page tokens").
func (s *Store) PutToken(id uuid.UUID, t Token) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	batch := new(leveldb.Batch)
	batch.Put(tokenKey(id), b)
	batch.Put(expiryKey(t.Expires, id), nil)
	if err := s.db.Write(batch, nil); err != nil {
		return fmt.Errorf("store a page token: %w", err)
	}
	return nil
}

// Token returns the token stored under id, or ErrNotFound.
func (s *Store) Token(id uuid.UUID) (Token, error) {
	var t Token
	found, err := s.getJSON(tokenKey(id), &t)
	if err != nil {
		return t, fmt.Errorf("read a page token: %w", err)
	}
	if !found {
		return t, ErrNotFound
	}
	return t, nil
}

// DeleteExpired deletes the tokens that expired before cutoff (unix
// seconds) and returns how many.
func (s *Store) DeleteExpired(cutoff int64) (int, error) {
	it := s.db.NewIterator(&util.Range{Start: []byte{prefixExpiry}, Limit: expiryKey(cutoff, uuid.UUID{})}, nil)
	defer it.Release()
	batch := new(leveldb.Batch)
	n := 0
	for it.Next() {
		k := it.Key()
		if len(k) != 1+8+16 {
			continue
		}
		var id uuid.UUID
		copy(id[:], k[9:])
		batch.Delete(tokenKey(id))
		batch.Delete(append([]byte(nil), k...))
		n++
	}
	if err := it.Error(); err != nil {
		return 0, fmt.Errorf("sweep page tokens: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	if err := s.db.Write(batch, nil); err != nil {
		return 0, fmt.Errorf("sweep page tokens: %w", err)
	}
	return n, nil
}
