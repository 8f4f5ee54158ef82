package e2e

import (
	"testing"

	"github.com/chainhost/chainhost/core/nodetest"
)

// TestMetricsAPISDK runs the metrics API conformance suite against the
// real node: after validators, delegators and L1 validators changed at
// known times on its P-Chain (manual clock), the official client SDK
// (@avalanche-sdk/chainkit, validation on) reads every v2 endpoint, pages
// through the staking series, and every value is checked against the
// P-Chain's own reads (docs/metrics-api.md, "Conformance suite").
func TestMetricsAPISDK(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: metricsPConfig()})
	w := pchainWallet(t, n)
	sc := metricsPrimary(t, w)
	metricsL1(t, w, sc)
	runSDKSuite(t, "metrics.test.js", "METRICS_NODE_URL="+n.URL)
}
