package bench

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/host/hosttest"
)

// BenchmarkJSONRPCRoundTrip compares one JSON-RPC call (kv.get of the
// example VM) through the host binary to the plugin process with the same
// handler served in-process. Both go over loopback HTTP, so the difference
// is the host's routing and the gRPC hop to the plugin.
func BenchmarkJSONRPCRoundTrip(b *testing.B) {
	const body = `{"jsonrpc":"2.0","id":1,"method":"kv.subscribe","params":{}}`

	b.Run("host-to-plugin", func(b *testing.B) {
		n := nodetest.Start(b, nodetest.Options{Args: []string{"--log-display-level=WARN"}})
		if err := n.Call(context.Background(), "/ext/bc/example/rpc", "kv.put", map[string]string{"key": "k", "value": "v"}, nil); err != nil {
			b.Fatal(err)
		}
		run(b, n.URL+"/ext/bc/example/rpc", body)
	})

	b.Run("in-process", func(b *testing.B) {
		vm := example.New()
		db := hosttest.NewDatabase()
		if err := db.Put(context.Background(), []byte("k/k"), []byte("v")); err != nil {
			b.Fatal(err)
		}
		env := &sdk.Env{Logger: hclog.NewNullLogger(), Host: host.Services{DB: db}}
		if err := vm.Initialize(context.Background(), env); err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(vm.Handlers()["rpc"])
		defer srv.Close()
		run(b, srv.URL, body)
	})
}

// run posts body b.N times and reports the median latency.
func run(b *testing.B, url, body string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	lat := make([]int64, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := nowNanos()
		resp, err := client.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		_, _ = out.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(out.Bytes(), []byte(`WebSocket`)) {
			b.Fatalf("status %d: %s", resp.StatusCode, out.String())
		}
		lat = append(lat, nowNanos()-start)
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
	}
}
