package pgstore

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
)

// TestChainTxsPagesAreIndexRangeScans: a page of a chain's transactions,
// all or of one status, in both orders, first or later, is one range scan
// of the primary key or of the status index, bounded by the cursor in the
// index condition, with no sort, for the values given and for any values.
func TestChainTxsPagesAreIndexRangeScans(t *testing.T) {
	ctx := context.Background()
	c := pgtest.New(t)
	u := c.URL(c.NewDatabase(t))
	s, err := Open(ctx, Options{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Two chains of 40,000 transactions, one in 20 failed.
	if _, err := conn.Exec(ctx, `INSERT INTO chains (blockchain_id) VALUES ('\x01'), ('\x02');
		INSERT INTO chain_txs SELECT c, g / 10, g % 10, g % 20 <> 0, '\x00' FROM generate_series(1, 40000) g, generate_series(1, 2) c;
		ANALYZE`); err != nil {
		t.Fatal(err)
	}
	for _, filtered := range []bool{false, true} {
		index := map[bool]string{false: "chain_txs_pkey", true: "chain_txs_by_status"}[filtered]
		for _, desc := range []bool{false, true} {
			for _, cursor := range []bool{false, true} {
				args := []any{1, 0, int64(math.MaxInt64)}
				if filtered {
					args = append(args, false)
				}
				if cursor {
					args = append(args, 2000, 5)
				}
				args = append(args, 101)
				for _, generic := range []bool{false, true} {
					plan := explain(t, conn, chainTxsPage(filtered, desc, cursor), args, generic)
					scan := plan
					if scan.NodeType == "Limit" && len(scan.Plans) == 1 {
						scan = scan.Plans[0]
					}
					dir := map[bool]string{false: "Forward", true: "Backward"}[desc]
					if plan.NodeType != "Limit" || scan.NodeType != "Index Scan" || scan.IndexName != index || scan.Direction != dir ||
						len(scan.Plans) > 0 || (cursor && !strings.Contains(scan.IndexCond, "ROW(")) {
						t.Errorf("chain_txs (status %v, desc %v, cursor %v, generic %v) is not one %s range scan of %s: %s",
							filtered, desc, cursor, generic, dir, index, plan)
					}
				}
			}
		}
	}
}
