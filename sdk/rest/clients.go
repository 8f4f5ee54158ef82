package rest

import (
	"fmt"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// clientTable holds the token buckets of anonymous clients by IP, at most
// capacity of them: when full, the client seen least recently is dropped
// (its next request starts with a full bucket).
type clientTable struct {
	limit Limit
	mu    sync.Mutex // makes finding or adding a client's bucket one step
	cache *lru.Cache[string, *rate.Limiter]
}

// newClientTable returns an empty table of buckets of limit, holding at
// most capacity clients.
func newClientTable(limit Limit, capacity int) (*clientTable, error) {
	cache, err := lru.New[string, *rate.Limiter](capacity)
	if err != nil {
		return nil, fmt.Errorf("anonymous client table: %w", err)
	}
	return &clientTable{limit: limit, cache: cache}, nil
}

// bucket returns the bucket of ip, making one when ip is new.
func (t *clientTable) bucket(ip string) *rate.Limiter {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b, ok := t.cache.Get(ip); ok {
		return b
	}
	b := t.limit.newBucket()
	t.cache.Add(ip, b)
	return b
}

// len returns how many clients the table holds.
func (t *clientTable) len() int { return t.cache.Len() }
