package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migrations are the schema's versions: NNNN_name.sql, applied in order,
// each in one transaction. A migration is never edited once released;
// later ones only add to what earlier versions read, so that API-only
// instances of the previous release keep working while the indexer
// upgrades the schema.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrationSteps are the Go steps of migrations, by name, run in the
// migration's transaction after its SQL: filling a new table from records
// SQL cannot read.
var migrationSteps = map[string]func(ctx context.Context, tx pgx.Tx) error{
	"contracts": backfillTokenTransfers,
}

// migration is one version of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the embedded migrations in order; their versions
// are 1, 2, ... without a gap.
func loadMigrations() ([]migration, error) {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	out := make([]migration, 0, len(files))
	for i, f := range files {
		base := path.Base(f)
		num, name, ok := strings.Cut(strings.TrimSuffix(base, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != i+1 {
			return nil, fmt.Errorf("pgstore: migration %s: want version %d as NNNN_name.sql", base, i+1)
		}
		b, err := migrations.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(b)})
	}
	return out, nil
}

// SchemaVersion is the version of the schema this build reads and writes.
func SchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil {
		panic(err) // the embedded files are checked by the tests
	}
	return len(ms)
}

// migrationLock serializes schema changes across processes.
const migrationLock int64 = writerLock + 1

// migrate applies the migrations the database lacks.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("pgstore: create schema_migrations: %w", err)
	}
	for _, m := range ms {
		if err := s.apply(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// apply runs one migration unless it was applied.
func (s *Store) apply(ctx context.Context, m migration) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	var done bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)", m.version).Scan(&done); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	if done {
		return nil
	}
	if _, err := tx.Exec(ctx, m.sql); err != nil {
		return fmt.Errorf("pgstore: apply migration %d (%s): %w", m.version, m.name, err)
	}
	if step := migrationSteps[m.name]; step != nil {
		if err := step(ctx, tx); err != nil {
			return fmt.Errorf("pgstore: apply migration %d (%s): %w", m.version, m.name, err)
		}
	}
	if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
		return fmt.Errorf("pgstore: record migration %d: %w", m.version, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: commit migration %d: %w", m.version, err)
	}
	return nil
}

// CheckSchema checks that the writer brought the schema to at least this
// build's version: an API-only instance serves only then.
func (s *Store) CheckSchema(ctx context.Context) error {
	var v int
	err := s.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "42P01": // undefined_table
		v = 0
	case err != nil:
		return fmt.Errorf("pgstore: read the schema version: %w", err)
	}
	if want := SchemaVersion(); v < want {
		return fmt.Errorf("pgstore: the database's schema is version %d, this build reads version %d: "+
			"start the indexer of this release first (it brings the schema up to date)", v, want)
	}
	return nil
}

// checkImports refuses a database with an unfinished import: its chains
// are not whole until dataapi migrate finishes.
func (s *Store) checkImports(ctx context.Context) error {
	var source string
	err := s.pool.QueryRow(ctx, "SELECT source FROM imports WHERE finished_at IS NULL LIMIT 1").Scan(&source)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgstore: read imports: %w", err)
	}
	return fmt.Errorf("pgstore: the copy of the embedded store %s into this database is not finished: "+
		"run dataapi migrate again to finish it before the indexer starts (docs/data-api.md, \"Scaling out\")", source)
}
