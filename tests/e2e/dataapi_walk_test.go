package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// walkParallel is how many addresses dataWalk reads at once.
const walkParallel = 4

// walkPageToken stands for a nextPageToken in the answers dataWalk
// records: a token is signed by the node that made it (docs/rest.md, "Page
// tokens"), so two nodes' tokens for the same page differ.
const walkPageToken = `"<page token>"`

// walkMetadataTime matches when a node read a token's metadata
// (metadataLastUpdatedTimestamp), which dataWalk records as walkReadTime:
// two nodes read it at different times.
var walkMetadataTime = regexp.MustCompile(`"metadataLastUpdatedTimestamp":[0-9]+`)

// walkReadTime stands for a metadataLastUpdatedTimestamp in the answers
// dataWalk records.
const walkReadTime = `"metadataLastUpdatedTimestamp":"<read time>"`

// walkStranger is an address no chain has touched: every list of it is
// walked too.
const walkStranger = "0x000000000000000000000000000000000000dEaD"

var (
	walkAddress = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	walkHash    = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
)

// dataWalk reads everything the data API of the node at nodeURL answers
// about one EVM chain (chainID, as the API takes it: the EVM chain ID or
// the blockchain ID) indexed to block head, and returns it as a map from
// request to answer, so that two nodes, or two indexes of the same chain,
// can be compared answer by answer (sameWalk): the answers of a node that
// followed a chain through forks must be those of a fresh index of the
// final chain, and a chain indexed through its RPC must answer what the
// node running it answers.
//
// It reads the twelve EVM endpoints of docs/data-api.md: /v1/chains; every
// block from 0 to head, by number and by hash; for every address, lists 1
// to 4 in both orders and lists 5 to 8, every page, at page sizes 100 and 3
// (500 and 3 for 5 to 7), balances 5 and 6 also at every block; every
// transaction those lists name (endpoint 9); and the chains of every
// address (12). The addresses are seeds and everything the answers name
// (any string that is an address: senders, recipients, tokens, created
// contracts), read until no answer names a new one, and one address that
// took part in nothing.
//
// A request is recorded as its path and query, with " page N" for the Nth
// page (from 1) of a list, and its answer as "<status> <body>" with each
// nextPageToken replaced by walkPageToken and each time metadata was read
// by walkReadTime. Every request is made: an answer other than 200 is
// recorded, not a failure.
func dataWalk(t *testing.T, nodeURL, chainID string, head uint64, seeds ...string) map[string]string {
	t.Helper()
	w := &walker{t: t, node: nodeURL, chain: "/v1/chains/" + url.PathEscape(chainID), answers: map[string]string{}, txs: map[string]bool{}}
	w.get("/v1/chains", "")
	for n := uint64(0); n <= head; n++ {
		if b, ok := w.get(fmt.Sprintf("%s/blocks/%d", w.chain, n), ""); ok {
			var block struct {
				BlockHash string `json:"blockHash"`
			}
			if err := json.Unmarshal(b, &block); err != nil || !walkHash.MatchString(block.BlockHash) {
				t.Fatalf("block %d of chain %s at %s: no blockHash in %s", n, chainID, nodeURL, b)
			}
			w.get(fmt.Sprintf("%s/blocks/%s", w.chain, block.BlockHash), "")
		}
	}
	seen, fetched := map[string]bool{}, map[string]bool{}
	next := append([]string{walkStranger}, seeds...)
	for len(next) > 0 {
		var wave []string
		for _, a := range next {
			if k := strings.ToLower(a); !seen[k] {
				seen[k] = true
				wave = append(wave, a)
			}
		}
		slices.Sort(wave)
		next = w.addresses(wave, head)
		var hashes []string
		for h := range w.txs {
			if !fetched[h] {
				fetched[h] = true
				hashes = append(hashes, h)
			}
		}
		slices.Sort(hashes)
		for _, h := range hashes {
			if b, ok := w.get(w.chain+"/transactions/"+h, ""); ok {
				next = append(next, w.names(b)...)
			}
		}
	}
	return w.answers
}

// walker holds what dataWalk has read.
type walker struct {
	t     *testing.T
	node  string
	chain string // /v1/chains/{chainId}

	mu      sync.Mutex
	answers map[string]string
	txs     map[string]bool // transaction hashes the lists name
}

// addresses walks the endpoints of each address, walkParallel at a time,
// and returns the addresses their answers name. The main loop reads w.txs
// only between calls.
func (w *walker) addresses(list []string, head uint64) []string {
	var (
		mu    sync.Mutex
		found []string
		wg    sync.WaitGroup
		slots = make(chan struct{}, walkParallel)
	)
	for _, a := range list {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			names := w.address(a, head)
			mu.Lock()
			found = append(found, names...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return found
}

// address walks the endpoints of one address and returns the addresses
// their answers name.
func (w *walker) address(a string, head uint64) []string {
	var bodies [][]byte
	lists := func(path string, sizes []int, queries ...string) {
		for _, q := range queries {
			for _, size := range sizes {
				bodies = append(bodies, w.pages(path, fmt.Sprintf("pageSize=%d%s", size, q))...)
			}
		}
	}
	base := w.chain + "/addresses/" + a
	for _, list := range []string{"/transactions", "/transactions:listErc721", "/transactions:listErc1155", "/transactions:listInternals"} {
		lists(base+list, []int{100, 3}, "&sortOrder=asc", "&sortOrder=desc")
	}
	for _, list := range []string{"/balances:listErc20", "/balances:listErc1155"} {
		lists(base+list, []int{500, 3}, "")
		for n := uint64(0); n <= head; n++ {
			lists(base+list, []int{500}, fmt.Sprintf("&blockNumber=%d", n))
		}
	}
	lists(base+"/balances:listCollectibles", []int{500, 3}, "")
	lists(w.chain+"/contracts/"+a+"/deployments", []int{100, 3}, "")
	w.get("/v1/address/"+a+"/chains", "")

	var names []string
	for _, b := range bodies {
		names = append(names, w.names(b)...)
	}
	return names
}

// names returns the addresses an answer names, and notes the
// transactions it names (txHash).
func (w *walker) names(body []byte) []string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	var names []string
	walkStrings(v, "", func(key, s string) {
		switch {
		case walkAddress.MatchString(s):
			names = append(names, s)
		case key == "txHash" && walkHash.MatchString(s):
			w.mu.Lock()
			w.txs[strings.ToLower(s)] = true
			w.mu.Unlock()
		}
	})
	return names
}

// pages reads a list from its first page (query) to its last, following
// nextPageToken, and returns the bodies of its pages.
func (w *walker) pages(path, query string) [][]byte {
	var bodies [][]byte
	token := ""
	for page := 1; ; page++ {
		q := query
		if token != "" {
			q += "&pageToken=" + url.QueryEscape(token)
		}
		b, ok := w.get(path, q, fmt.Sprintf("%s?%s page %d", path, query, page))
		if !ok {
			return bodies
		}
		bodies = append(bodies, b)
		var p struct {
			NextPageToken string `json:"nextPageToken"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			w.t.Fatalf("GET %s?%s at %s: %v", path, q, w.node, err)
		}
		if token = p.NextPageToken; token == "" {
			return bodies
		}
		if page > 10_000 {
			w.t.Fatalf("GET %s?%s at %s: more than 10000 pages", path, query, w.node)
		}
	}
}

// get GETs path?query and records its answer under name (path?query when
// none is given); it returns the body, and whether the status was 200.
func (w *walker) get(path, query string, name ...string) ([]byte, bool) {
	u := w.node + path
	if query != "" {
		u += "?" + query
	}
	status, body := restGet(w.t, context.Background(), u)
	key := strings.TrimPrefix(u, w.node)
	if len(name) > 0 {
		key = name[0]
	}
	recorded := body
	var p struct {
		NextPageToken string `json:"nextPageToken"`
	}
	if json.Unmarshal(body, &p) == nil && p.NextPageToken != "" {
		quoted, _ := json.Marshal(p.NextPageToken)
		recorded = bytes.ReplaceAll(body, quoted, []byte(walkPageToken))
	}
	recorded = walkMetadataTime.ReplaceAll(recorded, []byte(walkReadTime))
	w.mu.Lock()
	w.answers[key] = fmt.Sprintf("%d %s", status, recorded)
	w.mu.Unlock()
	return body, status == 200
}

// walkStrings calls f with every string of a decoded JSON value and the
// key of the member holding it ("" in an array).
func walkStrings(v any, key string, f func(key, s string)) {
	switch v := v.(type) {
	case string:
		f(key, v)
	case []any:
		for _, x := range v {
			walkStrings(x, key, f)
		}
	case map[string]any:
		for k, x := range v {
			walkStrings(x, k, f)
		}
	}
}

// sameWalk fails t, listing the differences (the first few in full), when
// two walks of dataWalk differ: a request one made and the other did not,
// or a different answer.
func sameWalk(t *testing.T, nameA string, a map[string]string, nameB string, b map[string]string) {
	t.Helper()
	var diffs []string
	for k, va := range a {
		vb, ok := b[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: only %s has it: %s", k, nameA, va))
		case va != vb:
			diffs = append(diffs, fmt.Sprintf("%s:\n  %s: %s\n  %s: %s", k, nameA, va, nameB, vb))
		}
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: only %s has it: %s", k, nameB, vb))
		}
	}
	if len(diffs) == 0 {
		t.Logf("%s and %s answer the same %d requests identically", nameA, nameB, len(a))
		return
	}
	slices.Sort(diffs)
	const shown = 20
	t.Errorf("%s and %s differ on %d of %d requests; the first %d:\n%s", nameA, nameB, len(diffs), len(a), min(shown, len(diffs)), strings.Join(diffs[:min(shown, len(diffs))], "\n"))
}
