package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// TestMetricsExternalChain: a node whose metrics module lists another
// node's C-Chain as an external chain (read through that node's
// /ext/bc/C/rpc, one confirmation) answers /v1/avg_tps for it, by name,
// with the per-day values the other node answers for its own C-Chain; its
// own C-Chain keeps EVM chain ID 43112. An external chain whose node does
// not answer is failing in /ext/health while the node stays healthy
// (docs/metrics-api.md, "External chains").
func TestMetricsExternalChain(t *testing.T) {
	t.Parallel()
	a := nodetest.Start(t, nodetest.Options{Config: metricsConfig})
	b := nodetest.Start(t, nodetest.Options{Config: fmt.Sprintf(`
modules:
  - name: metrics
    plugin: metricsapi
    config:
      rate-limit: {anonymous: {per-second: 0}}
      external-chains:
        - {name: remote-c, chain-id: 43112, rpc-url: %s/ext/bc/C/rpc, confirmations: 1}
        - {name: down, chain-id: 7, rpc-url: "http://127.0.0.1:1/rpc"}
`, a.URL)})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := evmDial(t, a, "C", "rpc")
	s := newSender(t, ctx, c, evmKey(t))
	bob := common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	for range 3 {
		s.send(ctx, &bob, big.NewInt(1), nil, 21000)
	}
	var out any
	if err := c.Client().CallContext(ctx, &out, "evm_increaseTime", 86400); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s.send(ctx, &bob, big.NewInt(1), nil, 21000)
	}
	if err := c.Client().CallContext(ctx, &out, "evm_mine"); err != nil { // the confirmation
		t.Fatal(err)
	}
	want, _ := evmDays(t, ctx, c)
	if len(want) != 2 {
		t.Fatalf("the C-Chain's blocks span %d days, want 2", len(want))
	}
	own := waitAvgTPS(t, a, "43112", want)
	external := waitAvgTPS(t, b, "remote-c", want)
	if fmt.Sprint(own.Results) != fmt.Sprint(external.Results) {
		t.Errorf("remote-c: %+v, want the other node's own %+v", external.Results, own.Results)
	}
	status, body := restGet(t, ctx, b.URL+"/v1/avg_tps/43112")
	var mine api.AvgTPSResponse
	if status != 200 || json.Unmarshal(body, &mine) != nil || len(mine.Results) != 0 {
		t.Errorf("43112 on the second node = %d %s, want its own C-Chain, without a block", status, body)
	}
	plugintest.Eventually(t, 30*time.Second, func() error {
		var health struct {
			Healthy bool `json:"healthy"`
			Checks  map[string]struct {
				Healthy bool `json:"healthy"`
				Details struct {
					Chains map[string]map[string]any `json:"chains"`
				} `json:"details"`
			} `json:"checks"`
		}
		status, body := restGet(t, ctx, b.URL+"/ext/health")
		if err := json.Unmarshal(body, &health); err != nil {
			return err
		}
		m := health.Checks["module/metrics"]
		if status != 200 || !health.Healthy || !m.Healthy || m.Details.Chains["down"]["status"] != "failing" ||
			m.Details.Chains["down"]["error"] == nil || m.Details.Chains["remote-c"]["status"] != "following" {
			return fmt.Errorf("health = %d %s, want healthy, down failing and remote-c following", status, body)
		}
		return nil
	})
}
