package dataapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestBadRequests: every parameter at fault is a 400 naming it.
func TestBadRequests(t *testing.T) {
	e, _, s := scenarioEnv(t, 3)
	const a = "/v1/chains/43112/addresses/0xA11CE00000000000000000000000000000000001/"
	for _, tc := range []struct{ path, message string }{
		{"/v1/chains/43112/addresses/0xzz/transactions", `address: must be an address, 0x and 40 hex digits, got "0xzz"`},
		{"/v1/chains/43112/addresses/A11CE00000000000000000000000000000000001aa/transactions", `address: must be an address, 0x and 40 hex digits, got "A11CE00000000000000000000000000000000001aa"`},
		{a + "transactions?pageSize=0", `pageSize: must be an integer from 1 to 100, got "0"`},
		{a + "transactions:listErc721?pageSize=101", `pageSize: must be an integer from 1 to 100, got "101"`},
		{a + "balances:listErc20?pageSize=501", `pageSize: must be an integer from 1 to 500, got "501"`},
		{a + "balances:listCollectibles?pageSize=abc", `pageSize: must be an integer from 1 to 500, got "abc"`},
		{a + "transactions?pageSize=1&pageSize=2", `pageSize: must be given at most once, got 2 values`},
		{a + "transactions:listInternals?startBlock=x", `startBlock: must be a non-negative 64-bit integer, got "x"`},
		{a + "transactions:listErc1155?endBlock=-1", `endBlock: must be a non-negative 64-bit integer, got "-1"`},
		{a + "transactions?startBlock=5&endBlock=5", `endBlock: must be above startBlock (5), got "5": endBlock is exclusive`},
		{a + "transactions?endBlock=0", `endBlock: must be above 0 (it is exclusive), got "0"`},
		{a + "transactions?sortOrder=up", `sortOrder: must be one of asc|desc, got "up"`},
		{a + "transactions?pageSize=0&sortOrder=DESC", `pageSize: must be an integer from 1 to 100, got "0"; sortOrder: must be one of asc|desc, got "DESC"`},
		{a + "balances:listErc20?currency=btc", `currency: must be one of usd|eur|aud|cad|chf|clp|cny|czk|dkk|gbp|hkd|huf|jpy|nzd, got "btc"`},
		{a + "balances:listErc20?filterSpamTokens=yes", `filterSpamTokens: must be true or false, got "yes"`},
		{a + "balances:listErc20?contractAddresses=" + tokA.Hex() + ",0x1", `contractAddresses: must be an address, 0x and 40 hex digits, got "0x1"`},
		{a + "balances:listErc1155?contractAddress=nope", `contractAddress: must be an address, 0x and 40 hex digits, got "nope"`},
		{a + "balances:listCollectibles?contractAddress=0x12", `contractAddress: must be an address, 0x and 40 hex digits, got "0x12"`},
		{a + "balances:listErc20?blockNumber=latest", `blockNumber: must be a block number (decimal digits), got "latest"`},
		{a + "balances:listErc1155?blockNumber=0x5", `blockNumber: must be a block number (decimal digits), got "0x5"`},
		{"/v1/chains/43112/transactions/0x12", `txHash: must be a hash, 0x and 64 hex digits, got "0x12"`},
		{"/v1/chains/43112/blocks/xyz", `blockId: must be a block number or a block hash (0x and 64 hex digits), got "xyz"`},
		{"/v1/chains/43112/blocks/0x12", `blockId: must be a block number or a block hash (0x and 64 hex digits), got "0x12"`},
		{"/v1/chains/43112/blocks/-1", `blockId: must be a block number or a block hash (0x and 64 hex digits), got "-1"`},
		{"/v1/chains/43112/contracts/0xABC/deployments", `address: must be an address, 0x and 40 hex digits, got "0xABC"`},
		{"/v1/chains/43112/contracts/" + alice.Hex() + "/deployments?pageSize=101", `pageSize: must be an integer from 1 to 100, got "101"`},
		{"/v1/chains?network=moon", `network: must be one of mainnet|fuji|testnet, got "moon"`},
		{"/v1/chains?feature=nft", `feature: must be one of nftIndexing|webhooks|teleporter, got "nft"`},
		{"/v1/address/0x1/chains", `address: must be an address, 0x and 40 hex digits, got "0x1"`},
		{"/v1/networks/moon/blockchains/x-chain/vertices/abc", `network: must be one of mainnet|fuji|testnet, got "moon"`},
		{"/v1/networks/fuji/blockchains/x-chain/vertices/abc", `vertexHash: must be a vertex ID (CB58), got "abc"`},
		{"/v1/networks/fuji/blockchains/x-chain/vertices?pageSize=0", `pageSize: must be an integer from 1 to 100, got "0"`},
		{"/v1/networks/fuji/blockchains/x-chain/vertices:listByHeight", `vertexHeight: must be given, a non-negative integer`},
		{a + "transactions?pageToken=AAAA", `pageToken: not a valid page token for this request`},
	} {
		e.wantError(tc.path, http.StatusBadRequest, tc.message)
	}
	if status, _, body := e.get("/v1/chains/43112/transactions/" + strings.ToLower(s.txs["native"].Hex())); status != http.StatusOK {
		t.Errorf("a lower-case hash: %d %s", status, body)
	}

	// Page tokens are bound to their endpoint, chain, address and filters.
	next := func(path string) string {
		var resp struct {
			NextPageToken string `json:"nextPageToken"`
		}
		e.getJSON(path, &resp)
		if resp.NextPageToken == "" {
			t.Fatalf("%s has no next page", path)
		}
		return resp.NextPageToken
	}
	token := next(a + "transactions?pageSize=2")
	balToken := next(a + "balances:listErc20?pageSize=1")
	tampered := []byte(token)
	tampered[len(tampered)/2] ^= 1
	const invalid = `pageToken: not a valid page token for this request`
	for _, path := range []string{
		a + "transactions?pageToken=" + string(tampered),
		a + "transactions?pageToken=" + token[:len(token)-3],
		a + "transactions?pageToken=" + token + "A",
		a + "transactions?sortOrder=asc&pageToken=" + token,
		a + "transactions?startBlock=1&pageToken=" + token,
		a + "transactions:listErc721?pageToken=" + token,
		"/v1/chains/43112/addresses/" + bob.Hex() + "/transactions?pageToken=" + token,
		"/v1/chains/" + chainC.ID.String() + "/addresses/" + alice.Hex() + "/transactions?pageToken=" + balToken,
		a + "balances:listErc20?contractAddresses=" + tokA.Hex() + "&pageToken=" + balToken,
		a + "balances:listErc20?blockNumber=3&pageToken=" + balToken,
		a + "balances:listErc20?filterSpamTokens=false&pageToken=" + balToken,
	} {
		e.wantError(path, http.StatusBadRequest, invalid)
	}
	// The same token works on its own request, whatever the page size,
	// and whether the chain is named by EVM chain ID or blockchain ID.
	for _, path := range []string{
		a + "transactions?pageSize=5&pageToken=" + token,
		"/v1/chains/" + chainC.ID.String() + "/addresses/" + strings.ToLower(alice.Hex()) + "/transactions?pageToken=" + token,
		a + "balances:listErc20?currency=eur&pageToken=" + balToken,
	} {
		if status, _, body := e.get(path); status != http.StatusOK {
			t.Errorf("GET %s = %d %s", path, status, body)
		}
	}
}

// TestNotFound: unknown chains, transactions, blocks and paths are 404.
func TestNotFound(t *testing.T) {
	e, c, _ := scenarioEnv(t, 0)
	const a = "/addresses/0xA11CE00000000000000000000000000000000001/transactions"
	for _, tc := range []struct{ path, message string }{
		{"/v1/chains/1" + a, `chain "1" not found: use an EVM chain ID or a blockchain ID from /v1/chains`},
		{"/v1/chains/C" + a, `chain "C" not found: use an EVM chain ID or a blockchain ID from /v1/chains`},
		{"/v1/chains/" + kvChain.ID.String() + a, `chain "` + kvChain.ID.String() + `" not found: use an EVM chain ID or a blockchain ID from /v1/chains`},
		{"/v1/chains/43112/transactions/0x" + strings.Repeat("0", 63) + "1", `transaction 0x` + strings.Repeat("0", 63) + `1 not found on chain 43112`},
		{"/v1/chains/43112/blocks/999", `block 999 not found on chain 43112 (indexed to block 8)`},
		{"/v1/chains/43112/blocks/0x" + strings.Repeat("ab", 32), `block 0x` + strings.Repeat("ab", 32) + ` not found on chain 43112`},
		{"/v1/chains/43112/addresses/" + alice.Hex() + "/balances:listErc20?blockNumber=9", `block 9 is not indexed on chain 43112 (indexed to block 8)`},
		{"/v1/chains/43112/addresses/" + alice.Hex() + "/balances:listErc1155?blockNumber=100", `block 100 is not indexed on chain 43112 (indexed to block 8)`},
		{"/v1/chains/43112/nothing", `no endpoint GET /v1/chains/43112/nothing`},
		{"/v1/chains/43112/addresses/" + alice.Hex() + "/transactions:listNothing", `no endpoint GET /v1/chains/43112/addresses/` + alice.Hex() + `/transactions:listNothing`},
		{"/v1/networks/mainnet/blockchains/x-chain/vertices/abc", `this node does not serve network mainnet`},
		{"/v1/networks/testnet/blockchains/x-chain/vertices/" + chainC.ID.String(), `vertices are not available: this node runs no X-Chain`},
	} {
		e.wantError(tc.path, http.StatusNotFound, tc.message)
	}
	// With an X-Chain that does not answer its indexer handler: 503 (the
	// vertices of a real one are checked in tests/e2e's
	// TestXChainVertexPhase).
	x := host.ChainInfo{ID: ids.ID{0x0e, 0x0e}, VMName: xvmapi.VMName, Aliases: []string{"X"}, IndexKinds: []string{"vtx"}, Running: true}
	e.h.SetChain(x)
	v := chainC.ID.String()
	e.wantError("/v1/networks/fuji/blockchains/x-chain/vertices/"+v, 503, "the X-Chain does not answer: the vertex cannot be read")
	e.wantError("/v1/networks/fuji/blockchains/"+x.ID.String()+"/vertices/"+v, 503, "the X-Chain does not answer: the vertex cannot be read")
	e.wantError("/v1/networks/fuji/blockchains/x-chain/vertices", 503, "the X-Chain does not answer: the vertices cannot be read")
	e.wantError("/v1/networks/fuji/blockchains/x-chain/vertices:listByHeight?vertexHeight=1", 503, "the X-Chain does not answer: the vertices cannot be read")
	e.wantError("/v1/networks/fuji/blockchains/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM/vertices/"+v, 404,
		`blockchain "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM" is not this node's X-Chain (x-chain or `+x.ID.String()+`)`)

	// A block whose state the chain no longer keeps.
	c.PruneBelow(5)
	e.wantError("/v1/chains/43112/addresses/"+alice.Hex()+"/balances:listErc20?blockNumber=2", http.StatusNotFound,
		`the state of chain 43112 at block 2 is not available: required historical state unavailable (reexec=2)`)
	// The latest balances fall back to the chain's latest state.
	if status, _, body := e.get("/v1/chains/43112/addresses/" + alice.Hex() + "/balances:listErc20"); status != http.StatusOK {
		t.Errorf("latest balances on a pruning chain: %d %s", status, body)
	}
	// Other methods than GET: 405 with the REST body.
	req, _ := http.NewRequest(http.MethodPost, e.h.ModuleURL()+"/v1/chains", strings.NewReader("{}"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET" ||
		strings.TrimSpace(string(body)) != `{"message":"method POST not allowed: use GET","statusCode":405,"error":"Method Not Allowed"}` {
		t.Errorf("POST /v1/chains = %d %v %s", resp.StatusCode, resp.Header, body)
	}
}

// TestUnavailable: a chain that does not answer is a 503 where the answer
// needs it.
func TestUnavailable(t *testing.T) {
	c := fakeevm.New(43112)
	buildScenario(c, 0)
	chains := map[ids.ID]*fakeevm.Chain{chainC.ID: c}
	e := startEnv(t, envOptions{infos: []host.ChainInfo{chainC}, chains: chains})
	e.waitIndexed("C", c.Head())
	e.mu.Lock()
	delete(e.chains, chainC.ID)
	e.mu.Unlock()
	e.wantError("/v1/chains/43112/addresses/"+alice.Hex()+"/balances:listErc20", http.StatusServiceUnavailable,
		"chain 43112 does not answer: the native balance cannot be read")
	// What the store holds is still served.
	if status, _, body := e.get("/v1/chains/43112/addresses/" + alice.Hex() + "/transactions"); status != http.StatusOK {
		t.Errorf("transactions while the chain is away: %d %s", status, body)
	}
}

// keysConfig has a required key, a key limited to dchain, a key for C by
// alias and a slow key.
const keysConfig = `{"rate-limit": {
	"anonymous": {"per-second": 0.001, "burst": 1},
	"require-key": %s,
	"keys": [
		{"name": "any", "key": "key-any", "limit": {"per-second": 0}},
		{"name": "d-only", "key": "key-d", "allow": ["dchain"]},
		{"name": "c-only", "key": "key-c", "allow": ["C"]},
		{"name": "slow", "key": "key-slow", "limit": {"per-second": 0.001, "burst": 2}}
	]}}`

// TestKeysAndLimits: 401 without a required key or with an unknown one,
// 403 for a key outside its chains, 429 with Retry-After over a limit.
func TestKeysAndLimits(t *testing.T) {
	c := fakeevm.New(43112)
	buildScenario(c, 0)
	chains := map[ids.ID]*fakeevm.Chain{chainC.ID: c}
	const path = "/v1/chains/43112/blocks/1"
	t.Run("required", func(t *testing.T) {
		e := startEnv(t, envOptions{config: strings.Replace(keysConfig, "%s", "true", 1), infos: []host.ChainInfo{chainC}, chains: chains})
		e.waitIndexed("C", c.Head())
		e.wantError(path, http.StatusUnauthorized, "an API key is required in header x-data-api-key")
		e.wantError(path, http.StatusUnauthorized, "invalid API key", "x-data-api-key", "nope")
		e.wantError(path, http.StatusUnauthorized, "invalid API key", "x-glacier-api-key", "nope")
		e.wantError(path, http.StatusForbidden, "this API key may not use chain 43112", "x-data-api-key", "key-d")
		e.wantError("/v1/chains/"+chainC.ID.String()+"/blocks/1", http.StatusForbidden, "this API key may not use chain "+chainC.ID.String(), "x-glacier-api-key", "key-d")
		for _, key := range []string{"key-any", "key-c"} {
			for _, h := range []string{"x-data-api-key", "x-glacier-api-key"} {
				if status, _, body := e.get(path, h, key); status != http.StatusOK {
					t.Errorf("%s %s: %d %s", h, key, status, body)
				}
			}
		}
		// A restricted key still lists the chains.
		if status, _, body := e.get("/v1/chains", "x-data-api-key", "key-d"); status != http.StatusOK || !strings.Contains(string(body), `"chainId":"43112"`) {
			t.Errorf("/v1/chains with a restricted key: %d %s", status, body)
		}
	})
	t.Run("limits", func(t *testing.T) {
		e := startEnv(t, envOptions{config: strings.Replace(keysConfig, "%s", "false", 1), infos: []host.ChainInfo{chainC}, chains: chains})
		e.waitIndexed("C", c.Head())
		if status, _, body := e.get(path); status != http.StatusOK {
			t.Fatalf("first anonymous request: %d %s", status, body)
		}
		hdr := e.wantError(path, http.StatusTooManyRequests, "rate limit exceeded, retry in 1000 seconds")
		if hdr.Get("Retry-After") != "1000" || hdr.Get("RateLimit-Limit") != "1" {
			t.Errorf("429 headers: %v", hdr)
		}
		// A key has its own bucket.
		for range 2 {
			if status, _, body := e.get(path, "x-data-api-key", "key-slow"); status != http.StatusOK {
				t.Fatalf("slow key: %d %s", status, body)
			}
		}
		e.wantError(path, http.StatusTooManyRequests, "rate limit exceeded, retry in 1000 seconds", "x-data-api-key", "key-slow")
		if status, _, _ := e.get(path, "x-data-api-key", "key-any"); status != http.StatusOK {
			t.Errorf("unlimited key: %d", status)
		}
	})
}
