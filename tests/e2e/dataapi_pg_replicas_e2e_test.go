package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// replicaKey is the page token key the instances of the replica test
// share.
const replicaKey = "0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de"

// replicaReaderRole is the API instances' role, made before the indexer
// creates the tables: it may read every table the indexer (the superuser
// postgres) makes, now and in later migrations, and nothing else
// (docs/data-api.md, "Scaling out").
const replicaReaderRole = `CREATE ROLE api LOGIN;
GRANT USAGE ON SCHEMA public TO api;
ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT SELECT ON TABLES TO api;`

// replicaRounds is how many times the replica test reads while the
// indexer writes, and replicaWindow how many of the last blocks a round
// reads.
const (
	replicaRounds = 5
	replicaWindow = 30
)

// TestDataAPIPostgresReplicas: one node indexes the C-Chain into
// PostgreSQL while transactions keep coming; two API-only nodes (no
// chains, the data module in the API role, a read-only database role,
// the shared page token key) serve the same database, and a third serves
// a streaming replica of it (a hot standby). A client that sends each
// request to the next instance in turn (a round-robin balancer) reads
// every list page by page: the pages of a block window that every
// instance has indexed are the same whichever instance answers, and the
// same as the indexer node's; a list still growing at its head loses and
// repeats nothing across the instances of the primary; balances at a
// block, chains and transactions are the same everywhere.
func TestDataAPIPostgresReplicas(t *testing.T) {
	t.Parallel()
	cluster := pgtest.New(t)
	db := cluster.NewDatabase(t)
	if err := cluster.Exec(context.Background(), db, replicaReaderRole); err != nil {
		t.Fatal(err)
	}
	shared := fmt.Sprintf("      page-token-key: %q\n      public-url: https://data.example\n", replicaKey)
	indexer := nodetest.Start(t, nodetest.Options{Config: pgDataConfig(cluster.URL(db), shared)})
	token, forwarder := deployLoadContracts(t, indexer)
	waitDataHeight(t, indexer, chainHead(t, indexer), time.Minute)
	apiConfig := func(dbURL string) string {
		return "chains: []\n" + pgDataConfig(dbURL, shared+fmt.Sprintf("      role: api\n      upstream-url: %q\n", indexer.URL))
	}
	replicas := []*nodetest.Node{nodetest.Start(t, nodetest.Options{Config: apiConfig(cluster.UserURL(db, "api"))}),
		nodetest.Start(t, nodetest.Options{Config: apiConfig(cluster.UserURL(db, "api"))})}
	standby := nodetest.Start(t, nodetest.Options{Config: apiConfig(cluster.NewStandby(t).UserURL(db, "api"))})
	all := append([]*nodetest.Node{indexer}, replicas...)
	all = append(all, standby)
	// Without public-url, an API instance's rpcUrl and wsUrl are the
	// indexing node's: it runs no chain itself.
	direct := nodetest.Start(t, nodetest.Options{Config: "chains: []\n" + pgDataConfig(cluster.UserURL(db, "api"),
		fmt.Sprintf("      page-token-key: %q\n      role: api\n      upstream-url: %q\n", replicaKey, indexer.URL))})
	checkChainURLsAnswer(t, direct)

	load := startDataLoad(t, func() *nodetest.Node { return indexer }, token, forwarder)
	defer load.stop()
	sender := common.HexToAddress(evmLocalAddr)
	addrs := []common.Address{sender, token, forwarder, loadRecipients[0]}
	lists := []string{"transactions", "transactions:listInternals", "transactions:listErc721"}
	checked := 0
	for round := range replicaRounds {
		// Wait for the load to add blocks, then take a height every
		// instance has (they read one database).
		waitDataHeight(t, replicas[0], uint64(5*round+4), time.Minute)
		height, _ := dataHeight(t, replicas[0])
		// What the standby has replayed too.
		waitDataHeight(t, standby, height, time.Minute)
		// The last blocks, so that a round reads as much as the first.
		from := max(height, replicaWindow) - replicaWindow
		for _, a := range addrs {
			base := "/v1/chains/43112/addresses/" + a.Hex() + "/"
			for _, list := range lists {
				for _, order := range []string{"desc", "asc"} {
					window := fmt.Sprintf("%s%s?pageSize=4&sortOrder=%s&startBlock=%d&endBlock=%d", base, list, order, from, height+1)
					checked += readRoundRobin(t, all, window)
				}
				growing := readGrowing(t, replicas, fmt.Sprintf("%s%s?pageSize=3&startBlock=%d", base, list, from))
				within := itemsOf(t, all[0], fmt.Sprintf("%s%s?pageSize=100&startBlock=%d&endBlock=%d", base, list, from, height+1))
				for _, item := range within {
					if !growing[item] {
						t.Fatalf("%s%s read page by page across the instances misses %s of the indexed blocks", base, list, item)
					}
				}
			}
			for _, path := range []string{
				fmt.Sprintf("%sbalances:listErc20?blockNumber=%d", base, height), fmt.Sprintf("/v1/address/%s/chains", a.Hex()),
				fmt.Sprintf("/v1/chains/43112/contracts/%s/deployments", a.Hex()), fmt.Sprintf("/v1/chains/43112/blocks/%d", height),
			} {
				checked += readRoundRobin(t, all, path)
			}
		}
		checked += readRoundRobin(t, all, "/v1/chains")
	}
	acked := load.stop()
	head := settledHead(t, indexer)
	for _, n := range all {
		waitDataHeight(t, n, head, time.Minute)
	}
	// At rest, every list of every address is the same everywhere.
	for _, a := range append(addrs, loadRecipients[1:]...) {
		for _, list := range lists {
			checked += readRoundRobin(t, all, "/v1/chains/43112/addresses/"+a.Hex()+"/"+list+"?pageSize=100")
		}
	}
	t.Logf("%d transactions sent during %d rounds; %d pages read alike on the indexer, two API instances on the primary and one on a standby", acked, replicaRounds, checked)
	if acked < 20 {
		t.Fatalf("only %d transactions were sent: the indexer hardly wrote during the reads", acked)
	}
}

// checkChainURLsAnswer checks that every chain n's /v1/chains lists
// answers eth_chainId with its chain ID at its rpcUrl and at its wsUrl.
func checkChainURLsAnswer(t *testing.T, n *nodetest.Node) {
	t.Helper()
	var list struct {
		Chains []struct {
			ChainID string `json:"chainId"`
			RPCURL  string `json:"rpcUrl"`
			WSURL   string `json:"wsUrl"`
		} `json:"chains"`
	}
	plugintest.Eventually(t, time.Minute, func() error {
		status, body := dataGetBounded(t, n.URL+"/v1/chains")
		if err := json.Unmarshal(body, &list); status != http.StatusOK || err != nil || len(list.Chains) == 0 {
			return fmt.Errorf("GET /v1/chains = %d %s (%v), want chains", status, body, err)
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range list.Chains {
		for _, url := range []string{c.RPCURL, c.WSURL} {
			ec, err := ethclient.DialContext(ctx, url)
			if err != nil {
				t.Fatalf("chain %s: dial %s: %v", c.ChainID, url, err)
			}
			id, err := ec.ChainID(ctx)
			ec.Close()
			if err != nil || id.String() != c.ChainID {
				t.Fatalf("chain %s: eth_chainId at %s = %v (%v), want %s", c.ChainID, url, id, err, c.ChainID)
			}
		}
	}
}

// readRoundRobin reads every page of path, each from the next node in
// turn with the token the previous page gave, and each also from every
// other node with the same token: every node must answer alike. It
// returns how many pages it read.
func readRoundRobin(t *testing.T, nodes []*nodetest.Node, path string) int {
	t.Helper()
	for page := 0; ; page++ {
		var first string
		var token string
		for i, n := range nodes {
			status, body, tok := dataPage(t, n, path)
			if status != http.StatusOK {
				t.Fatalf("GET %s on node %d = %d %s", path, i, status, body)
			}
			if i == 0 {
				first = body
			} else if body != first {
				t.Fatalf("GET %s: node 0 answers\n\t%s\nnode %d answers\n\t%s", path, first, i, body)
			}
			if i == page%len(nodes) {
				token = tok
			}
		}
		if token == "" {
			return page + 1
		}
		path = withToken(path, token)
	}
}

// listItem is the place and identity of an item of an address's list.
type listItem struct {
	NativeTransaction *struct {
		BlockNumber string `json:"blockNumber"`
		BlockIndex  int    `json:"blockIndex"`
		TxHash      string `json:"txHash"`
	} `json:"nativeTransaction"`
	BlockNumber string `json:"blockNumber"`
	TxHash      string `json:"txHash"`
	To          struct {
		Address string `json:"address"`
	} `json:"to"`
	From struct {
		Address string `json:"address"`
	} `json:"from"`
}

// key identifies an item: its transaction and, for a transfer or an
// internal transaction, its parties.
func (it listItem) key() string {
	if it.NativeTransaction != nil {
		return it.NativeTransaction.TxHash
	}
	return it.TxHash + " " + it.From.Address + ">" + it.To.Address
}

// items decodes the items of a list answer.
func items(t *testing.T, body string) ([]listItem, string) {
	t.Helper()
	var page struct {
		NextPageToken string     `json:"nextPageToken"`
		Transactions  []listItem `json:"transactions"`
	}
	if err := json.Unmarshal([]byte(body), &page); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return page.Transactions, page.NextPageToken
}

// itemsOf reads every item of a list from one node.
func itemsOf(t *testing.T, n *nodetest.Node, path string) []string {
	t.Helper()
	var out []string
	for {
		status, body := dataGetBounded(t, n.URL+path)
		if status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, status, body)
		}
		page, next := items(t, string(body))
		for _, it := range page {
			out = append(out, it.key())
		}
		if next == "" {
			return out
		}
		path = withToken(path, next)
	}
}

// readGrowing reads a list newest first, page by page, each page from the
// next node in turn, while blocks are added at its head: no item may come
// twice, and the items must come newest first. It returns the items read.
func readGrowing(t *testing.T, nodes []*nodetest.Node, path string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	last := ""
	for page := 0; ; page++ {
		status, body := dataGetBounded(t, nodes[page%len(nodes)].URL+path)
		if status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, status, body)
		}
		list, next := items(t, string(body))
		for _, it := range list {
			k := it.key()
			if seen[k] {
				t.Fatalf("%s: %s comes twice", path, k)
			}
			seen[k] = true
			place := it.BlockNumber
			if it.NativeTransaction != nil {
				place = fmt.Sprintf("%s/%d", it.NativeTransaction.BlockNumber, it.NativeTransaction.BlockIndex)
			}
			if last != "" && later(place, last) {
				t.Fatalf("%s: %s after %s, newest first", path, place, last)
			}
			last = place
		}
		if next == "" {
			return seen
		}
		path = withToken(path, next)
	}
}

// later reports whether block place a ("n" or "n/index") is after b.
func later(a, b string) bool {
	var an, ai, bn, bi int
	fmt.Sscanf(strings.Replace(a, "/", " ", 1), "%d %d", &an, &ai)
	fmt.Sscanf(strings.Replace(b, "/", " ", 1), "%d %d", &bn, &bi)
	return an > bn || (an == bn && ai > bi)
}
