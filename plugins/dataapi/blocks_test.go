package dataapi_test

import (
	"cmp"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestChainAndLatestBlocks: /v1/chains/{chainId} is the chain's item of
// /v1/chains, by either of its IDs; /v1/chains/{chainId}/blocks lists every
// indexed block newest first, each as blocks/{blockId} answers it, in
// pages of any size; its page tokens are bound to the list and the chain.
func TestChainAndLatestBlocks(t *testing.T) {
	e, c, _ := scenarioEnv(t, 30)
	var chains api.ListChainsResponse
	e.getJSON("/v1/chains", &chains)
	for _, id := range []string{"43112", chainC.ID.String()} {
		var one api.ChainInfo
		e.getJSON("/v1/chains/"+id, &one)
		if fmt.Sprint(one) != fmt.Sprint(chains.Chains[0]) {
			t.Errorf("/v1/chains/%s = %+v, want %+v", id, one, chains.Chains[0])
		}
	}

	var want []api.Block
	for n := int(c.Head()); n >= 0; n-- {
		var b api.Block
		e.getJSON(fmt.Sprintf("/v1/chains/43112/blocks/%d", n), &b)
		want = append(want, b)
	}
	for _, size := range []int{1, 7, len(want), 100} {
		got, tokens := allBlocks(e, "43112", size)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("blocks in pages of %d: %d blocks, want the %d of blocks/{blockId}", size, len(got), len(want))
		}
		if size == 7 {
			// The same token goes on by the blockchain ID; on another list it is foreign.
			var page api.ListEvmBlocksResponse
			e.getJSON("/v1/chains/"+chainC.ID.String()+"/blocks?pageSize=7&pageToken="+url.QueryEscape(tokens[0]), &page)
			if fmt.Sprint(page.Blocks) != fmt.Sprint(want[7:14]) {
				t.Errorf("the second page by blockchain ID: %+v", page.Blocks)
			}
			e.wantError("/v1/chains/43112/addresses/"+alice.Hex()+"/transactions?pageToken="+url.QueryEscape(tokens[0]),
				http.StatusBadRequest, "pageToken: not a valid page token for this request")
		}
	}
	var txs api.ListTransactionDetailsResponse
	e.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/transactions?pageSize=1", &txs)
	e.wantError("/v1/chains/43112/blocks?pageToken="+url.QueryEscape(txs.NextPageToken), http.StatusBadRequest,
		"pageToken: not a valid page token for this request")
	for path, message := range map[string]string{
		"/v1/chains/43112/blocks?pageSize=0":   `pageSize: must be an integer from 1 to 100, got "0"`,
		"/v1/chains/43112/blocks?pageSize=101": `pageSize: must be an integer from 1 to 100, got "101"`,
		"/v1/chains/43112/blocks?pageToken=x":  `pageToken: not a valid page token for this request`,
	} {
		e.wantError(path, http.StatusBadRequest, message)
	}
	for _, path := range []string{"/v1/chains/99999", "/v1/chains/99999/blocks"} {
		e.wantError(path, http.StatusNotFound, `chain "99999" not found: use an EVM chain ID or a blockchain ID from /v1/chains`)
	}
}

// allBlocks pages through a chain's latest blocks with pageSize, following
// nextPageToken to the end; it returns the blocks and the tokens met.
func allBlocks(e *testEnv, chain string, pageSize int) ([]api.Block, []string) {
	e.t.Helper()
	return pages(e, "/v1/chains/"+chain+"/blocks?", pageSize, func(p api.ListEvmBlocksResponse) ([]api.Block, string) {
		return p.Blocks, p.NextPageToken
	})
}

// TestAllLatestBlocks: /v1/chains/allBlocks lists the blocks of every EVM
// chain, newest first by timestamp (then by EVM chain ID, then newest
// first), each as the chain's own list has it, in pages of any size.
func TestAllLatestBlocks(t *testing.T) {
	c, d := fakeevm.New(43112), fakeevm.New(99999)
	for range 5 {
		b := c.NewBlock()
		b.Tx(alice, &bob, big.NewInt(1), nil)
		b.Commit()
	}
	for range 3 {
		b := d.NewBlock()
		b.Tx(alice, &bob, big.NewInt(1), nil)
		b.Commit()
	}
	e := startEnv(t, envOptions{infos: []host.ChainInfo{chainC, chainD}, chains: map[ids.ID]*fakeevm.Chain{chainC.ID: c, chainD.ID: d}})
	e.waitIndexed("C", c.Head())
	e.waitIndexed("dchain", d.Head())

	ofC, _ := allBlocks(e, "43112", 100)
	ofD, _ := allBlocks(e, "99999", 100)
	want := append(slices.Clone(ofC), ofD...)
	evmID := func(b api.Block) uint64 { n, _ := strconv.ParseUint(b.ChainID, 10, 64); return n }
	slices.SortStableFunc(want, func(a, b api.Block) int { // each chain's blocks are newest first already
		return cmp.Or(cmp.Compare(b.BlockTimestamp, a.BlockTimestamp), cmp.Compare(evmID(a), evmID(b)))
	})
	if len(want) != 6+4 {
		t.Fatalf("the chains have %d blocks, want 10", len(want))
	}
	for _, size := range []int{1, 3, len(want), 100} {
		got, _ := pages[api.ListEvmBlocksResponse](e, "/v1/chains/allBlocks?network=fuji", size, func(p api.ListEvmBlocksResponse) ([]api.Block, string) {
			return p.Blocks, p.NextPageToken
		})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("all blocks in pages of %d:\n%v\nwant\n%v", size, got, want)
		}
	}
	var none api.ListEvmBlocksResponse
	e.getJSON("/v1/chains/allBlocks?network=mainnet", &none)
	if len(none.Blocks) != 0 || none.NextPageToken != "" {
		t.Errorf("the blocks of mainnet: %+v", none)
	}
	var first api.ListEvmBlocksResponse
	e.getJSON("/v1/chains/allBlocks?pageSize=1", &first)
	var ofOne api.ListEvmBlocksResponse
	e.getJSON("/v1/chains/43112/blocks?pageSize=1", &ofOne)
	const invalid = "pageToken: not a valid page token for this request"
	for path, message := range map[string]string{
		"/v1/chains/allBlocks?pageSize=0":                                                     `pageSize: must be an integer from 1 to 100, got "0"`,
		"/v1/chains/allBlocks?pageSize=101":                                                   `pageSize: must be an integer from 1 to 100, got "101"`,
		"/v1/chains/allBlocks?network=moon":                                                   `network: must be one of mainnet|fuji|testnet, got "moon"`,
		"/v1/chains/allBlocks?pageToken=" + url.QueryEscape(ofOne.NextPageToken):              invalid,
		"/v1/chains/allBlocks?network=fuji&pageToken=" + url.QueryEscape(first.NextPageToken): invalid,
		"/v1/chains/43112/blocks?pageToken=" + url.QueryEscape(first.NextPageToken):           invalid,
	} {
		e.wantError(path, http.StatusBadRequest, message)
	}
}

// pages reads a list at path with pageSize to its end, following
// nextPageToken; items gives a page's items and token.
func pages[P, I any](e *testEnv, path string, pageSize int, items func(P) ([]I, string)) ([]I, []string) {
	e.t.Helper()
	var (
		out    []I
		tokens []string
		token  string
	)
	for page := 0; ; page++ {
		p := fmt.Sprintf("%s&pageSize=%d", path, pageSize) // path ends with ? or a parameter
		if token != "" {
			p += "&pageToken=" + url.QueryEscape(token)
		}
		var resp P
		e.getJSON(p, &resp)
		got, next := items(resp)
		if len(got) > pageSize || (next != "" && len(got) != pageSize) {
			e.t.Fatalf("page %d of %s: %d items, next %q", page, p, len(got), next)
		}
		out = append(out, got...)
		if token = next; token == "" {
			return out, tokens
		}
		tokens = append(tokens, token)
	}
}
