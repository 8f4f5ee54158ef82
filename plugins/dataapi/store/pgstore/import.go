package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// ImportState is where a copy of an embedded store into the database
// stands.
type ImportState struct {
	// Started says the copy began; Position is where it resumes, and
	// Records how many records it copied.
	Started  bool
	Position []byte
	Records  int64
	// Finished says the chains' states were written: the copy is whole.
	Finished bool
}

// Import returns where the copy of source stands, and refuses a database
// that holds something else: chains another writer indexed, or an
// unfinished copy of another store.
func (s *Store) Import(ctx context.Context, source string) (ImportState, error) {
	var st ImportState
	err := s.pool.QueryRow(ctx, "SELECT position, records, finished_at IS NOT NULL FROM imports WHERE source = $1", source).
		Scan(&st.Position, &st.Records, &st.Finished)
	switch {
	case err == nil:
		st.Started = true
		return st, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return st, fmt.Errorf("pgstore: read imports: %w", err)
	}
	var other string
	err = s.pool.QueryRow(ctx, "SELECT source FROM imports WHERE finished_at IS NULL LIMIT 1").Scan(&other)
	switch {
	case err == nil:
		return st, fmt.Errorf("pgstore: the copy of %s into this database is not finished: finish it before copying another store", other)
	case !errors.Is(err, pgx.ErrNoRows):
		return st, fmt.Errorf("pgstore: read imports: %w", err)
	}
	var indexed bool
	if err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM blocks) OR EXISTS (SELECT 1 FROM chains WHERE next_block > 0)").Scan(&indexed); err != nil {
		return st, fmt.Errorf("pgstore: read chains: %w", err)
	}
	if indexed {
		return st, errors.New("pgstore: the database already holds indexed chains: copy an embedded store into an empty database")
	}
	return st, nil
}

// ImportChunk writes records an embedded store exported (a batch without
// its state), replacing the rows they make, and records that the copy of
// source has reached position, in one transaction: a copy that stops
// resumes after the last chunk written, and a chunk written twice leaves
// the rows as once.
func (s *Store) ImportChunk(ctx context.Context, source string, b *store.Batch, records int, position []byte) error {
	tag, err := s.ensureTag(ctx, b.Chain)
	if err != nil {
		return err
	}
	rows := collect(b)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		batch := rows.queue(tag, true)
		batch.Queue(`INSERT INTO imports (source, position, records) VALUES ($1, $2, $3)
			ON CONFLICT (source) DO UPDATE SET position = EXCLUDED.position, records = imports.records + EXCLUDED.records`,
			source, position, int64(records))
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		return fmt.Errorf("pgstore: import into chain %s: %w", b.Chain, err)
	}
	return nil
}

// FinishImport writes the chains' states, which say how far each is
// indexed, and marks the copy of source finished, in one transaction:
// only then may the indexer start, and it goes on from there.
func (s *Store) FinishImport(ctx context.Context, source string, states map[ids.ID]store.ChainState) error {
	tags := map[ids.ID]int32{}
	for chain := range states {
		tag, err := s.ensureTag(ctx, chain)
		if err != nil {
			return err
		}
		tags[chain] = tag
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for chain, st := range states {
			b.Queue("UPDATE chains SET evm_chain_id = $2, next_block = $3, cumulative_txs = $4 WHERE tag = $1",
				tags[chain], int64(st.EVMChainID), int64(st.Next), int64(st.CumulativeTxs))
		}
		b.Queue(`INSERT INTO imports (source, position, finished_at) VALUES ($1, '', now())
			ON CONFLICT (source) DO UPDATE SET finished_at = now()`, source)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("pgstore: finish the import of %s: %w", source, err)
	}
	return nil
}
