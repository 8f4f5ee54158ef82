package metricsapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/metricsapi"
)

// TestConfig: strict JSON naming the bad key; checked values; the
// defaults.
func TestConfig(t *testing.T) {
	for _, c := range []struct{ config, wantErr string }{
		{`{"nope": 1}`, `unknown field "nope"`},
		{`{"network": "moon"}`, `network: must be one of mainnet|fuji|testnet, or empty to follow the network ID, got "moon"`},
		{`{"page-token-ttl": "30s"}`, `page-token-ttl: must be at least 1m, got 30s`},
		{`{"page-token-ttl": 5}`, `page-token-ttl: must be at least 1m, got 5s`},
		{`{"page-token-ttl": "5"}`, `page-token-ttl: duration "5": must be like "2s" or "500ms"`},
		{`{} {}`, `unexpected data after the JSON value`},
		{`{"external-chains": [{"name": "l1", "chain-id": 1, "rpc-url": "http://h/rpc", "nope": 1}]}`, `unknown field "nope"`},
		{`{"external-chains": [{"name": "l1", "rpc-url": "ftp://h"}]}`,
			`external-chains[0].chain-id: must be set (the EVM chain ID the node answers to eth_chainId); external-chains[0].rpc-url: must be a http or https URL, got "ftp://h"`},
		{`{"external-chains": [{"name": "l1", "chain-id": 1, "rpc-url": "http://h/rpc"}, {"name": "l1", "chain-id": 2, "rpc-url": "http://h/rpc"}]}`,
			`external-chains[1].name: "l1" is also the name of external-chains[0]`},
	} {
		if _, err := metricsapi.ParseConfig([]byte(c.config)); err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: %v, want %q", c.config, err, c.wantErr)
		}
	}
	for _, ok := range []string{``, `null`, `{"network": "testnet", "page-token-ttl": "1h"}`} {
		cfg, err := metricsapi.ParseConfig([]byte(ok))
		if err != nil {
			t.Errorf("%q: %v", ok, err)
		}
		if ok == `` && (cfg.PageTokenTTL.D() != 24*time.Hour || cfg.Network != "" || cfg.RateLimit.Anonymous.PerSecond != 20 || len(cfg.ExternalChains) != 0) {
			t.Errorf("defaults: %+v", cfg)
		}
	}
	// An external chain's zero limits take evmremote's defaults.
	cfg, err := metricsapi.ParseConfig([]byte(`{"external-chains": [{"name": "l1", "chain-id": 1, "rpc-url": "http://h/rpc", "blocks-per-request": 5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := cfg.ExternalChains[0]; c.BlocksPerRequest != 5 || c.RequestsInFlight != evmremote.DefaultRequestsInFlight || c.MaxReorgDepth != evmremote.DefaultMaxReorgDepth {
		t.Errorf("external chain: %+v", c)
	}
}

// TestNetworkConfig: the network key decides which network names the v2
// paths answer to; the node's network ID does otherwise (12345 in these
// tests: the test network).
func TestNetworkConfig(t *testing.T) {
	clk := &clock{now: time.Unix(day0, 0)}
	noP := restError(404, "this node runs no P-Chain: the staking and L1 validator fee series come from it")
	local := start(t, t.TempDir(), noLimits, clk)
	local.wantError("/v2/networks/testnet/metrics/validatorCount", 404, noP)
	local.wantError("/v2/networks/mainnet/metrics/validatorCount", 404, restError(404, "this node does not serve network mainnet"))
	main := start(t, t.TempDir(), `{"network": "mainnet", "rate-limit": {"anonymous": {"per-second": 0}}}`, clk)
	main.wantError("/v2/networks/mainnet/metrics/validatorCount", 404, noP)
	main.wantError("/v2/networks/fuji/metrics/validatorCount", 404, restError(404, "this node does not serve network fuji"))
}
