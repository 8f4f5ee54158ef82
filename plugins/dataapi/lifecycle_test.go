package dataapi_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	dto "github.com/prometheus/client_model/go"

	"github.com/chainhost/chainhost/plugins/dataapi"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/price"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// metric returns the value of a counter or gauge of the module for chain.
func metric(t *testing.T, h *plugintest.Harness, name, chain string) float64 {
	t.Helper()
	families, err := h.Metrics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if labelOf(m, "chain") == chain {
				if m.GetCounter() != nil {
					return m.GetCounter().GetValue()
				}
				return m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no metric %s{chain=%q}", name, chain)
	return 0
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// TestRestartResumes: a module started again on its data directory goes
// on from the block it stopped at, and counts nothing twice.
func TestRestartResumes(t *testing.T) {
	dir := t.TempDir()
	c := fakeevm.New(43112)
	buildScenario(c, 5)
	firstHead := c.Head()
	chains := map[ids.ID]*fakeevm.Chain{chainC.ID: c}
	t.Run("first run", func(t *testing.T) {
		e := startEnv(t, envOptions{dataDir: dir, infos: []host.ChainInfo{chainC}, chains: chains})
		e.waitIndexed("C", firstHead)
		if got := metric(t, e.h, "dataapi_indexer_transactions_total", "C"); got != 14+10 {
			t.Errorf("transactions indexed in the first run: %v", got)
		}
	})
	// More blocks while the module is down.
	for n := range 5 {
		b := c.NewBlock()
		b.Tx(alice, &bob, big.NewInt(int64(n+100)), nil)
		b.Tx(bob, &tokA, nil, nil).ERC20(tokA, bob, alice, big.NewInt(7))
		b.Commit()
	}
	t.Run("second run", func(t *testing.T) {
		e := startEnv(t, envOptions{dataDir: dir, infos: []host.ChainInfo{chainC}, chains: chains})
		e.waitIndexed("C", c.Head())
		if got := metric(t, e.h, "dataapi_indexer_transactions_total", "C"); got != 10 {
			t.Errorf("transactions indexed in the second run: %v, want only the 10 new ones", got)
		}
		if got := metric(t, e.h, "dataapi_indexer_lag_blocks", "C"); got != 0 {
			t.Errorf("lag %v", got)
		}
		var blk api.Block
		e.getJSON(fmt.Sprintf("/v1/chains/43112/blocks/%d", c.Head()), &blk)
		if blk.CumulativeTransactions != "34" {
			t.Errorf("cumulative transactions at the head: %s, want 34", blk.CumulativeTransactions)
		}
		txs := hashes(allTxs(e, bob, "&sortOrder=asc", 100))
		if unique := slices.Compact(slices.Clone(txs)); len(unique) != len(txs) || len(txs) != 6+10+10 {
			t.Errorf("bob's transactions: %d (%d unique), want 26", len(txs), len(unique))
		}
		for _, who := range []common.Address{alice, bob} {
			var resp api.ListErc20BalancesResponse
			e.getJSON("/v1/chains/43112/addresses/"+who.Hex()+"/balances:listErc20?contractAddresses="+tokA.Hex(), &resp)
			if want := c.BalanceOf(tokA, who, nil, c.Head()).String(); len(resp.Erc20TokenBalances) != 1 || resp.Erc20TokenBalances[0].Balance != want {
				t.Errorf("%s's A after the restart: %+v, want %s", who.Hex()[:6], resp.Erc20TokenBalances, want)
			}
		}
	})
}

// TestLive: blocks are indexed as they are accepted; an address appears
// in /v1/address/{address}/chains with the block of its first activity; a
// chain that starts later is found and indexed; a stopped chain is
// UNAVAILABLE.
func TestLive(t *testing.T) {
	c := fakeevm.New(43112)
	d := fakeevm.New(99999)
	chains := map[ids.ID]*fakeevm.Chain{chainC.ID: c, chainD.ID: d}
	e := startEnv(t, envOptions{infos: []host.ChainInfo{chainC}, chains: chains})
	newcomer := common.HexToAddress("0x00000000000000000000000000000000000000ee")
	var ac api.ListAddressChainsResponse
	e.getJSON("/v1/address/"+newcomer.Hex()+"/chains", &ac)
	if len(ac.IndexedChains) != 0 {
		t.Fatalf("before any activity: %+v", ac)
	}
	for n := range 3 {
		b := c.NewBlock()
		b.Tx(alice, &bob, big.NewInt(1), nil)
		if n == 2 {
			b.Tx(alice, &newcomer, big.NewInt(1), nil)
		}
		b.Commit()
		e.sync(chainC.ID)
		e.waitIndexed("C", c.Head())
		e.getJSON("/v1/address/"+newcomer.Hex()+"/chains", &ac)
		if got := len(ac.IndexedChains); (n < 2 && got != 0) || (n == 2 && got != 1) {
			t.Fatalf("after block %d: %+v", n+1, ac)
		}
	}

	// A second EVM chain starts.
	b := d.NewBlock()
	b.Tx(newcomer, &bob, big.NewInt(1), nil)
	b.Commit()
	e.h.SetChain(chainD)
	e.sync(chainD.ID)
	e.waitIndexed("dchain", 1)
	e.getJSON("/v1/address/"+newcomer.Hex()+"/chains", &ac)
	var got []string
	for _, ci := range ac.IndexedChains {
		got = append(got, ci.ChainID+":"+ci.ChainName)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"43112:C-Chain", "99999:dchain"}) {
		t.Errorf("the newcomer's chains: %v", got)
	}
	var tx api.ListTransactionDetailsResponse
	e.getJSON("/v1/chains/99999/addresses/"+newcomer.Hex()+"/transactions", &tx)
	if len(tx.Transactions) != 1 || tx.Transactions[0].NativeTransaction.ChainID != "99999" {
		t.Errorf("on dchain: %+v", tx)
	}

	// It stops.
	stopped := chainD
	stopped.Running = false
	e.h.SetChain(stopped)
	plugintest.Eventually(t, 10*time.Second, func() error {
		var chains api.ListChainsResponse
		e.getJSON("/v1/chains", &chains)
		status := map[string]string{}
		for _, ci := range chains.Chains {
			status[ci.ChainID] = ci.Status
		}
		if status["99999"] != "UNAVAILABLE" || status["43112"] != "OK" {
			return fmt.Errorf("statuses %v", status)
		}
		return nil
	})
	details, err := e.h.HealthDetails(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cd, _ := details["chains"].(map[string]any)["C"].(map[string]any)
	if cd["height"] != 3.0 || cd["accepted"] != 3.0 || cd["lag"] != 0.0 || cd["evmChainId"] != 43112.0 || details["store"] != "pebble" {
		t.Errorf("health details %v", details)
	}
	if got := metric(t, e.h, "dataapi_indexer_height", "dchain"); got != 1 {
		t.Errorf("dchain height metric %v", got)
	}
}

// TestFetching: a chain that does not serve its genesis block, answers cut
// short by the transaction cap, and failures are all survived.
func TestFetching(t *testing.T) {
	c := fakeevm.New(43112)
	c.NoGenesis = true
	c.MaxTxs = 3
	buildScenario(c, 10)
	c.FailGetBlocks(2)
	e := startEnv(t, envOptions{
		config: `{"rate-limit": {"anonymous": {"per-second": 0}}, "indexer": {"blocks-per-request": 7, "requests-in-flight": 3}}`,
		infos:  []host.ChainInfo{chainC}, chains: map[ids.ID]*fakeevm.Chain{chainC.ID: c},
	})
	e.waitIndexed("C", c.Head())
	var blk api.Block
	e.getJSON(fmt.Sprintf("/v1/chains/43112/blocks/%d", c.Head()), &blk)
	if blk.CumulativeTransactions != "34" {
		t.Errorf("cumulative transactions %s, want 34", blk.CumulativeTransactions)
	}
	e.wantError("/v1/chains/43112/blocks/0", 404, "block 0 not found on chain 43112 (indexed to block 18)")
	if got := metric(t, e.h, "dataapi_indexer_errors_total", "C"); got < 1 {
		t.Errorf("errors metric %v after injected failures", got)
	}
	if n := c.Calls("indexer_getBlocks"); n < 6 {
		t.Errorf("%d getBlocks calls: the transaction cap should have cut answers", n)
	}
}

// TestEmptyAnswers: a chain that answers no block for blocks its index
// already holds (the EVM serves a block once the index has taken it, a
// moment after the feed shows it) is asked again after short, growing
// pauses; after about 2 s of empty answers indexing starts over, once,
// and the blocks are indexed when the chain answers.
func TestEmptyAnswers(t *testing.T) {
	c := fakeevm.New(43112)
	e := startEnv(t, envOptions{
		config: `{"rate-limit": {"anonymous": {"per-second": 0}}, "indexer": {"requests-in-flight": 1}}`,
		infos:  []host.ChainInfo{chainC}, chains: map[ids.ID]*fakeevm.Chain{chainC.ID: c},
	})
	e.waitIndexed("C", 0)
	buildScenario(c, 3)
	// 105 empty answers make 2 s of pauses (1, 2, 4, 8, 16 ms, then 20 ms).
	c.EmptyGetBlocks(150)
	e.sync(chainC.ID)
	e.waitIndexed("C", c.Head())
	if n := c.Calls("indexer_getBlocks"); n < 151 {
		t.Errorf("%d getBlocks calls for 150 empty answers", n)
	}
	if got := metric(t, e.h, "dataapi_indexer_errors_total", "C"); got != 1 {
		t.Errorf("indexing started over %v times, want once", got)
	}
}

// fixedPrices is a price source with one price per token.
type fixedPrices map[common.Address]float64

func (p fixedPrices) Price(_ context.Context, q price.Query) (float64, bool, error) {
	v, ok := p[q.Token]
	return v, ok, nil
}

// TestPrices: with a price source, prices and values appear, in the
// requested currency; a token without a price has none.
func TestPrices(t *testing.T) {
	c := fakeevm.New(43112)
	buildScenario(c, 0)
	e := startEnv(t, envOptions{
		infos: []host.ChainInfo{chainC}, chains: map[ids.ID]*fakeevm.Chain{chainC.ID: c},
		module: dataapi.New(dataapi.Options{Prices: fixedPrices{{}: 20, tokA: 0.5}}),
	})
	e.waitIndexed("C", c.Head())
	var resp api.ListErc20BalancesResponse
	e.getJSON("/v1/chains/43112/addresses/"+bob.Hex()+"/balances:listErc20?currency=eur", &resp)
	n := resp.NativeTokenBalance
	if n.Price == nil || n.Price.CurrencyCode != "eur" || n.Price.Value != 20 || n.BalanceValue == nil || n.BalanceValue.Value != 20*2 {
		t.Errorf("native balance with prices: %+v %+v %+v", n, n.Price, n.BalanceValue)
	}
	a := resp.Erc20TokenBalances[0]
	if a.Price == nil || a.Price.Value != 0.5 || a.BalanceValue == nil || a.BalanceValue.Value != 35 { // 70 TKA
		t.Errorf("token A with prices: %+v", a)
	}
	var respB api.ListErc20BalancesResponse
	e.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/balances:listErc20?contractAddresses="+tokB.Hex(), &respB)
	if b := respB.Erc20TokenBalances[0]; b.Price != nil || b.BalanceValue != nil {
		t.Errorf("token B has no price: %+v", b)
	}
}

// TestConfig: strict JSON naming the bad key, checked values, the network
// from the network ID or the config, chain descriptions.
func TestConfig(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{`{"colour": "red"}`, `unknown field "colour"`},
		{`{"indexer": {"blocks": 5}}`, `unknown field "blocks"`},
		{`{"chains": {"C": {"nme": "x"}}}`, `unknown field "nme"`},
		{`{"network": "moon"}`, `network: must be one of mainnet|fuji|testnet`},
		{`{"public-url": "ftp://x"}`, `public-url: must be an http or https URL`},
		{`{"rate-limit": {"anonymous": {"per-second": 1, "burst": 0}}}`, `rate-limit: anonymous.burst: must be at least 1`},
		{`{"indexer": {"blocks-per-request": 0}}`, `indexer.blocks-per-request: must be from 1 to 1024, got 0`},
		{`{"nft-metadata": {"timeout": "soon"}}`, `nft-metadata.timeout: duration "soon": must be like "2s" or "500ms"`},
		{`{"page-token-ttl": "5"}`, `page-token-ttl: duration "5": must be like "2s" or "500ms"`},
		{`{"page-token-ttl": "-5s"}`, `page-token-ttl: duration -5s: must not be negative`},
		{`{"store": {"engine": "rocks"}}`, `store.engine: must be pebble, leveldb or postgres, got "rocks"`},
		{`{"chains": {"C": {"features": ["magic"]}}}`, `chains.C.features[0]: must be one of nftIndexing|webhooks|teleporter, got "magic"`},
		{`{} {}`, `unexpected data after the JSON value`},
		{`{"external-chains": [{"name": "l1", "chain-id": 1, "rpc-url": "http://h/rpc", "colour": 1}]}`, `unknown field "colour"`},
		{`{"external-chains": [{"name": "l1", "rpc-url": "ftp://h"}]}`,
			`external-chains[0].chain-id: must be set (the EVM chain ID the node answers to eth_chainId); external-chains[0].rpc-url: must be a http or https URL, got "ftp://h"`},
		{`{"external-chains": [{"name": "l1", "chain-id": 1, "rpc-url": "http://h/rpc", "blocks-per-request": 2000}]}`,
			`external-chains[0].blocks-per-request: must be from 1 to 1024, got 2000`},
		{`{"external-chains": [{"name": "l1", "chain-id": 1, "rpc-url": "http://h/rpc"}, {"name": "l1", "chain-id": 2, "rpc-url": "http://h/rpc"}]}`,
			`external-chains[1].name: "l1" is also the name of external-chains[0]`},
	} {
		err := dataapi.New(dataapi.Options{}).Initialize(t.Context(), &sdk.Env{Name: "data", Config: []byte(tc.config), DataDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "module data config") {
			t.Errorf("config %s: %v, want an error with %q", tc.config, err, tc.want)
		}
	}
	cfg, err := dataapi.ParseConfig(nil)
	if err != nil || cfg.Store.Engine != "pebble" || cfg.Indexer.BlocksPerRequest != 100 || cfg.NFTMetadata.Fetch {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
	cfg, err = dataapi.ParseConfig([]byte(`{"external-chains": [{"name": "l1", "chain-id": 7, "rpc-url": "http://h/rpc"}]}`))
	if e := cfg.ExternalChains; err != nil || len(e) != 1 || e[0].BlocksPerRequest != 20 || e[0].RequestsInFlight != 4 || e[0].MaxReorgDepth != 64 {
		t.Errorf("external chain defaults: %+v, %v", cfg.ExternalChains, err)
	}

	c := fakeevm.New(43112)
	for _, tc := range []struct {
		networkID uint32
		config    string
		mainnet   bool
	}{
		{1, `{"rate-limit": {"anonymous": {"per-second": 0}}}`, true},
		{12345, `{"network": "mainnet", "rate-limit": {"anonymous": {"per-second": 0}}}`, true},
		{1, `{"network": "fuji", "rate-limit": {"anonymous": {"per-second": 0}}}`, false},
	} {
		e := startEnv(t, envOptions{networkID: tc.networkID, config: tc.config, infos: []host.ChainInfo{chainC}, chains: map[ids.ID]*fakeevm.Chain{chainC.ID: c}})
		var chains api.ListChainsResponse
		plugintest.Eventually(t, 10*time.Second, func() error {
			e.getJSON("/v1/chains?network=mainnet", &chains)
			if !tc.mainnet {
				e.getJSON("/v1/chains?network=testnet", &chains)
			}
			if len(chains.Chains) == 0 {
				return errors.New("no chain listed")
			}
			return nil
		})
		if len(chains.Chains) != 1 || chains.Chains[0].IsTestnet == tc.mainnet {
			t.Errorf("network %d with %s: %+v", tc.networkID, tc.config, chains)
		}
	}

	e := startEnv(t, envOptions{config: `{"public-url": "https://node.example/", "rate-limit": {"anonymous": {"per-second": 0}},
		"chains": {"43112": {"name": "Local C", "description": "the local C-Chain", "logo-uri": "https://x.example/c.png",
		"explorer-url": "https://explorer.example", "subnet-id": "11111111111111111111111111111111LpoYY", "multicall": "0xcA11bde05977b3631167028862bE2a173976CA11",
		"private": true, "features": ["nftIndexing"], "network-token": {"name": "Local", "symbol": "LOC", "decimals": 9}}}}`,
		infos: []host.ChainInfo{chainC}, chains: map[ids.ID]*fakeevm.Chain{chainC.ID: c}})
	var chains api.ListChainsResponse
	plugintest.Eventually(t, 10*time.Second, func() error {
		if e.getJSON("/v1/chains?feature=nftIndexing", &chains); len(chains.Chains) == 0 {
			return errors.New("no chain listed")
		}
		return nil
	})
	if len(chains.Chains) != 1 {
		t.Fatalf("configured chain: %+v", chains)
	}
	ci := chains.Chains[0]
	if ci.ChainName != "Local C" || ci.Description != "the local C-Chain" || ci.ChainLogoURI != "https://x.example/c.png" ||
		ci.ExplorerURL != "https://explorer.example" || ci.SubnetID == "" || ci.UtilityAddresses == nil || !ci.Private ||
		ci.RPCURL != "https://node.example/ext/bc/C/rpc" || ci.WSURL != "wss://node.example/ext/bc/C/ws" ||
		ci.NetworkToken != (api.NetworkToken{Name: "Local", Symbol: "LOC", Decimals: 9, Description: "The native token of the C-Chain."}) {
		t.Errorf("configured chain: %+v", ci)
	}
}
