package dataapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// pageTokenKey is the page token key the instances of the tests share.
const pageTokenKey = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e"

// readerRole is the read-only role of the API-only instances: it may
// connect and read the tables the indexer made, nothing else.
const readerRole = `CREATE ROLE reader LOGIN;
GRANT USAGE ON SCHEMA public TO reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;`

// nextToken matches a page token in an answer.
var nextToken = regexp.MustCompile(`"nextPageToken":"[^"]*"`)

// TestPostgresConfig: the store, role and key settings are checked, each
// problem named.
func TestPostgresConfig(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{`{"store": {"engine": "postgres"}}`, `store.url: store.engine postgres needs the database's connection URL`},
		{`{"store": {"engine": "postgres", "url": "postgres://a b"}}`, `store.url: cannot parse`},
		{`{"store": {"url": "postgres://x/db"}}`, `store.url: only for store.engine postgres`},
		{`{"store": {"engine": "postgres", "url": "postgres://x/db", "max-conns": 0}}`, `store.max-conns: must be from 1 to 1000, got 0`},
		{`{"role": "reader"}`, `role: must be full or api, got "reader"`},
		{`{"role": "api", "page-token-key": "` + pageTokenKey + `", "upstream-url": "http://x"}`, `role: api needs store.engine postgres`},
		{`{"role": "api", "store": {"engine": "postgres", "url": "postgres://x/db"}, "upstream-url": "http://x"}`,
			`page-token-key: role api needs the key every instance of the database signs page tokens with`},
		{`{"role": "api", "store": {"engine": "postgres", "url": "postgres://x/db"}, "page-token-key": "` + pageTokenKey + `"}`,
			`upstream-url: role api needs the URL of the node that runs the chains`},
		{`{"upstream-url": "http://x"}`, `upstream-url: only for role api`},
		{`{"upstream-url": "x:1"}`, `upstream-url: must be an http or https URL, got "x:1"`},
		{`{"page-token-key": "abc"}`, `page-token-key: must be 64 hex digits`},
	} {
		err := dataapi.New(dataapi.Options{}).Initialize(t.Context(), &sdk.Env{Name: "data", Config: []byte(tc.config), DataDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "module data config") {
			t.Errorf("config %s: %v, want an error with %q", tc.config, err, tc.want)
		}
	}
}

// pgConfig is the module's config on PostgreSQL at u, in a role, with the
// shared key and public URL and without rate limits; upstream for the API
// role.
func pgConfig(u, role, upstream string) string {
	cfg := map[string]any{
		"store": map[string]any{"engine": "postgres", "url": u}, "role": role, "page-token-key": pageTokenKey,
		"public-url": "https://node.example", "rate-limit": map[string]any{"anonymous": map[string]any{"per-second": 0}},
	}
	if upstream != "" {
		cfg["upstream-url"] = upstream
	}
	b, _ := json.Marshal(cfg)
	return string(b)
}

// body GETs a path of a module and returns the status and the body with
// its page token blanked (a token holds the second it was made in).
func body(t *testing.T, e *testEnv, path string) (int, string, string) {
	t.Helper()
	status, _, b := e.get(path)
	token := ""
	if m := nextToken.Find(b); m != nil {
		token = strings.TrimSuffix(strings.TrimPrefix(string(m), `"nextPageToken":"`), `"`)
	}
	return status, nextToken.ReplaceAllString(string(b), `"nextPageToken":"…"`), token
}

// TestPostgresInstances: the module indexing into PostgreSQL answers
// exactly as the module on its embedded store, and so does an API-only
// instance reading the same database as a read-only role (native balances
// and vertices from its upstream node), every endpoint and error; a page
// token made by any of them is valid on the others.
func TestPostgresInstances(t *testing.T) {
	ctx := context.Background()
	c := fakeevm.New(43112)
	buildScenario(c, 12)
	cluster := pgtest.New(t)
	db := cluster.NewDatabase(t)
	u := cluster.URL(db)
	chains := map[ids.ID]*fakeevm.Chain{chainC.ID: c}

	embedded := startEnv(t, envOptions{config: strings.Replace(pgConfig("", "full", ""), `"store":{"engine":"postgres","url":""}`, `"store":{}`, 1),
		infos: []host.ChainInfo{chainC}, chains: chains})
	full := startEnv(t, envOptions{config: pgConfig(u, "full", ""), infos: []host.ChainInfo{chainC}, chains: chains})
	embedded.waitIndexed("C", c.Head())
	full.waitIndexed("C", c.Head())

	// The upstream node: the chain's RPC, and the full instance's API for
	// the vertices.
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ext/bc/"+chainC.ID.String()+"/rpc" && r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			status, resp, err := c.Serve(r.Context(), b)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.WriteHeader(status)
			_, _ = w.Write(resp)
			return
		}
		resp, err := http.Get(full.h.ModuleURL() + r.URL.RequestURI())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	defer upstream.Close()
	if err := cluster.Exec(ctx, db, readerRole); err != nil {
		t.Fatal(err)
	}
	reader := cluster.UserURL(db, "reader")
	apiOnly := startEnv(t, envOptions{config: pgConfig(reader, "api", upstream.URL)})
	apiOnly.waitIndexed("C", c.Head())
	envs := []*testEnv{embedded, full, apiOnly}
	names := []string{"embedded", "full", "api"}

	addrs := []common.Address{alice, bob, carol, dave, factory, proxy, tokA, tokB, nft, multi, common.HexToAddress("0x1234")}
	paths := []string{"/v1/chains", "/v1/chains?network=mainnet", "/v1/chains/99/blocks/1", "/v1/chains/43112/blocks/999",
		"/v1/networks/fuji/blockchains/x-chain/vertices/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
		"/v1/chains/43112/addresses/" + alice.Hex() + "/transactions?pageToken=AAAA"}
	for n := uint64(0); n <= c.Head(); n++ {
		paths = append(paths, fmt.Sprintf("/v1/chains/43112/blocks/%d", n), "/v1/chains/43112/blocks/"+c.Block(n).Hash.Hex())
		for _, tx := range c.Block(n).Transactions {
			paths = append(paths, "/v1/chains/43112/transactions/"+tx.Hash.Hex())
		}
	}
	for _, a := range addrs {
		base := "/v1/chains/43112/addresses/" + a.Hex()
		paths = append(paths, "/v1/address/"+a.Hex()+"/chains", "/v1/chains/43112/contracts/"+a.Hex()+"/deployments?pageSize=2",
			base+"/balances:listErc20", base+"/balances:listErc1155", base+"/balances:listCollectibles?pageSize=1",
			base+"/balances:listErc20?contractAddresses="+tokA.Hex()+","+tokB.Hex())
		for _, list := range []string{"transactions", "transactions:listErc721", "transactions:listErc1155", "transactions:listInternals"} {
			paths = append(paths, base+"/"+list+"?pageSize=3", base+"/"+list+"?pageSize=2&sortOrder=asc&startBlock=2&endBlock=9")
		}
		for n := uint64(0); n <= 9; n++ {
			paths = append(paths, fmt.Sprintf("%s/balances:listErc20?blockNumber=%d", base, n), fmt.Sprintf("%s/balances:listErc1155?blockNumber=%d", base, n))
		}
	}
	oks := 0
	for _, path := range paths {
		// Every page of a list, each read from the next instance in turn
		// with the token the previous one made.
		for page, turn := 0, 0; ; page++ {
			var answers [3]string
			var status [3]int
			var token string
			for i, e := range envs {
				var tok string
				status[i], answers[i], tok = body(t, e, path)
				if i == turn%3 {
					token = tok
				}
			}
			for i := 1; i < 3; i++ {
				if status[i] != status[0] || answers[i] != answers[0] {
					t.Fatalf("GET %s: %s answers\n\t%d %s\n%s answers\n\t%d %s", path, names[0], status[0], clip([]byte(answers[0])), names[i], status[i], clip([]byte(answers[i])))
				}
			}
			if status[0] == http.StatusOK {
				oks++
			}
			if token == "" {
				break
			}
			turn++
			path = setToken(path, token)
		}
	}
	t.Logf("%d paths, %d answers 200", len(paths), oks)
	if oks < len(paths)*3/4 {
		t.Errorf("only %d answers of %d paths were 200", oks, len(paths))
	}
	// The native balance came from the upstream node.
	var bal struct {
		NativeTokenBalance struct{ Balance string } `json:"nativeTokenBalance"`
	}
	apiOnly.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/balances:listErc20?blockNumber=1", &bal)
	if want := c.NativeBalance(alice, 1).String(); bal.NativeTokenBalance.Balance != want {
		t.Errorf("alice's native balance at block 1: %s, want %s", bal.NativeTokenBalance.Balance, want)
	}
	details, err := apiOnly.h.HealthDetails(ctx)
	if err != nil || details["role"] != "api" || details["store"] != "postgres" {
		t.Errorf("health details %v, %v", details, err)
	}

	// The API role never writes, and its database role could not.
	ro, err := pgstore.Open(ctx, pgstore.Options{URL: reader, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Write(ctx, &store.Batch{Chain: chainC.ID}); err == nil {
		t.Error("a read-only store wrote")
	}
	if _, err := pgstore.Open(ctx, pgstore.Options{URL: cluster.UserURL(cluster.NewDatabase(t), "reader")}); err == nil ||
		!strings.Contains(err.Error(), "permission denied") {
		t.Errorf("the read-only role set up a database: %v", err)
	}
	// One indexer per database.
	if _, err := pgstore.Open(ctx, pgstore.Options{URL: u}); err == nil || !strings.Contains(err.Error(), "another writer") {
		t.Errorf("a second writer: %v", err)
	}
	// An API instance refuses a database its indexer has not set up.
	empty, err := pgstore.Open(ctx, pgstore.Options{URL: cluster.URL(cluster.NewDatabase(t)), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if err := empty.CheckSchema(ctx); err == nil || !strings.Contains(err.Error(), "schema is version 0") {
		t.Errorf("the schema of an empty database: %v", err)
	}
}

// setToken sets the pageToken of a path.
func setToken(path, token string) string {
	p, q, _ := strings.Cut(path, "?")
	values, _ := url.ParseQuery(q)
	values.Set("pageToken", token)
	return p + "?" + values.Encode()
}

// TestAPIRoleWaitsForTheDatabase: an API-only instance started before its
// indexer set the database up answers 503 with the REST body, and is
// unhealthy, until the schema is there; then it serves.
func TestAPIRoleWaitsForTheDatabase(t *testing.T) {
	cluster := pgtest.New(t)
	u := cluster.URL(cluster.NewDatabase(t))
	e := startEnv(t, envOptions{config: pgConfig(u, "api", "http://127.0.0.1:9")})
	e.wantError("/v1/chains", http.StatusServiceUnavailable, fmt.Sprintf("the data API's database is not ready: pgstore: the database's schema is version 0, "+
		"this build reads version %d: start the indexer of this release first (it brings the schema up to date)", pgstore.SchemaVersion()))
	if err := e.h.Health(context.Background()); err == nil {
		t.Error("healthy without a schema")
	}
	writer, err := pgstore.Open(context.Background(), pgstore.Options{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	writer.Close()
	plugintest.Eventually(t, 10*time.Second, func() error {
		if status, _, _ := e.get("/v1/chains"); status != http.StatusOK {
			return fmt.Errorf("/v1/chains = %d after the schema was made", status)
		}
		return nil
	})
	if err := e.h.Health(context.Background()); err != nil {
		t.Errorf("unhealthy with the schema: %v", err)
	}
}
