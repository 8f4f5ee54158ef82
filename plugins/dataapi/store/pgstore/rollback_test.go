package pgstore_test

import (
	"context"
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

// TestRollback: the rollback tests (storetest) on PostgreSQL, an API-only
// instance reading along.
func TestRollback(t *testing.T) {
	be, urls := pgBackend()
	be.Replica = func(t *testing.T, s store.Store) store.Reader {
		r, err := pgstore.Open(context.Background(), pgstore.Options{URL: urls[s], ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	storetest.TestRollback(t, be)
}
