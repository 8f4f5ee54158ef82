package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// pgCrashRounds is how many times the crash test kills: the data module's
// process, and every fourth time the whole node.
const pgCrashRounds = 16

// pgCrashBacklog is how many transactions the chain holds before the
// data module first starts: its catch-up is where kills land inside
// writes.
const pgCrashBacklog = 3000

// pgCrashAcksPerKill is how many more transactions the load must have had
// acknowledged before each kill.
const pgCrashAcksPerKill = 4

// TestDataAPIPostgresCrash: the data module indexing into PostgreSQL is
// SIGKILLed at random moments, pgCrashRounds times (every fourth time the
// whole node, restarted on its data directory), first while it catches up
// on a chain of pgCrashBacklog transactions (writes of a hundred blocks:
// kills land inside them), then while transactions keep coming.
// Afterwards every table of its database holds exactly what the same
// chain indexed in one go into another database holds: nothing lost,
// nothing twice.
func TestDataAPIPostgresCrash(t *testing.T) {
	t.Parallel()
	rng := crashSeed(t)
	cluster := pgtest.New(t)
	db := cluster.NewDatabase(t)
	config := pgDataConfig(cluster.URL(db), "")
	opts := nodetest.Options{DataDir: t.TempDir(), Config: strings.Replace(config, "plugin: dataapi", "plugin: dataapi\n    enabled: false", 1),
		Args: []string{"--plugin-restart-backoff=5ms", "--plugin-restart-max-backoff=50ms"}}
	n := nodetest.Start(t, opts)
	token, forwarder := deployLoadContracts(t, n)
	sendBurst(t, n, token, forwarder, pgCrashBacklog)
	n.Stop(t)
	opts.Config = config
	n = nodetest.Start(t, opts)
	var current atomic.Pointer[nodetest.Node]
	current.Store(n)
	load := startDataLoad(t, current.Load, token, forwarder)
	defer load.stop()
	old := 0
	for round := range pgCrashRounds {
		// Each kill waits for its share of the load, so that the kills go
		// on under load however slow the machine is.
		want := pgCrashAcksPerKill * (round + 1)
		plugintest.Eventually(t, 2*time.Minute, func() error {
			if acked := load.ackedSoFar(); acked < want {
				return fmt.Errorf("%d transactions acknowledged before kill %d, want %d", acked, round+1, want)
			}
			return nil
		})
		if round%4 == 3 {
			time.Sleep(time.Duration(50+rng.IntN(300)) * time.Millisecond)
			n.Kill()
			n = nodetest.Start(t, opts)
			current.Store(n)
			continue
		}
		pid := n.WaitNewPlugin(t, "dataapi", old)
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("round %d: kill the data module %d: %v", round, pid, err)
		}
		old = pid
	}
	n.WaitNewPlugin(t, "dataapi", old)
	acked := load.stop()
	head := settledHead(t, n)
	waitDataHeight(t, n, head, 2*time.Minute)
	crashed := pgDump(t, cluster, db)
	n.Stop(t)

	// The reference: the same chain indexed without a kill.
	ref := cluster.NewDatabase(t)
	opts.Config = pgDataConfig(cluster.URL(ref), "")
	n = nodetest.Start(t, opts)
	waitDataHeight(t, n, head, 2*time.Minute)
	want := pgDump(t, cluster, ref)
	// PostgreSQL logs each session that ended inside a transaction.
	midWrite := strings.Count(cluster.Output(), "unexpected EOF on client connection with an open transaction")
	t.Logf("%d kills (%d inside a write), %d transactions acknowledged, %d blocks: %v", pgCrashRounds, midWrite, acked, head+1, want)
	if want["blocks"].rows != int64(head)+1 {
		t.Fatalf("the reference holds %d blocks, want %d", want["blocks"].rows, head+1)
	}
	for _, table := range sortedTables(want) {
		if crashed[table] != want[table] {
			t.Errorf("table %s after the kills: %d rows (%s), want %d rows (%s)", table, crashed[table].rows, crashed[table].sum, want[table].rows, want[table].sum)
		}
	}
}

// tableSum is a table's row count and the md5 of its rows, sorted.
type tableSum struct {
	rows int64
	sum  string
}

// String shows the row count.
func (s tableSum) String() string { return fmt.Sprint(s.rows) }

// pgDump sums every table of the data module's database: the data, each
// row naming its chain by blockchain ID, and of the published chains
// their description (not when it was written); the schema's history and
// the imports are left out.
func pgDump(t *testing.T, c *pgtest.Cluster, db string) map[string]tableSum {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL(db))
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
	out := map[string]tableSum{}
	for _, table := range tables {
		// A chain's tag is the order in which the chains were first
		// written, which the followers of its chains race for: a row names
		// its chain by blockchain ID instead.
		row := `(to_jsonb(x) - 'chain' - 'tag' || jsonb_build_object('blockchain', encode(c.blockchain_id, 'hex')))::text`
		join := `LEFT JOIN chains c ON c.tag = coalesce(to_jsonb(x)->>'chain', to_jsonb(x)->>'tag')::integer`
		if table == "chain_info" {
			row, join = "x.info::text", ""
		}
		var s tableSum
		q := fmt.Sprintf("SELECT count(*), coalesce(md5(string_agg(%s, E'\\n' ORDER BY %s)), '') FROM %s x %s", row, row, pgx.Identifier{table}.Sanitize(), join)
		if err := conn.QueryRow(ctx, q).Scan(&s.rows, &s.sum); err != nil {
			t.Fatal(err)
		}
		out[table] = s
	}
	return out
}

// sortedTables returns the tables of a dump in order.
func sortedTables(m map[string]tableSum) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
