package bench

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
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
		db := &memDB{m: map[string][]byte{"k/k": []byte("v")}}
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

// memDB is the in-memory host database of the in-process baseline.
type memDB struct {
	mu sync.RWMutex
	m  map[string][]byte
}

func (d *memDB) Get(_ context.Context, key []byte) ([]byte, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	v, ok := d.m[string(key)]
	if !ok {
		return nil, host.ErrNotFound
	}
	return v, nil
}

func (d *memDB) Has(ctx context.Context, key []byte) (bool, error) {
	_, err := d.Get(ctx, key)
	return err == nil, nil
}

func (d *memDB) Put(_ context.Context, key, value []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m[string(key)] = append([]byte(nil), value...)
	return nil
}

func (d *memDB) Delete(_ context.Context, key []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.m, string(key))
	return nil
}

func (d *memDB) Write(ctx context.Context, ops []host.Op, _ bool) error {
	for _, op := range ops {
		if op.Delete {
			_ = d.Delete(ctx, op.Key)
		} else {
			_ = d.Put(ctx, op.Key, op.Value)
		}
	}
	return nil
}

func (d *memDB) Iterate(context.Context, []byte, []byte, func(k, v []byte) error) error {
	return nil
}
