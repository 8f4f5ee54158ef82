package pgstore_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

func TestContractReads(t *testing.T) {
	be, _ := pgBackend()
	storetest.TestContractReads(t, be)
}

// TestBackfillTokenTransfers: a database of the previous release (schema
// version 2: no token_transfers) gets the table filled by migration 0004,
// its rows logged for the blocks with undo records.
func TestBackfillTokenTransfers(t *testing.T) {
	be, urls := pgBackend()
	storetest.TestBackfillTokenTransfers(t, be, func(t *testing.T, s store.Store) store.Store {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, urls[s])
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		for _, q := range []string{
			"DELETE FROM undo_log WHERE tbl = 'token_transfers'::regclass",
			"DROP TABLE token_transfers",
			"DELETE FROM schema_migrations WHERE name = 'contracts'",
		} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatal(q, ": ", err)
			}
		}
		return be.Reopen(t, s)
	})
}
