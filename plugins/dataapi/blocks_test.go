package dataapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/api"
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
	var (
		out    []api.Block
		tokens []string
		token  string
	)
	for page := 0; ; page++ {
		path := fmt.Sprintf("/v1/chains/%s/blocks?pageSize=%d", chain, pageSize)
		if token != "" {
			path += "&pageToken=" + url.QueryEscape(token)
		}
		var resp api.ListEvmBlocksResponse
		e.getJSON(path, &resp)
		if len(resp.Blocks) > pageSize || (resp.NextPageToken != "" && len(resp.Blocks) != pageSize) {
			e.t.Fatalf("page %d of %s: %d blocks, next %q", page, path, len(resp.Blocks), resp.NextPageToken)
		}
		out = append(out, resp.Blocks...)
		if token = resp.NextPageToken; token == "" {
			return out, tokens
		}
		tokens = append(tokens, token)
	}
}
