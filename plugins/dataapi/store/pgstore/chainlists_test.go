package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

// pgBackend is the storetest backend of PostgreSQL, with the URL of each
// store's database.
func pgBackend() (storetest.Backend, map[store.Store]string) {
	urls := map[store.Store]string{}
	return storetest.Backend{
		Dump: func(t *testing.T, s store.Store) string { return dumpDatabase(t, urls[s]) },
		Open: func(t *testing.T) store.Store {
			s, u := openPG(t)
			urls[s] = u
			return s
		},
		Reopen: func(t *testing.T, s store.Store) store.Store {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := pgstore.Open(context.Background(), pgstore.Options{URL: urls[s]})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			urls[r] = urls[s]
			return r
		},
	}, urls
}

// TestChainLists: the chain list tests (storetest) on PostgreSQL.
func TestChainLists(t *testing.T) {
	be, _ := pgBackend()
	storetest.TestChainLists(t, be)
}

// TestBackfill: a database written by the release before migration 0003
// (the rows of its tables and their undo log removed, its backfill left
// to do) gets them when the writer opens it.
func TestBackfill(t *testing.T) {
	be, urls := pgBackend()
	storetest.TestBackfillChainLists(t, be, func(t *testing.T, s store.Store) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, urls[s])
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `
			DELETE FROM chain_txs; DELETE FROM address_native; DELETE FROM address_erc20;
			DELETE FROM undo_log WHERE tbl IN ('chain_txs'::regclass, 'address_native'::regclass, 'address_erc20'::regclass);
			INSERT INTO backfills (name) VALUES ('evmlists')`)
		if err != nil {
			t.Fatal(err)
		}
	})
}

// dumpDatabase returns every row of every table of the database at url,
// each table's rows in the order of their text.
func dumpDatabase(t *testing.T, url string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, table := range tables {
		var text string
		q := fmt.Sprintf(`SELECT coalesce(string_agg(r::text, E'\n' ORDER BY r::text), '') FROM %s r`, pgx.Identifier{table}.Sanitize())
		if err := conn.QueryRow(ctx, q).Scan(&text); err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		fmt.Fprintf(&out, "%s\n%s\n", table, text)
	}
	return out.String()
}
