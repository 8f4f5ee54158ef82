package dataapi_test

import (
	"testing"

	"github.com/chainhost/chainhost/sdk/host"
)

// TestServicePaths: the health and live checks answer the store up, in the
// contract's shape; the path a self-hosted node cannot serve answers 404
// saying why.
func TestServicePaths(t *testing.T) {
	e := startEnv(t, envOptions{infos: []host.ChainInfo{chainC}})
	for _, path := range []string{"/v1/health-check", "/v1/live-check"} {
		const want = `{"status":"ok","info":{"store":{"status":"up"}},"error":{},"details":{"store":{"status":"up"}}}` + "\n"
		if status, _, body := e.get(path); status != 200 || string(body) != want {
			t.Errorf("GET %s = %d %s, want 200 %s", path, status, body, want)
		}
	}
	e.wantError("/v1/primaryNetworkRpcUsageMetrics?network=fuji", 404,
		"/v1/primaryNetworkRpcUsageMetrics is not served by a self-hosted node: it reports the use of the hosted service's public Primary Network RPC endpoints, which a node does not have; this node's own requests are in its metrics (docs/data-api.md)")
}
