package pgstore_test

import (
	"context"
	"fmt"
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
		// fmt prints a map in its keys' order.
		Dump: func(t *testing.T, s store.Store) string { return fmt.Sprint(tableDump(t, urls[s])) },
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
