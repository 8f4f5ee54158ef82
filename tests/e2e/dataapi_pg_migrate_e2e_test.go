package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
)

// TestDataAPIPostgresMigrate: a node whose data module indexed into its
// embedded store is stopped, `dataapi migrate` copies the store into
// PostgreSQL, and the node started again with the module on PostgreSQL
// answers every list, balance, block and transaction as before, then goes
// on indexing from where the embedded store was, counting nothing twice.
func TestDataAPIPostgresMigrate(t *testing.T) {
	t.Parallel()
	shared := fmt.Sprintf("      page-token-key: %q\n      public-url: https://data.example\n", replicaKey)
	opts := nodetest.Options{DataDir: t.TempDir(), Config: dataConfig + shared}
	n := nodetest.Start(t, opts)
	token, forwarder := deployLoadContracts(t, n)
	sendBurst(t, n, token, forwarder, 300)
	head := chainHead(t, n)
	waitDataHeight(t, n, head, time.Minute)
	sender := common.HexToAddress(evmLocalAddr)
	var paths []string
	for _, a := range append([]common.Address{sender, token, forwarder}, loadRecipients...) {
		base := "/v1/chains/43112/addresses/" + a.Hex() + "/"
		paths = append(paths, base+"transactions?pageSize=50", base+"transactions:listInternals?pageSize=50&sortOrder=asc",
			fmt.Sprintf("%sbalances:listErc20?blockNumber=%d", base, head), fmt.Sprintf("%sbalances:listErc20?blockNumber=%d", base, head/2),
			"/v1/chains/43112/contracts/"+a.Hex()+"/deployments", "/v1/address/"+a.Hex()+"/chains")
	}
	for b := uint64(0); b <= head; b += 7 {
		paths = append(paths, fmt.Sprintf("/v1/chains/43112/blocks/%d", b))
	}
	before := map[string][]string{}
	for _, p := range paths {
		before[p] = dataPages(t, n, p)
	}
	var atHead api.Block
	dataGet(t, n, fmt.Sprintf("/v1/chains/43112/blocks/%d", head), &atHead)
	n.Stop(t)

	dbURL := pgDatabase(t)
	_, plugins := nodetest.Binaries(t)
	store := filepath.Join(opts.DataDir, "modules", "data", "store")
	out, err := exec.Command(filepath.Join(plugins, "dataapi"), "migrate", "--store", store, "--to", dbURL, "--chunk", "500").CombinedOutput()
	if err != nil {
		t.Fatalf("dataapi migrate: %v\n%s", err, out)
	}
	t.Logf("dataapi migrate:\n%s", out)
	for _, want := range []string{"migrate: copying pebble:" + store, "migrate: transactions:", fmt.Sprintf("indexed to block %d; its indexer goes on from block %d", head, head+1), "migrate: done:"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("dataapi migrate says no %q:\n%s", want, out)
		}
	}

	opts.Config = pgDataConfig(dbURL, shared)
	n = nodetest.Start(t, opts)
	waitDataHeight(t, n, head, time.Minute)
	for _, p := range paths {
		if got := dataPages(t, n, p); strings.Join(got, "\n") != strings.Join(before[p], "\n") {
			t.Fatalf("GET %s on PostgreSQL:\n%s\nwant, as on the embedded store:\n%s", p, strings.Join(got, "\n"), strings.Join(before[p], "\n"))
		}
	}
	// It goes on from there.
	sendBurst(t, n, token, forwarder, 30)
	last := chainHead(t, n)
	waitDataHeight(t, n, last, time.Minute)
	var blk api.Block
	dataGet(t, n, fmt.Sprintf("/v1/chains/43112/blocks/%d", last), &blk)
	if want := fmt.Sprint(mustAtoi(t, atHead.CumulativeTransactions) + 30); blk.CumulativeTransactions != want {
		t.Errorf("block %d counts %s transactions, want %s: %s before the copy and 30 after", last, blk.CumulativeTransactions, want, atHead.CumulativeTransactions)
	}
	var page api.ListTransactionDetailsResponse
	dataGet(t, n, fmt.Sprintf("/v1/chains/43112/addresses/%s/transactions?pageSize=100&startBlock=%d", sender.Hex(), head+1), &page)
	if len(page.Transactions) != 30 {
		t.Errorf("the sender's transactions after the copy: %d, want 30", len(page.Transactions))
	}
}

// dataPages reads every page of a path of n's data API, each with its
// page token blanked.
func dataPages(t *testing.T, n *nodetest.Node, path string) []string {
	t.Helper()
	var out []string
	for {
		status, body, token := dataPage(t, n, path)
		out = append(out, fmt.Sprint(status, " ", body))
		if token == "" {
			return out
		}
		path = withToken(path, token)
	}
}

// mustAtoi reads a decimal number.
func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
