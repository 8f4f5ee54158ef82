package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/testchain"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// dcChain is the chain of TestDataAPICrash: every kind of activity the
// data API derives, from five senders, at most 15 transactions a block, so
// that the indexer writes many times and a kill has many moments to land
// between two writes.
var dcChain = testchain.Options{Txs: 4000, TxsPerBlock: 15, Mix: testchain.Varied}

// dcKills is how many times each crash run kills while the module indexes
// (at least 10); every third one is followed by a kill during start-up.
const dcKills = 10

// dcPageSize is the page size of the dump's lists: small enough that the
// busy addresses' lists take many pages.
const dcPageSize = 50

// dcConfig runs the C-Chain on the chain file alone (block-production
// none: no block is ever added) and the data module with the indexer's
// batches given; public-url keeps /v1/chains the same on every port.
func dcConfig(t *testing.T, file string, perRequest, inFlight int) string {
	return fmt.Sprintf(`
chains:
  - alias: C
    vm: evm
    genesis: %s
    config: {block-production: none, import-chain-file: %q}
modules:
  - name: data
    plugin: dataapi
    config:
      public-url: http://node.invalid
      rate-limit: {anonymous: {per-second: 0}}
      indexer: {blocks-per-request: %d, requests-in-flight: %d}
`, testchainGenesis(t), file, perRequest, inFlight)
}

// testchainGenesis is the genesis of internal/testchain's chains on one
// line, as a chain entry's inline genesis.
func testchainGenesis(t *testing.T) string {
	var genesis bytes.Buffer
	if err := json.Compact(&genesis, []byte(testchain.GenesisJSON)); err != nil {
		t.Fatal(err)
	}
	return genesis.String()
}

// TestDataAPICrash: the data module indexes a pre-built chain while it is
// SIGKILLed at random moments (the module's process alone, then the whole
// node), dcKills times each, with some kills during start-up (and, for
// the node, one during the import of the chain file). Once indexing has
// caught up, a dump of everything the API serves (dcDump) is byte for byte
// the dump of an uninterrupted run on the same chain, and the module's
// health shows the chain's head: every block indexed once, nothing
// counted twice.
func TestDataAPICrash(t *testing.T) {
	t.Parallel()
	rng := crashSeed(t)
	chain, err := testchain.Generate(t.TempDir(), dcChain)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("chain: %d transactions in %d blocks, %d addresses: %v", len(chain.Txs), chain.Head, len(chain.Addresses), chain.Kinds)

	// The uninterrupted run, with the default batches.
	n := nodetest.Start(t, nodetest.Options{Config: dcConfig(t, chain.File, 100, 4)})
	dcWaitIndexed(t, n, chain.Head)
	want := dcCheck(t, n, chain, nil)
	n.Stop(t)
	t.Logf("dump: %d bytes", len(want))

	t.Run("module", func(t *testing.T) {
		n := nodetest.Start(t, nodetest.Options{Config: dcConfig(t, chain.File, 3, 2),
			Args: []string{"--plugin-restart-backoff=5ms", "--plugin-restart-max-backoff=20ms"}})
		old, during := 0, 0
		for i, target := range dcTargets(rng, chain.Head) {
			if i%3 == 2 {
				// While the new process starts: the handshake, opening the
				// store, reading the state.
				pid := n.WaitNewPlugin(t, "dataapi", old)
				time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
				dcKillPID(t, pid)
				old = pid
			}
			pid := n.WaitNewPlugin(t, "dataapi", old)
			dcWaitIndexed(t, n, target)
			time.Sleep(time.Duration(rng.IntN(10)) * time.Millisecond)
			if !dcIndexed(n, chain.Head) {
				during++
			}
			dcKillPID(t, pid)
			old = pid
		}
		n.WaitNewPlugin(t, "dataapi", old)
		dcWaitIndexed(t, n, chain.Head)
		t.Logf("%d module kills while indexing, %d during start-up", during, dcKills/3)
		if during < dcKills {
			t.Errorf("only %d of %d kills landed while the module indexed", during, dcKills)
		}
		dcCheck(t, n, chain, want)
	})

	t.Run("node", func(t *testing.T) {
		// The batches change from one start to the next (small ones, so
		// that the rest of the chain takes many writes): what is indexed
		// must not depend on how it was read.
		opts := nodetest.Options{DataDir: t.TempDir()}
		start := func(wait bool) *nodetest.Node {
			o := opts
			o.Config = dcConfig(t, chain.File, 1+rng.IntN(5), 1+rng.IntN(4))
			o.NoWait = !wait
			return nodetest.Start(t, o)
		}
		// The first start imports the chain file: killed during the
		// import or soon after.
		s := start(false)
		time.Sleep(time.Duration(rng.IntN(2000)) * time.Millisecond)
		dcKillNode(t, s)
		during := 0
		for i, target := range dcTargets(rng, chain.Head) {
			if i%3 == 2 {
				s := start(false)
				time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
				dcKillNode(t, s)
			}
			n := start(true)
			dcWaitIndexed(t, n, target)
			time.Sleep(time.Duration(rng.IntN(10)) * time.Millisecond)
			if !dcIndexed(n, chain.Head) {
				during++
			}
			dcKillNode(t, n)
		}
		n := start(true)
		dcWaitIndexed(t, n, chain.Head)
		t.Logf("%d node kills while indexing, %d during start-up and one at the import", during, dcKills/3)
		if during < dcKills {
			t.Errorf("only %d of %d kills landed while the module indexed", during, dcKills)
		}
		dcCheck(t, n, chain, want)
	})
}

// dcTargets returns dcKills distinct block numbers in order, at random up
// to 70% of the head: each kill waits until its block is indexed, so that
// it lands while the rest, many writes of a few blocks, is being indexed.
func dcTargets(rng *rand.Rand, head uint64) []uint64 {
	seen := map[uint64]bool{}
	var out []uint64
	for len(out) < dcKills {
		b := 1 + rng.Uint64N(head*70/100)
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return out
}

// dcKillPID SIGKILLs a process.
func dcKillPID(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
}

// dcKillNode SIGKILLs the host and waits until its plugins are gone too,
// so that the next start finds their stores unlocked.
func dcKillNode(t *testing.T, n *nodetest.Node) {
	t.Helper()
	plugins := n.ChildPIDs()
	n.Kill()
	nodetest.WaitGone(t, 20*time.Second, plugins)
}

// dcClient reads the API; a request that fails (the node or the module is
// down) is answered by the caller.
var dcClient = &http.Client{Timeout: 30 * time.Second}

// dcGet GETs a URL: its status and body, or an error.
func dcGet(url string) (int, []byte, error) {
	resp, err := dcClient.Get(url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// dcIndexed says whether the data API serves block b of the C-Chain.
func dcIndexed(n *nodetest.Node, b uint64) bool {
	status, _, err := dcGet(fmt.Sprintf("%s/v1/chains/%d/blocks/%d", n.URL, testchain.ChainID, b))
	return err == nil && status == http.StatusOK
}

// dcWaitIndexed waits until the data API serves block b.
func dcWaitIndexed(t *testing.T, n *nodetest.Node, b uint64) {
	t.Helper()
	plugintest.EventuallyEvery(t, 2*time.Minute, 3*time.Millisecond, func() error {
		if !dcIndexed(n, b) {
			return fmt.Errorf("block %d not indexed", b)
		}
		return nil
	})
}

// dcCheck checks the module's health (the chain's head indexed, no lag,
// no error) and dumps the API; with want, the dump must be want.
func dcCheck(t *testing.T, n *nodetest.Node, chain *testchain.Chain, want []byte) []byte {
	t.Helper()
	// The module records its height in memory just after the write that
	// serves the block: wait for the height, then check the rest.
	head := float64(chain.Head)
	var data dcHealth
	plugintest.Eventually(t, 30*time.Second, func() error {
		if data = dcModuleHealth(t, n); data.Details.Chains["C"]["height"] != head {
			return fmt.Errorf("health of the data module: %+v, want height %d", data, chain.Head)
		}
		return nil
	})
	if c := data.Details.Chains["C"]; !data.Healthy || c["height"] != head || c["accepted"] != head || c["lag"] != 0.0 || c["error"] != nil {
		t.Errorf("health of the data module: %+v, want height and accepted %d, lag 0", data, chain.Head)
	}
	got := dcDump(t, n.URL, chain)
	if want != nil && !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("the dump differs from the uninterrupted run's at line %d:\n got: %.2000s\nwant: %.2000s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("the dump has %d lines, the uninterrupted run's %d", len(gl), len(wl))
	}
	return got
}

// dcHealth is the data module's entry in /ext/health.
type dcHealth struct {
	Healthy bool `json:"healthy"`
	Details struct {
		Chains map[string]map[string]any `json:"chains"`
	} `json:"details"`
}

// dcModuleHealth reads the data module's health.
func dcModuleHealth(t *testing.T, n *nodetest.Node) dcHealth {
	t.Helper()
	status, body, err := dcGet(n.URL + "/ext/health")
	if err != nil {
		t.Fatal(err)
	}
	var health struct {
		Checks map[string]dcHealth `json:"checks"`
	}
	if err := json.Unmarshal(body, &health); err != nil {
		t.Fatalf("health %d %s: %v", status, body, err)
	}
	return health.Checks["module/data"]
}

// pageTokenValue matches a page token's value: tokens are signed with each
// data directory's own key and carry their time, so the dump keeps only
// whether there is one.
var pageTokenValue = regexp.MustCompile(`"nextPageToken":"[^"]*"`)

// addressValue matches an address anywhere in an answer.
var addressValue = regexp.MustCompile(`"0x[0-9a-fA-F]{40}"`)

// dcDump reads everything the data API serves about the chain, one line per
// answer ("<path> <status> <body>", page tokens blanked), in a fixed order:
// /v1/chains; every block by number and by hash; every transaction; then,
// for every address of the scenario or of any transaction, its four
// transaction lists in both orders, its ERC-20 and ERC-1155 balances now and
// at two earlier blocks, its collectibles, its deployments and its
// chains, every list followed through its pages. Along the way it checks
// what must hold whatever the run: the blocks count every transaction
// once, and the address lists hold each transaction once, the same in both
// orders, all of them together being the chain's.
func dcDump(t *testing.T, url string, chain *testchain.Chain) []byte {
	t.Helper()
	chainPath := fmt.Sprintf("/v1/chains/%d", testchain.ChainID)
	paths := []string{"/v1/chains"}
	byNumber := map[int]bool{} // the paths of the blocks by number
	for i, h := range chain.Hashes {
		byNumber[len(paths)] = true
		paths = append(paths, fmt.Sprintf("%s/blocks/%d", chainPath, i+1), chainPath+"/blocks/"+h.Hex())
	}
	for _, h := range chain.Txs {
		paths = append(paths, chainPath+"/transactions/"+h.Hex())
	}
	first := dcParallel(len(paths), func(i int) []dcAnswer { return []dcAnswer{dcRead(t, url, paths[i])} })

	var cumulative string
	counted := uint64(0)
	addrs := map[common.Address]bool{}
	for _, a := range chain.Addresses {
		addrs[a] = true
	}
	for i, a := range first {
		if a[0].status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", paths[i], a[0].status, a[0].body)
		}
		if byNumber[i] {
			var b api.Block
			if err := json.Unmarshal(a[0].body, &b); err != nil {
				t.Fatal(err)
			}
			counted += b.TxCount
			cumulative = b.CumulativeTransactions
		}
		for _, m := range addressValue.FindAll(a[0].body, -1) {
			addrs[common.HexToAddress(string(m[1:len(m)-1]))] = true
		}
	}
	if counted != uint64(len(chain.Txs)) || cumulative != fmt.Sprint(len(chain.Txs)) {
		t.Errorf("the blocks count %d transactions, the head block %s cumulated; the chain holds %d", counted, cumulative, len(chain.Txs))
	}

	var list []common.Address
	for a := range addrs {
		list = append(list, a)
	}
	slices.SortFunc(list, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	var (
		mu     sync.Mutex
		listed = map[string]bool{}
	)
	second := dcParallel(len(list), func(i int) []dcAnswer {
		a := list[i].Hex()
		var out []dcAnswer
		base := chainPath + "/addresses/" + a
		for _, l := range []string{"/transactions", "/transactions:listErc721", "/transactions:listErc1155", "/transactions:listInternals"} {
			var orders [2][]string
			for o, order := range []string{"desc", "asc"} {
				pages := dcPages(t, url, fmt.Sprintf("%s%s?pageSize=%d&sortOrder=%s", base, l, dcPageSize, order))
				out = append(out, pages...)
				orders[o] = dcItemKeys(t, pages)
			}
			slices.Reverse(orders[1])
			if !slices.Equal(orders[0], orders[1]) {
				t.Errorf("%s%s: the two orders list different items", base, l)
			}
			if l == "/transactions" {
				mu.Lock()
				for _, h := range orders[0] {
					listed[h] = true
				}
				mu.Unlock()
			}
		}
		for _, at := range []uint64{0, chain.Head / 3, 2 * chain.Head / 3} {
			q := ""
			if at > 0 {
				q = fmt.Sprintf("&blockNumber=%d", at)
			}
			for _, l := range []string{"/balances:listErc20", "/balances:listErc1155"} {
				out = append(out, dcPages(t, url, fmt.Sprintf("%s%s?pageSize=%d%s", base, l, dcPageSize, q))...)
			}
		}
		out = append(out, dcPages(t, url, fmt.Sprintf("%s/balances:listCollectibles?pageSize=%d", base, dcPageSize))...)
		out = append(out, dcPages(t, url, fmt.Sprintf("%s/contracts/%s/deployments?pageSize=%d", chainPath, a, dcPageSize))...)
		out = append(out, dcRead(t, url, "/v1/address/"+a+"/chains"))
		return out
	})
	if len(listed) != len(chain.Txs) {
		t.Errorf("the addresses' transaction lists hold %d transactions, the chain %d", len(listed), len(chain.Txs))
	}
	for _, h := range chain.Txs {
		if !listed[strings.ToLower(h.Hex())] {
			t.Errorf("transaction %s is in no address's list", h)
			break
		}
	}

	var dump bytes.Buffer
	for _, answers := range append(first, second...) {
		for _, a := range answers {
			fmt.Fprintf(&dump, "%s %d %s\n", a.path, a.status, pageTokenValue.ReplaceAll(bytes.TrimSpace(a.body), []byte(`"nextPageToken":"…"`)))
		}
	}
	return dump.Bytes()
}

// dcAnswer is one answer of the API.
type dcAnswer struct {
	path   string
	status int
	body   []byte
}

// dcRead GETs a path of the API, failing the test when the node does not
// answer.
func dcRead(t *testing.T, url, path string) dcAnswer {
	status, body, err := dcGet(url + path)
	if err != nil {
		t.Errorf("GET %s: %v", path, err)
	}
	return dcAnswer{path: path, status: status, body: body}
}

// dcPages reads a list through every page (each must be a 200); the paths
// of later pages are the first's with the page's number.
func dcPages(t *testing.T, url, path string) []dcAnswer {
	var out []dcAnswer
	token := ""
	for page := 1; ; page++ {
		p := path
		if token != "" {
			p += "&pageToken=" + token
		}
		a := dcRead(t, url, p)
		a.path = fmt.Sprintf("%s#%d", path, page)
		out = append(out, a)
		var next struct {
			NextPageToken string `json:"nextPageToken"`
		}
		if a.status != http.StatusOK || json.Unmarshal(a.body, &next) != nil {
			t.Errorf("GET %s = %d %.300s", p, a.status, a.body)
			return out
		}
		if next.NextPageToken == "" {
			return out
		}
		if page == 10_000 {
			t.Errorf("GET %s: still another page after %d", path, page)
			return out
		}
		token = next.NextPageToken
	}
}

// dcItemKeys returns what identifies each item of a list's pages: the
// transaction's hash (with the log index or the internal transaction's
// position among the item's members when it is not a transaction list).
func dcItemKeys(t *testing.T, pages []dcAnswer) []string {
	var keys []string
	for _, p := range pages {
		var list struct {
			Transactions []json.RawMessage `json:"transactions"`
		}
		if err := json.Unmarshal(p.body, &list); err != nil {
			t.Errorf("%s: %v", p.path, err)
			return nil
		}
		for _, item := range list.Transactions {
			var tx struct {
				Native struct {
					TxHash string `json:"txHash"`
				} `json:"nativeTransaction"`
				TxHash string `json:"txHash"`
			}
			if err := json.Unmarshal(item, &tx); err != nil {
				t.Errorf("%s: %v", p.path, err)
				return nil
			}
			key := tx.Native.TxHash
			if key == "" {
				key = string(item) // a transfer or an internal transaction: the whole item
			}
			keys = append(keys, strings.ToLower(key))
		}
	}
	if seen := map[string]bool{}; len(keys) > 0 {
		for _, k := range keys {
			if seen[k] {
				t.Errorf("%s lists %.100s twice", pages[0].path, k)
			}
			seen[k] = true
		}
	}
	return keys
}

// dcParallel runs n jobs on four goroutines and returns their answers in
// job order.
func dcParallel(n int, job func(int) []dcAnswer) [][]dcAnswer {
	out := make([][]dcAnswer, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				out[i] = job(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
