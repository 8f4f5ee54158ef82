package metricsapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/metricsapi/api"
)

// TestChainsAndHealth: /v2/chains lists the EVM chains, each with its
// eth_chainId, primary alias and the subnet the P-Chain lists it under
// (the primary network for one it does not list), by network; one chain
// answers by EVM chain ID, blockchain ID and alias, a chain without an
// EVM chain ID or whose blocks the module does not read is a 404; the health and live checks answer the store up.
func TestChainsAndHealth(t *testing.T) {
	p := startP(t)
	e := startWith(t, t.TempDir(), noLimits, &clock{now: time.Unix(day0, 0)}, p, nil)
	const primary = "11111111111111111111111111111111LpoYY"
	c := api.Chain{EVMChainID: 43112, ChainName: "C", BlockchainID: chainC.ID.String(), SubnetID: primary, Network: "testnet"}
	d := api.Chain{EVMChainID: 99999, ChainName: "D", BlockchainID: chainD.ID.String(), SubnetID: primary, Network: "testnet"}
	for path, want := range map[string]any{
		"/v2/chains":                       api.ListChainsResponse{Chains: []api.Chain{c, d}},
		"/v2/chains?network=testnet":       api.ListChainsResponse{Chains: []api.Chain{c, d}},
		"/v2/chains?network=mainnet":       api.ListChainsResponse{Chains: []api.Chain{}},
		"/v2/chains/43112":                 c,
		"/v2/chains/" + chainD.ID.String(): d,
		"/v2/chains/D":                     d,
	} {
		status, _, body := e.get(path)
		w, _ := json.Marshal(want)
		if status != 200 || string(body) != string(w)+"\n" {
			t.Errorf("GET %s = %d %s, want 200 %s", path, status, body, w)
		}
	}
	e.wantError("/v2/chains/kv", 404, `{"message":"chain \"kv\" not found: use a blockchain ID or alias of a chain with a block index, or an EVM chain ID","statusCode":404,"error":"Not Found"}`)
	e.wantError("/v2/chains/P", 404, `{"message":"chain \"P\" is not an EVM chain: the chain metrics are kept for EVM chains","statusCode":404,"error":"Not Found"}`)
	e.wantError("/v2/chains?pageToken=x", 400, `{"message":"pageToken: not a page token of this API, got \"x\"; start again from the first page, without pageToken","statusCode":400,"error":"Bad Request"}`)
	for _, path := range []string{"/v2/health-check", "/v2/live-check"} {
		const want = `{"status":"ok","info":{"store":{"status":"up"}},"error":{},"details":{"store":{"status":"up"}}}` + "\n"
		if status, _, body := e.get(path); status != 200 || string(body) != want {
			t.Errorf("GET %s = %d %s, want 200 %s", path, status, body, want)
		}
	}
}
