package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
)

// TestCluster: a cluster starts, takes a database and queries as an
// unprivileged server, and is gone after Stop.
func TestCluster(t *testing.T) {
	c, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u, err := c.CreateDatabase(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	var super bool
	var runner string
	if err := conn.QueryRow(ctx, "SELECT current_setting('is_superuser') = 'on', current_database()").Scan(&super, &runner); err != nil {
		t.Fatal(err)
	}
	if !super || runner != "one" {
		t.Errorf("superuser %v, database %q", super, runner)
	}
	conn.Close(ctx)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := pgx.Connect(ctx, u); err == nil {
		t.Error("the cluster answers after Stop")
	}
}
