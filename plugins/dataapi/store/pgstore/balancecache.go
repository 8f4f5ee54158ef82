package pgstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"sync"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/ethereum/go-ethereum/common"
	lru "github.com/hashicorp/golang-lru/v2"
)

// The writer's balance cache. The indexer reads the current balance of
// every holding a run of blocks changes, one Balance call each: on a
// database, a round trip each, most of them during a catch-up for
// holdings that do not exist yet. The writer, the only one (the writer
// lock), knows what it wrote: a Bloom filter of every holding in the
// database answers "none" without a round trip, and the balances written
// or read last are kept.
const (
	// cachedBalances is how many balances the cache keeps.
	cachedBalances = 500_000
	// minHoldings sizes the filter at least for this many holdings; it is
	// sized for twice the holdings found at start, and its false
	// positives (a round trip) grow past that.
	minHoldings = 4_000_000
	// filterFalsePositives is the filter's rate of false positives at its
	// size.
	filterFalsePositives = 0.01
)

// holdingKey is a holding of a chain, as the cache keys it: the tag, the
// holder, the token and, for ERC-1155, the token ID.
type holdingKey struct {
	tag int32
	holding
}

// bytes returns the key as the filter hashes it.
func (k holdingKey) bytes() []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+20+20+32), uint32(k.tag))
	b = append(append(b, k.holder[:]...), k.token[:]...)
	return append(b, k.id[:]...)
}

// balanceCache answers the writer's current balance reads it can.
type balanceCache struct {
	mu     sync.Mutex
	exists *bloom.BloomFilter
	recent *lru.Cache[holdingKey, *big.Int]
}

// loadBalanceCache fills the filter with the holdings in the database.
func loadBalanceCache(ctx context.Context, s *Store) (*balanceCache, error) {
	var count int64
	err := s.pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM erc20_holdings) + (SELECT count(*) FROM erc1155_holdings)").Scan(&count)
	if err != nil {
		return nil, fmt.Errorf("pgstore: count holdings: %w", err)
	}
	recent, err := lru.New[holdingKey, *big.Int](cachedBalances)
	if err != nil {
		return nil, err
	}
	c := &balanceCache{exists: bloom.NewWithEstimates(uint(max(2*count, minHoldings)), filterFalsePositives), recent: recent}
	rows, err := s.pool.Query(ctx, `SELECT chain, holder, token, '\x'::bytea FROM erc20_holdings
		UNION ALL SELECT chain, holder, token, token_id FROM erc1155_holdings`)
	if err != nil {
		return nil, fmt.Errorf("pgstore: read holdings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k holdingKey
		var holder, token, id []byte
		if err := rows.Scan(&k.tag, &holder, &token, &id); err != nil {
			return nil, fmt.Errorf("pgstore: read holdings: %w", err)
		}
		k.holder, k.token, k.id = common.BytesToAddress(holder), common.BytesToAddress(token), common.BytesToHash(id)
		c.exists.Add(k.bytes())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgstore: read holdings: %w", err)
	}
	return c, nil
}

// get returns a holding's balance when the cache knows it: the one kept,
// or zero when the holding does not exist.
func (c *balanceCache) get(k holdingKey) (*big.Int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.recent.Get(k); ok {
		return new(big.Int).Set(v), true
	}
	if !c.exists.Test(k.bytes()) {
		return new(big.Int), true
	}
	return nil, false
}

// put keeps a balance read from or committed to the database.
func (c *balanceCache) put(k holdingKey, v *big.Int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.exists.Add(k.bytes())
	c.recent.Add(k, new(big.Int).Set(v))
}

// written keeps the balances of a committed write.
func (c *balanceCache) written(tag int32, r *rowSet) {
	for i, h := range r.erc20.keys {
		c.put(holdingKey{tag, h}, r.erc20.vals[i].balance)
	}
	for i, h := range r.erc1155Held.keys {
		c.put(holdingKey{tag, h}, r.erc1155Held.vals[i].balance)
	}
}

// failed forgets what a write that failed may or may not have committed:
// its holdings may exist now, and any balance kept may be stale.
func (c *balanceCache) failed(tag int32, r *rowSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range r.erc20.keys {
		c.exists.Add(holdingKey{tag, h}.bytes())
	}
	for _, h := range r.erc1155Held.keys {
		c.exists.Add(holdingKey{tag, h}.bytes())
	}
	c.recent.Purge()
}

// rolledBack forgets the balances kept: a rollback (succeeded or not)
// may have changed them. Holdings it removed stay in the filter, which
// costs a round trip each, never a wrong answer.
func (c *balanceCache) rolledBack() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recent.Purge()
}
