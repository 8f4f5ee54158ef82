package pgstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/internal/offline"
	"github.com/chainhost/chainhost/plugins/dataapi/migrate"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
)

// cancelAfter is a progress writer that cancels a copy after some lines.
type cancelAfter struct {
	mu     sync.Mutex
	lines  int
	cancel context.CancelFunc
	out    bytes.Buffer
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(p)
	if w.lines -= bytes.Count(p, []byte("\n")); w.lines <= 0 && w.cancel != nil {
		w.cancel()
	}
	return len(p), nil
}

// tableDump returns every row of the data tables of a database, as text,
// table by table, in order (the copies' bookkeeping left out).
func tableDump(t *testing.T, u string) map[string]string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'
		AND table_name NOT IN ('schema_migrations', 'imports')`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, table := range tables {
		var dump string
		q := fmt.Sprintf("SELECT coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '') FROM %s x", pgx.Identifier{table}.Sanitize())
		if err := conn.QueryRow(ctx, q).Scan(&dump); err != nil {
			t.Fatal(err)
		}
		out[table] = dump
	}
	return out
}

// TestMigrate: an embedded store copied into PostgreSQL by dataapi
// migrate, in small chunks, stopped half way and run again, answers every
// read as the embedded store does; until the copy is finished no indexer
// may use the database. The indexer then goes on from where the embedded
// store was, and the database holds exactly, row for row, what indexing
// all the blocks into PostgreSQL in one go makes.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	c, blocks := scenarioChain(25)
	half := len(blocks) / 2
	dir := t.TempDir()
	kv, err := kvstore.Open(dir, kvstore.Options{Engine: kvstore.EngineLevelDB})
	if err != nil {
		t.Fatal(err)
	}
	if err := offline.Index(ctx, kv, chain, 43112, blocks[:half], 3); err != nil {
		t.Fatal(err)
	}
	want := reads(t, kv, c, blocks)
	if err := kv.Close(); err != nil {
		t.Fatal(err)
	}

	u := cluster.URL(cluster.NewDatabase(t))
	stopCtx, stop := context.WithCancel(ctx)
	w := &cancelAfter{lines: 12, cancel: stop}
	err = migrate.Run(stopCtx, migrate.Options{Store: dir, URL: u, Chunk: 40, Progress: w, Every: time.Nanosecond})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped copy: %v\n%s", err, w.out.String())
	}
	if _, err := pgstore.Open(ctx, pgstore.Options{URL: u}); err == nil || !strings.Contains(err.Error(), "is not finished") {
		t.Fatalf("an indexer on a database with an unfinished copy: %v", err)
	}
	var out bytes.Buffer
	if err := migrate.Run(ctx, migrate.Options{Store: dir, URL: u, Chunk: 40, Progress: &out, Every: time.Nanosecond}); err != nil {
		t.Fatalf("the copy resumed: %v\n%s", err, out.String())
	}
	for _, line := range []string{"migrate: resuming the copy of leveldb:", "migrate: ERC-20 balance changes:", "migrate: done:",
		fmt.Sprintf("indexed to block %d; its indexer goes on from block %d", half-1, half)} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("the progress says no %q:\n%s", line, out.String())
		}
	}
	out.Reset()
	if err := migrate.Run(ctx, migrate.Options{Store: dir, URL: u, Progress: &out}); err != nil || !strings.Contains(out.String(), "was copied already") {
		t.Errorf("a third run: %v, %s", err, out.String())
	}

	pg, err := pgstore.Open(ctx, pgstore.Options{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	got := reads(t, pg, c, blocks)
	for _, k := range sortedKeys(want) {
		if got[k] != want[k] {
			t.Fatalf("after the copy, %s:\n got %s\nwant %s", k, clip(got[k]), clip(want[k]))
		}
	}
	// The indexer goes on.
	if err := offline.Index(ctx, pg, chain, 43112, blocks[half:], 3); err != nil {
		t.Fatal(err)
	}
	pg.Close()
	direct, directURL := openPG(t)
	if err := offline.Index(ctx, direct, chain, 43112, blocks, 3); err != nil {
		t.Fatal(err)
	}
	copied, indexed := tableDump(t, u), tableDump(t, directURL)
	for table, rows := range indexed {
		if copied[table] != rows {
			t.Errorf("table %s differs: copied and then indexed\n%s\nindexed in one go\n%s", table, clip(copied[table]), clip(rows))
		}
	}
	if !strings.Contains(indexed["address_txs"], "\n") || len(copied) != len(indexed) {
		t.Errorf("tables %d and %d; address_txs %q", len(copied), len(indexed), clip(indexed["address_txs"]))
	}
}
