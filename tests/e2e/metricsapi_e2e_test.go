package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// metricsConfig runs the default chains and the metrics module without
// rate limits.
const metricsConfig = `
modules:
  - name: metrics
    plugin: metricsapi
    config:
      rate-limit: {anonymous: {per-second: 0}}
`

// dayTxs counts a chain's transactions per UTC day (unix day number).
type dayTxs map[int64]float64

// evmDays reads every block of an EVM chain with go-ethereum's client.
func evmDays(t *testing.T, ctx context.Context, c *ethclient.Client) (dayTxs, uint64) {
	t.Helper()
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	days := dayTxs{}
	for n := uint64(1); n <= head; n++ {
		b, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		days[int64(b.Time())/86400] += float64(len(b.Transactions()))
	}
	return days, head
}

// waitAvgTPS polls /v1/avg_tps/{chain} until its points equal want,
// newest day first and every day in between.
func waitAvgTPS(t *testing.T, n *nodetest.Node, chain string, want dayTxs) api.AvgTPSResponse {
	t.Helper()
	var first, last int64 = 1 << 62, 0
	for d := range want {
		first, last = min(first, d), max(last, d)
	}
	var got api.AvgTPSResponse
	plugintest.Eventually(t, 60*time.Second, func() error {
		got = api.AvgTPSResponse{}
		status, body := restGet(t, context.Background(), n.URL+"/v1/avg_tps/"+chain)
		ok := status == 200 && json.Unmarshal(body, &got) == nil && len(got.Results) == int(last-first+1)
		for i := 0; ok && i < len(got.Results); i++ {
			d := last - int64(i)
			ok = got.Results[i].Timestamp == d*86400 && got.Results[i].Value == want[d]/86400
		}
		if !ok {
			return fmt.Errorf("avg_tps of %s = %d %s, want per day %v (tx counts)", chain, status, body, want)
		}
		return nil
	})
	return got
}

// TestMetricsAvgTPS: on the real node the metrics module counts the
// C-Chain's transactions per UTC day of their blocks' timestamps (the
// chain's clock moved two days on with evm_increaseTime) and the
// X-Chain's and the P-Chain's, and serves them by EVM chain ID, alias and
// blockchain ID.
func TestMetricsAvgTPS(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: metricsConfig})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := evmDial(t, n, "C", "rpc")
	s := newSender(t, ctx, c, evmKey(t))
	bob := common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	for range 3 {
		s.send(ctx, &bob, big.NewInt(1), nil, 21000)
	}
	var moved string
	if err := c.Client().CallContext(ctx, &moved, "evm_increaseTime", 2*86400); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s.send(ctx, &bob, big.NewInt(1), nil, 21000)
	}
	want, _ := evmDays(t, ctx, c)
	if len(want) < 2 {
		t.Fatalf("the C-Chain's blocks span %d days, want at least 2", len(want))
	}
	var info struct {
		ID string `json:"blockchainID"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getBlockchainID", map[string]string{"alias": "C"}, &info); err != nil {
		t.Fatal(err)
	}
	for _, chain := range []string{"43112", "C", info.ID} {
		got := waitAvgTPS(t, n, chain, want)
		if got.Status != 200 || got.LastRun == 0 || got.NextPageToken != "" {
			t.Errorf("%s: %+v", chain, got)
		}
	}

	x := xchainWallet(t, n, "X", ewoqKey)
	for k := range 2 {
		if _, err := x.Send(ctx, x.FeeAsset, uint64(1_000+k), avax.ShortID{byte(k + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	xDays := dayTxs{}
	for _, ct := range walkIndexByIndex(t, n, "X", "block") {
		b, err := blocks.ParseBlock(ct.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		xDays[int64(b.Time)/86400] += float64(len(b.Txs))
	}
	if total := func() (s float64) {
		for _, v := range xDays {
			s += v
		}
		return s
	}(); total != 2 {
		t.Fatalf("X/block holds %v transactions, want 2", total)
	}
	waitAvgTPS(t, n, "X", xDays)

	// The P-Chain: two transfers, counted from P/block.
	p := pchainWallet(t, n)
	for k := range 2 {
		if _, err := p.Send(ctx, uint64(1_000+k), avax.ShortID{byte(k + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	pDays := dayTxs{}
	for _, b := range walkPChainBlocks(t, n, p) {
		pDays[int64(b.Time)/86400] += float64(len(b.Txs))
	}
	waitAvgTPS(t, n, "P", pDays)
	status, body := restGet(t, ctx, n.URL+"/v1/avg_tps/example")
	wantRESTErrorMessages(t, status, body, 404, `chain "example" not found: use a blockchain ID or alias of a chain with a block index, or an EVM chain ID`)
}

// wantRESTErrorMessages checks a metrics v1 error body: message an array
// holding exactly want.
func wantRESTErrorMessages(t *testing.T, status int, body []byte, wantStatus int, want string) {
	t.Helper()
	var e struct {
		Message    []string `json:"message"`
		StatusCode int      `json:"statusCode"`
		Error      string   `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || status != wantStatus || e.StatusCode != wantStatus || len(e.Message) != 1 || e.Message[0] != want {
		t.Errorf("got %d %s, want %d with message [%q]: %v", status, body, wantStatus, want, fmt.Sprint(err))
	}
}
