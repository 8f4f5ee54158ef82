// Package pgstore is the data API's PostgreSQL backend (docs/data-api.md,
// "Scaling out"): the same store.Store as the embedded backend, on a
// database that one indexer writes and any number of API-only instances
// read. Its schema is versioned and embedded (migrations/), applied by the
// writer when it opens the database; every list page is one index range
// scan (keyset pagination, never OFFSET) in either order.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Options configures Open.
type Options struct {
	// URL is the connection URL (or key=value string) of the database;
	// what it leaves out comes from the PG* environment variables and
	// ~/.pgpass, as with libpq.
	URL string
	// ReadOnly opens the database for an API-only instance: no schema
	// change, no write, sessions read-only (a read replica works); it
	// connects when first used (CheckSchema says whether the database is
	// ready).
	ReadOnly bool
	// MaxConns is the size of the connection pool; 0 means 8.
	MaxConns int
	// Import opens the database for dataapi migrate, which may resume an
	// unfinished copy; any other writer refuses a database with one.
	Import bool
	// Logger takes the progress of a backfill on open; nil discards.
	Logger hclog.Logger
}

// Store is the PostgreSQL store.Store.
type Store struct {
	pool     *pgxpool.Pool
	readOnly bool
	// lock is the writer's session holding the writer lock: one indexer
	// per database.
	lock *pgxpool.Conn
	// balances answers the writer's balance reads it can; nil for other
	// stores.
	balances *balanceCache

	mu   sync.RWMutex
	tags map[ids.ID]int32
}

var _ store.Store = (*Store)(nil)

// writerLock is the advisory lock key the writer holds for as long as it
// runs: "chainhos" in ASCII.
const writerLock int64 = 0x636861696e686f73

// ErrReadOnly is returned by the writes of a read-only store.
var ErrReadOnly = errors.New("pgstore: the store is read-only (an API-only instance)")

// Open connects to the database. A writer takes the writer lock (a second
// indexer on the same database is refused) and brings the schema up to
// date; a read-only store connects when first used.
func Open(ctx context.Context, opts Options) (_ *Store, err error) {
	cfg, err := pgxpool.ParseConfig(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connection URL: %w", err)
	}
	cfg.MaxConns = 8
	if opts.MaxConns > 0 {
		cfg.MaxConns = int32(opts.MaxConns)
	}
	params := cfg.ConnConfig.RuntimeParams
	if params["application_name"] == "" {
		params["application_name"] = "chainhost-dataapi"
	}
	if opts.ReadOnly {
		params["default_transaction_read_only"] = "on"
	} else {
		// As the embedded store, writes do not wait for the disk: a crash
		// of the database loses at most the last writes whole, which the
		// indexer makes again from the state it finds.
		params["synchronous_commit"] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	s := &Store{pool: pool, readOnly: opts.ReadOnly, tags: map[ids.ID]int32{}}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if opts.ReadOnly {
		return s, nil
	}
	if s.lock, err = pool.Acquire(ctx); err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	var locked bool
	if err := s.lock.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", writerLock).Scan(&locked); err != nil {
		return nil, fmt.Errorf("pgstore: take the writer lock: %w", err)
	}
	if !locked {
		return nil, errors.New("pgstore: another writer (an indexer, or dataapi migrate) holds this database: " +
			"one indexer per database; API-only instances open it read-only")
	}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	if !opts.Import {
		if err := s.checkImports(ctx); err != nil {
			return nil, err
		}
		if s.balances, err = loadBalanceCache(ctx, s); err != nil {
			return nil, err
		}
		if opts.Logger == nil {
			opts.Logger = hclog.NewNullLogger()
		}
		if err := s.backfillChainLists(ctx, opts.Logger); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// closeTimeout bounds the release of the writer lock in Close.
const closeTimeout = 5 * time.Second

// Close releases the writer lock and closes the pool.
func (s *Store) Close() error {
	if s.lock != nil {
		// Unlocked here, not only by the end of the session, which the
		// server sees a moment after the client closed it: a writer
		// opening the database right after this one closed it finds the
		// lock free.
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		_, _ = s.lock.Exec(ctx, "SELECT pg_advisory_unlock($1)", writerLock)
		cancel()
		_ = s.lock.Conn().Close(context.Background())
		s.lock.Release()
		s.lock = nil
	}
	s.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	return nil
}

// tagOf returns the tag of chain, if it has one.
func (s *Store) tagOf(ctx context.Context, chain ids.ID) (int32, bool, error) {
	s.mu.RLock()
	t, ok := s.tags[chain]
	s.mu.RUnlock()
	if ok {
		return t, true, nil
	}
	err := s.pool.QueryRow(ctx, "SELECT tag FROM chains WHERE blockchain_id = $1", chain[:]).Scan(&t)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("pgstore: read the tag of chain %s: %w", chain, err)
	}
	s.mu.Lock()
	s.tags[chain] = t
	s.mu.Unlock()
	return t, true, nil
}

// ensureTag returns the tag of chain, giving it one the first time.
func (s *Store) ensureTag(ctx context.Context, chain ids.ID) (int32, error) {
	if t, ok, err := s.tagOf(ctx, chain); err != nil || ok {
		return t, err
	}
	var t int32
	err := s.pool.QueryRow(ctx, `INSERT INTO chains (blockchain_id) VALUES ($1)
		ON CONFLICT (blockchain_id) DO UPDATE SET blockchain_id = EXCLUDED.blockchain_id RETURNING tag`, chain[:]).Scan(&t)
	if err != nil {
		return 0, fmt.Errorf("pgstore: tag chain %s: %w", chain, err)
	}
	s.mu.Lock()
	s.tags[chain] = t
	s.mu.Unlock()
	return t, nil
}
