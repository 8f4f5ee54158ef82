package pgstore

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
)

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType  string     `json:"Node Type"`
	IndexName string     `json:"Index Name"`
	Direction string     `json:"Scan Direction"`
	IndexCond string     `json:"Index Cond"`
	Plans     []planNode `json:"Plans"`
}

// String shows a plan on one line.
func (n planNode) String() string {
	s := n.NodeType
	if n.IndexName != "" {
		s += fmt.Sprintf(" %s %s [%s]", n.Direction, n.IndexName, n.IndexCond)
	}
	if len(n.Plans) > 0 {
		parts := make([]string, len(n.Plans))
		for i, p := range n.Plans {
			parts[i] = p.String()
		}
		s += " -> (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// literal writes a statement argument as SQL.
func literal(v any) string {
	switch v := v.(type) {
	case []byte:
		return `'\x` + hex.EncodeToString(v) + `'::bytea`
	case [][]byte:
		parts := make([]string, len(v))
		for i, b := range v {
			parts[i] = literal(b)
		}
		return "ARRAY[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// explain returns the plan of query with args, planned for those values
// (custom) or for any (generic, as a prepared statement may be after five
// runs).
func explain(t *testing.T, conn *pgx.Conn, query string, args []any, generic bool) planNode {
	t.Helper()
	ctx := context.Background()
	mode := "force_custom_plan"
	if generic {
		mode = "force_generic_plan"
	}
	lits := make([]string, len(args))
	for i, a := range args {
		lits[i] = literal(a)
	}
	if _, err := conn.Exec(ctx, "DEALLOCATE ALL; SET plan_cache_mode = "+mode+"; PREPARE q AS "+query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var out []struct{ Plan planNode }
	var raw []byte
	if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE q("+strings.Join(lits, ", ")+")", pgx.QueryExecModeSimpleProtocol).Scan(&raw); err != nil {
		t.Fatalf("explain %s: %v", query, err)
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out) != 1 {
		t.Fatalf("explain %s: %v %s", query, err, raw)
	}
	return out[0].Plan
}

// fillForPlans fills the list and balance tables of a database with a hot
// address (20,000 rows in each list, 300 tokens held) among 2,000 others,
// and analyzes them, so that the planner plans as on a real chain.
func fillForPlans(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	var sql strings.Builder
	sql.WriteString("INSERT INTO chains (blockchain_id) VALUES ('\\x01');\n")
	// addr(i) is a 20-byte address; the hot one is addr(0).
	const addr = "decode(lpad(to_hex(%s), 40, '0'), 'hex')"
	for _, l := range []listTable{addressTxsTable, erc721Table, erc1155Table, internalTable, deploymentsTable, tokenTransfersTable, nativeTable, erc20Table} {
		cols := append([]string{"chain", l.owner, "block"}, l.positions...)
		vals := []string{"1", fmt.Sprintf(addr, "CASE WHEN g % 2 = 0 THEN 0 ELSE g % 2000 END"), "g / 4"}
		for range l.positions {
			vals = append(vals, "g % 4")
		}
		fmt.Fprintf(&sql, "INSERT INTO %s (%s, record) SELECT %s, '\\x00' FROM generate_series(1, 40000) g;\n",
			l.name, strings.Join(cols, ", "), strings.Join(vals, ", "))
	}
	holder := fmt.Sprintf(addr, "CASE WHEN g % 2 = 0 THEN 0 ELSE g % 2000 END")
	token := fmt.Sprintf(addr, "1000000 + g / 2")
	id := "decode(lpad(to_hex(g % 3), 64, '0'), 'hex')"
	fmt.Fprintf(&sql, "INSERT INTO erc20_holdings SELECT 1, %s, %s, g %% 3, '\\x00' FROM generate_series(1, 600) g;\n", holder, token)
	fmt.Fprintf(&sql, "INSERT INTO erc20_history SELECT 1, %s, %s, b, b FROM generate_series(1, 600) g, generate_series(1, 30) b;\n", holder, token)
	fmt.Fprintf(&sql, "INSERT INTO erc1155_holdings SELECT 1, %s, %s, %s, g %% 3, '\\x00' FROM generate_series(1, 600) g;\n", holder, token, id)
	fmt.Fprintf(&sql, "INSERT INTO erc1155_history SELECT 1, %s, %s, %s, b, b FROM generate_series(1, 600) g, generate_series(1, 30) b;\n", holder, token, id)
	fmt.Fprintf(&sql, "INSERT INTO collectibles SELECT 1, %s, %s, %s, '\\x00' FROM generate_series(1, 600) g;\n", holder, token, id)
	sql.WriteString("ANALYZE;")
	if _, err := conn.Exec(context.Background(), sql.String()); err != nil {
		t.Fatal(err)
	}
}

// TestPagesAreIndexRangeScans: every list page, in both orders, first or
// later, and every balance page (now, at a block, after a cursor, within
// a token filter) is planned as one range scan of the index whose order is
// the list's, bounded by the cursor in the index condition, with no sort:
// for the values given and for any values (the generic plan a prepared
// statement may switch to). Balances at a block add one backward seek
// into the history per token; several tokens are one seek each, sorted.
func TestPagesAreIndexRangeScans(t *testing.T) {
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
	fillForPlans(t, conn)
	hot := make([]byte, 20)
	var plans strings.Builder
	for _, l := range []listTable{addressTxsTable, erc721Table, erc1155Table, internalTable, deploymentsTable, tokenTransfersTable, nativeTable, erc20Table} {
		for _, desc := range []bool{false, true} {
			for _, cursor := range []bool{false, true} {
				args := []any{1, hot, 0, int64(math.MaxInt64)}
				if cursor {
					args = append(args, 5000)
					for range l.positions {
						args = append(args, 2)
					}
				}
				args = append(args, 101)
				query := l.page(desc, cursor)
				for _, generic := range []bool{false, true} {
					plan := explain(t, conn, query, args, generic)
					fmt.Fprintf(&plans, "%s desc=%v cursor=%v generic=%v: %s\n", l.name, desc, cursor, generic, plan)
					scan := plan
					if scan.NodeType == "Limit" && len(scan.Plans) == 1 {
						scan = scan.Plans[0]
					}
					dir := map[bool]string{false: "Forward", true: "Backward"}[desc]
					if plan.NodeType != "Limit" || scan.NodeType != "Index Scan" || scan.IndexName != l.name+"_pkey" || scan.Direction != dir ||
						len(scan.Plans) > 0 || (cursor && !strings.Contains(scan.IndexCond, "ROW(")) {
						t.Errorf("%s (desc %v, cursor %v, generic %v) is not one %s range scan of %s_pkey: %s", l.name, desc, cursor, generic, dir, l.name, plan)
					}
				}
			}
		}
	}
	for _, bt := range []balanceTable{erc20Balances, erc1155Balances, collectibleRows} {
		for _, atBlock := range []bool{false, true} {
			if atBlock && bt.history == "" {
				continue
			}
			for _, cursor := range []bool{false, true} {
				for _, f := range []filter{allTokens, oneToken, someTokens} {
					args := []any{1, hot}
					if atBlock {
						args = append(args, 15)
					}
					if cursor {
						args = append(args, make([]byte, 20))
						if bt.withID {
							args = append(args, make([]byte, 32))
						}
					}
					switch f {
					case oneToken:
						args = append(args, make([]byte, 20))
					case someTokens:
						args = append(args, [][]byte{make([]byte, 20), append(make([]byte, 19), 1)})
					}
					args = append(args, 11)
					for _, generic := range []bool{false, true} {
						if generic && f == someTokens {
							continue // never prepared: planned for its values
						}
						plan := explain(t, conn, bt.page(atBlock, cursor, f), args, generic)
						fmt.Fprintf(&plans, "%s atBlock=%v cursor=%v filter=%v generic=%v: %s\n", bt.current, atBlock, cursor, f, generic, plan)
						if !balancePlanOK(plan, bt, atBlock, f) {
							t.Errorf("%s (at a block %v, cursor %v, filter %v, generic %v) is not one range scan of its index: %s",
								bt.current, atBlock, cursor, f, generic, plan)
						}
					}
				}
			}
		}
	}
	if path := os.Getenv("PGSTORE_PLANS"); path != "" {
		if err := os.WriteFile(path, []byte(plans.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// balancePlanOK reports whether a balance page's plan is a Limit over one
// forward range scan of the holder's rows (the partial index of the
// non-zero ones for the latest balances), with, at a block, one backward
// seek into the history per row (under a cache and the subquery's filter,
// as the planner likes). With several tokens it is one seek per token,
// driven by the token array, sorted.
func balancePlanOK(plan planNode, bt balanceTable, atBlock bool, f filter) bool {
	if plan.NodeType != "Limit" || len(plan.Plans) != 1 {
		return false
	}
	outerIndex := bt.current + "_pkey"
	if !atBlock && bt.nonZero != "" {
		outerIndex = bt.current + "_nonzero"
	}
	node := plan.Plans[0]
	if f == someTokens {
		if node.NodeType != "Sort" || len(node.Plans) != 1 {
			return false
		}
		node = node.Plans[0]
	}
	if atBlock {
		if node.NodeType != "Nested Loop" || len(node.Plans) != 2 {
			return false
		}
		inner := node.Plans[1]
		for (inner.NodeType == "Memoize" || inner.NodeType == "Subquery Scan") && len(inner.Plans) == 1 {
			inner = inner.Plans[0]
		}
		if inner.NodeType != "Limit" || len(inner.Plans) != 1 || inner.Plans[0].NodeType != "Index Scan" ||
			inner.Plans[0].IndexName != bt.history+"_pkey" || inner.Plans[0].Direction != "Backward" {
			return false
		}
		node = node.Plans[0]
	}
	if f == someTokens {
		if node.NodeType != "Nested Loop" || len(node.Plans) != 2 || node.Plans[0].NodeType != "Function Scan" {
			return false
		}
		node = node.Plans[1]
		if !strings.Contains(node.IndexCond, "token = f.token") {
			return false
		}
	}
	return (node.NodeType == "Index Scan" || node.NodeType == "Index Only Scan") && node.IndexName == outerIndex &&
		node.Direction == "Forward" && len(node.Plans) == 0
}
