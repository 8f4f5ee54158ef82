package dataapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/openapi"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Addresses of the scenario.
var (
	alice   = common.HexToAddress("0xA11CE00000000000000000000000000000000001")
	bob     = common.HexToAddress("0xB0B0000000000000000000000000000000000002")
	carol   = common.HexToAddress("0xCA20100000000000000000000000000000000003")
	dave    = common.HexToAddress("0xDA7E000000000000000000000000000000000004")
	tokA    = common.HexToAddress("0x70CA000000000000000000000000000000000A0A") // ERC-20, 6 decimals, created in block 1
	tokB    = common.HexToAddress("0x70CB000000000000000000000000000000000B0B") // ERC-20, 18 decimals, from genesis
	nft     = common.HexToAddress("0x7F70000000000000000000000000000000000721")
	multi   = common.HexToAddress("0x1155000000000000000000000000000000001155")
	factory = common.HexToAddress("0xFAC7000000000000000000000000000000000F0F")
	child1  = common.HexToAddress("0xC41D000000000000000000000000000000000001")
	proxy   = common.HexToAddress("0x9D0C000000000000000000000000000000000002")
	child2  = common.HexToAddress("0xC41D000000000000000000000000000000000003")
	zero    = common.Address{}
)

// Chains of the tests.
var (
	chainC = host.ChainInfo{
		ID: ids.ID{0xc}, VMID: ids.ID{'e', 'v', 'm'}, VMName: evmapi.VMName, Aliases: []string{"C"},
		IndexKinds: []string{"block"}, Handlers: []string{"rpc", "ws"}, InternalHandlers: []string{evmapi.IndexerHandler}, Running: true,
	}
	chainD = host.ChainInfo{
		ID: ids.ID{0xd}, VMID: ids.ID{'e', 'v', 'm'}, VMName: evmapi.VMName, Aliases: []string{"dchain"},
		IndexKinds: []string{"block"}, Handlers: []string{"rpc"}, InternalHandlers: []string{evmapi.IndexerHandler}, Running: true,
	}
	kvChain = host.ChainInfo{ID: ids.ID{0xe}, VMName: "example", Aliases: []string{"example"}, IndexKinds: []string{"block"}, Running: true}
)

// nftURI is the tokenURI of the scenario's ERC-721: a data: URI for odd
// IDs, https for even ones.
func nftURI(id *big.Int) string {
	if id.Bit(0) == 0 {
		return "https://example.invalid/nft/" + id.String()
	}
	doc := fmt.Sprintf(`{"name":"Thing #%s","description":"a thing","image":"ipfs://img/%s","attributes":[{"trait_type":"n","value":%s}]}`, id, id, id)
	return "data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(doc))
}

// scenario is what the scenario chain holds, for assertions.
type scenario struct {
	txs map[string]common.Hash // by name
}

// i returns n as a big integer.
func i(n int64) *big.Int { return big.NewInt(n) }

// e18 returns n whole tokens of 18 decimals.
func e18(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// buildScenario fills c with eight blocks of every kind of activity, then
// extra blocks of transfers between alice and bob.
func buildScenario(c *fakeevm.Chain, extra int) *scenario {
	s := &scenario{txs: map[string]common.Hash{}}
	c.Fund(alice, e18(1000))
	c.AddToken(tokB, &fakeevm.Token{Kind: fakeevm.ERC20, Name: "Token B", Symbol: "TKB", Decimals: 18})
	c.AddToken(nft, &fakeevm.Token{Kind: fakeevm.ERC721, Name: "Things", Symbol: "THG", URI: nftURI})
	c.AddToken(multi, &fakeevm.Token{Kind: fakeevm.ERC1155, URI: func(*big.Int) string {
		return "data:application/json,%7B%22name%22%3A%22Multi%20%7Bid%7D%22%2C%22decimals%22%3A0%7D"
	}})
	c.AddToken(factory, &fakeevm.Token{Kind: fakeevm.Plain})
	transfer := common.FromHex("0xa9059cbb")

	// 1: a native transfer; alice creates token A.
	b := c.NewBlock()
	s.txs["native"] = b.Tx(alice, &bob, e18(1), nil).Hash()
	s.txs["createA"] = b.Creation(alice, tokA, &fakeevm.Token{Kind: fakeevm.ERC20, Name: "Token A", Symbol: "TKA", Decimals: 6}).Hash()
	b.Commit()
	// 2: a mint of A to alice, then a transfer of A to bob.
	b = c.NewBlock()
	s.txs["mintA"] = b.Tx(alice, &tokA, nil, common.FromHex("0x40c10f19")).ERC20(tokA, zero, alice, i(1_000_000_000)).Hash()
	s.txs["sendA"] = b.Tx(alice, &tokA, nil, transfer).ERC20(tokA, alice, bob, i(100_000_000)).Hash()
	b.Commit()
	// 3: bob burns some A; alice sends B to carol (B was premined to alice
	// by an event in this block).
	b = c.NewBlock()
	s.txs["burnA"] = b.Tx(bob, &tokA, nil, common.FromHex("0x42966c68")).ERC20(tokA, bob, zero, i(30_000_000)).Hash()
	s.txs["sendB"] = b.Tx(alice, &tokB, nil, transfer).ERC20(tokB, zero, alice, e18(50)).ERC20(tokB, alice, carol, e18(5)).Hash()
	b.Commit()
	// 4: NFTs: mint 1 to alice, 2 to bob, then alice gives 1 to carol.
	b = c.NewBlock()
	s.txs["mintNFT"] = b.Tx(alice, &nft, nil, common.FromHex("0x40c10f19")).ERC721(nft, zero, alice, i(1)).ERC721(nft, zero, bob, i(2)).Hash()
	s.txs["sendNFT"] = b.Tx(alice, &nft, nil, common.FromHex("0x42842e0e")).ERC721(nft, alice, carol, i(1)).Hash()
	b.Commit()
	// 5: ERC-1155: a single mint, a batch mint, a batch transfer to bob.
	b = c.NewBlock()
	s.txs["mint1155"] = b.Tx(alice, &multi, nil, common.FromHex("0x731133e9")).
		Single(multi, alice, zero, alice, i(7), i(10)).
		Batch(multi, alice, zero, alice, []*big.Int{i(7), i(8)}, []*big.Int{i(5), i(5)}).Hash()
	s.txs["send1155"] = b.Tx(alice, &multi, nil, common.FromHex("0x2eb2c2d6")).
		Batch(multi, alice, alice, bob, []*big.Int{i(7), i(8)}, []*big.Int{i(3), i(5)}).Hash()
	b.Commit()
	// 6: a factory call with internal transactions of every kind.
	b = c.NewBlock()
	s.txs["factory"] = b.Tx(alice, &factory, e18(3), common.FromHex("0xdeadbeef")).
		Frame(1, evmapi.CallType, factory, bob, e18(1), false, nil).           // listed
		Frame(1, evmapi.StaticCallType, factory, tokA, nil, false, nil).       // not listed
		Frame(1, evmapi.CallType, factory, tokA, nil, false, nil).             // no value: not listed
		Frame(1, evmapi.DelegateCallType, factory, tokB, nil, false, nil).     // not listed
		Frame(1, evmapi.CreateType, factory, child1, nil, false, nil).         // CREATE
		Frame(1, evmapi.Create2Type, factory, proxy, nil, false, nil).         // CREATE2
		Frame(2, evmapi.CreateType, proxy, child2, nil, false, &fakeevm.Token{ // CREATE3
										Kind: fakeevm.ERC721, Name: "Child", Symbol: "CHD", URI: nftURI}).
		Frame(1, evmapi.CallType, factory, carol, e18(1), true, nil).   // reverted
		Frame(2, evmapi.CallType, carol, dave, i(1), false, nil).       // below a reverted frame
		Frame(1, evmapi.CallCodeType, factory, dave, i(5), false, nil). // listed
		Hash()
	b.Commit()
	// 7: a failed transfer: no logs.
	b = c.NewBlock()
	s.txs["failed"] = b.Tx(alice, &tokA, nil, transfer).ERC20(tokA, alice, dave, i(1)).Fail().Hash()
	b.Commit()
	// 8: token A raises dave's balance without an event, then dave sends
	// some of it: the events alone would take dave below zero.
	b = c.NewBlock()
	b.Tx(carol, &tokA, nil, []byte{1, 2}).SilentMint(tokA, dave, i(50))
	s.txs["daveSends"] = b.Tx(dave, &tokA, nil, transfer).ERC20(tokA, dave, alice, i(20)).Hash()
	b.Commit()
	for n := range extra {
		b = c.NewBlock()
		b.Tx(alice, &bob, i(int64(n+1)), nil)
		b.Tx(bob, &tokA, nil, transfer).ERC20(tokA, bob, alice, i(int64(n+1)))
		b.Commit()
	}
	return s
}

// testEnv is the module running over plugintest, with its fake chains.
type testEnv struct {
	t        testing.TB
	h        *plugintest.Harness
	contract *openapi.Contract

	mu       sync.Mutex
	chains   map[ids.ID]*fakeevm.Chain
	appended map[ids.ID]uint64 // blocks appended to each chain's index
}

// loadContract loads the data API contract from the shared material.
func loadContract(t testing.TB) *openapi.Contract {
	t.Helper()
	wd, _ := os.Getwd()
	path, err := openapi.Find(wd)
	if err != nil {
		t.Fatal(err)
	}
	c, err := openapi.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// noLimits is a config without rate limits, for the tests that send many
// requests.
const noLimits = `{"rate-limit": {"anonymous": {"per-second": 0}}}`

// options of startEnv.
type envOptions struct {
	dataDir   string
	config    string
	networkID uint32
	infos     []host.ChainInfo
	chains    map[ids.ID]*fakeevm.Chain
	module    *dataapi.Module
}

// startEnv starts the module with the chains, and indexes what they hold.
func startEnv(t testing.TB, o envOptions) *testEnv {
	t.Helper()
	if o.config == "" {
		o.config = noLimits
	}
	if o.networkID == 0 {
		o.networkID = 12345
	}
	if o.module == nil {
		o.module = dataapi.New(dataapi.Options{Now: fixedClock})
	}
	e := &testEnv{t: t, contract: loadContract(t), chains: o.chains, appended: map[ids.ID]uint64{}}
	e.h = plugintest.StartModule(t, o.module, plugintest.Options{
		Name: "data", Config: []byte(o.config), DataDir: o.dataDir, NetworkID: o.networkID,
		Prefixes: []string{"/v1/chains", "/v1/address", "/v1/networks"}, Chains: o.infos,
		Call: func(ctx context.Context, chain host.ChainInfo, handlerPath string, body []byte) (int, []byte, error) {
			e.mu.Lock()
			c := e.chains[chain.ID]
			e.mu.Unlock()
			if c == nil || handlerPath != evmapi.IndexerHandler {
				return 0, nil, fmt.Errorf("call %s/%s: %w", chain.ID, handlerPath, host.ErrNotFound)
			}
			return c.Serve(ctx, body)
		},
	})
	for id := range o.chains {
		e.sync(id)
	}
	return e
}

// sync appends the chain's new blocks to its index, as its VM would:
// position p holds block p+1.
func (e *testEnv) sync(id ids.ID) {
	e.mu.Lock()
	c := e.chains[id]
	e.mu.Unlock()
	for n := e.appended[id] + 1; n <= c.Head(); n++ {
		e.h.AppendContainer(id, "block", c.ContainerID(n), []byte{0xc0})
		e.appended[id] = n
	}
}

// waitIndexed waits until the chain aliased alias is indexed to height.
func (e *testEnv) waitIndexed(alias string, height uint64) {
	e.t.Helper()
	plugintest.Eventually(e.t, 20*time.Second, func() error {
		details, err := e.h.HealthDetails(context.Background())
		if err != nil {
			return fmt.Errorf("health: %w", err)
		}
		chains, _ := details["chains"].(map[string]any)
		c, _ := chains[alias].(map[string]any)
		if h, ok := c["height"].(float64); !ok || uint64(h) < height {
			return fmt.Errorf("chain %s not indexed to %d: %v", alias, height, c)
		}
		return nil
	})
}

// get GETs a path of the module (headers as name, value pairs) and checks
// the answer against the contract.
func (e *testEnv) get(path string, headers ...string) (int, http.Header, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.h.ModuleURL()+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		e.t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	p, _, _ := strings.Cut(path, "?")
	err = e.contract.Validate(http.MethodGet, p, resp.StatusCode, body)
	if _, _, opErr := e.contract.Operation(http.MethodGet, p); opErr != nil && resp.StatusCode == http.StatusNotFound {
		err = e.contract.ValidateSchema("NotFound", body) // a path outside the contract
	}
	if err != nil {
		e.t.Errorf("GET %s: the answer breaks the contract: %v\n%s", path, err, clip(body))
	}
	return resp.StatusCode, resp.Header, body
}

// getJSON GETs a path that must answer 200 and decodes it.
func (e *testEnv) getJSON(path string, out any) {
	e.t.Helper()
	status, _, body := e.get(path)
	if status != http.StatusOK {
		e.t.Fatalf("GET %s = %d %s", path, status, clip(body))
	}
	if err := json.Unmarshal(body, out); err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
}

// wantError checks that GET path answers the REST error body of status
// with exactly message.
func (e *testEnv) wantError(path string, status int, message string, headers ...string) http.Header {
	e.t.Helper()
	got, hdr, body := e.get(path, headers...)
	want, _ := json.Marshal(rest.ErrorBody{Message: message, StatusCode: status, Error: rest.StatusName(status)})
	if got != status || strings.TrimSpace(string(body)) != string(want) {
		e.t.Errorf("GET %s =\n\t%d %s\nwant\n\t%d %s", path, got, body, status, want)
	}
	return hdr
}

// clip shortens a body for a message.
func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// fixedClock is the modules' clock in the tests, so that instances that
// index the same chain on their own record the same metadata update times.
func fixedClock() time.Time { return time.Unix(1_800_000_000, 0) }
