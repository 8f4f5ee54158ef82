package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/index"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The index benchmarks of issue 4, through core/index's public API: the
// append rate the host's accept-container service can sustain, and the
// latency of the index API over HTTP on a big index.

// indexContainerSize is the size of every benchmark container (1 KiB).
const indexContainerSize = 1024

// indexBenchChain is the chain of the benchmark indexes.
var indexBenchChain = ids.Derive([]byte("bench chain"))

// indexContainerID returns the ID of the n-th benchmark container: a
// sha256, as real container IDs are.
func indexContainerID(n uint64) ids.ID {
	return ids.ID(sha256.Sum256(binary.BigEndian.AppendUint64([]byte("container"), n)))
}

// indexContainerBytes returns 1 KiB of content that differs per container.
func indexContainerBytes(n uint64) []byte {
	b := make([]byte, indexContainerSize)
	rng := rand.New(rand.NewPCG(n, 7))
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rng.Uint64())
	}
	return b
}

// openIndex opens a fresh database in a temporary directory and returns
// the benchmark chain's "block" index in it, as the host sets it up
// (appends not synced to disk).
func openIndex(b *testing.B, sync bool) (*index.Index, *storage.DB, string) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "db")
	db, err := storage.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	x, err := index.New(index.Options{NS: db.Namespace("index"), DB: db, Sync: sync})
	if err != nil {
		b.Fatal(err)
	}
	return x.Index(indexBenchChain, "block"), db, dir
}

// reportRate reports containers appended per second.
func reportRate(b *testing.B, containers int) {
	b.ReportMetric(float64(containers)/b.Elapsed().Seconds(), "containers/s")
}

// BenchmarkIndexAppend appends 1 KiB containers: one per atomic write
// (single), as the VM's accept-container call does, also with the VM's own
// state writes in the same batch (single+state, like the example VM) and
// waiting for the disk (single-sync); and 100 per write (batch100), as a
// backfill does. One op is one write.
func BenchmarkIndexAppend(b *testing.B) {
	for _, tc := range []struct {
		name     string
		perWrite int
		sync     bool
		vmState  bool
	}{
		{name: "single", perWrite: 1},
		{name: "single+state", perWrite: 1, vmState: true},
		{name: "single-sync", perWrite: 1, sync: true},
		{name: "batch100", perWrite: 100},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ix, db, _ := openIndex(b, tc.sync)
			vm := db.Namespace("chains").Namespace("vm")
			bodies := make([][]byte, 64)
			for i := range bodies {
				bodies[i] = indexContainerBytes(uint64(i))
			}
			n := uint64(0) // containers appended so far
			var extra func(*storage.Batch) error
			if tc.vmState {
				// What the example VM writes with each block: the block,
				// the key's value and its block count.
				extra = func(batch *storage.Batch) error {
					in := batch.In(vm)
					in.Put(binary.BigEndian.AppendUint64([]byte("b/"), n), bodies[n%64])
					in.Put([]byte("k/key"), []byte("value"))
					in.Put([]byte("n"), binary.BigEndian.AppendUint64(nil, n+1))
					return nil
				}
			}
			entries := make([]index.Entry, tc.perWrite)
			ts := time.Now()
			b.SetBytes(int64(tc.perWrite * indexContainerSize))
			b.ReportAllocs()
			for b.Loop() {
				if tc.perWrite == 1 {
					if _, err := ix.Accept(indexContainerID(n), bodies[n%64], ts, extra); err != nil {
						b.Fatal(err)
					}
					n++
					continue
				}
				for i := range entries {
					entries[i] = index.Entry{ID: indexContainerID(n), Bytes: bodies[n%64], Timestamp: ts}
					n++
				}
				if _, err := ix.AcceptMany(entries, nil); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, b.N*tc.perWrite)
		})
	}
}

// indexBigSize returns the number of containers of the big index:
// CHAINHOST_BENCH_CONTAINERS, a million by default.
func indexBigSize(b *testing.B) uint64 {
	s := os.Getenv("CHAINHOST_BENCH_CONTAINERS")
	if s == "" {
		return 1_000_000
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n < index.MaxFetchedByRange {
		b.Fatalf("CHAINHOST_BENCH_CONTAINERS=%q: want an integer of at least %d", s, index.MaxFetchedByRange)
	}
	return n
}

// buildBigIndex appends size 1 KiB containers, 1000 per write, and waits
// for the database to finish compacting them, so that reads are measured
// in a steady state.
func buildBigIndex(b *testing.B, size uint64) *index.Index {
	b.Helper()
	ix, _, dir := openIndex(b, false)
	start := time.Now()
	const perWrite = 1000
	bodies := make([][]byte, 256)
	for i := range bodies {
		bodies[i] = indexContainerBytes(uint64(i))
	}
	ts := time.Now()
	entries := make([]index.Entry, 0, perWrite)
	for n := range size {
		entries = append(entries, index.Entry{ID: indexContainerID(n), Bytes: bodies[n%256], Timestamp: ts.Add(time.Duration(n))})
		if len(entries) == perWrite || n == size-1 {
			if _, err := ix.AcceptMany(entries, nil); err != nil {
				b.Fatal(err)
			}
			entries = entries[:0]
		}
	}
	built := time.Since(start)
	waitQuiet(b, dir)
	b.Logf("built an index of %d containers of %d bytes in %s; compactions settled after %s",
		size, indexContainerSize, built.Round(time.Millisecond), (time.Since(start) - built).Round(time.Millisecond))
	return ix
}

// waitQuiet waits until the files of the database in dir stay the same
// for two seconds (background compactions are done), at most two minutes.
func waitQuiet(b *testing.B, dir string) {
	b.Helper()
	snapshot := func() string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		var s bytes.Buffer
		for _, e := range entries {
			if info, err := e.Info(); err == nil {
				fmt.Fprintf(&s, "%s:%d ", e.Name(), info.Size())
			}
		}
		return s.String()
	}
	last, stable := snapshot(), 0
	for deadline := time.Now().Add(2 * time.Minute); stable < 4 && time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
		if now := snapshot(); now == last {
			stable++
		} else {
			last, stable = now, 0
		}
	}
}

// indexClient posts JSON-RPC requests to the index API and measures them.
type indexClient struct {
	url    string
	client *http.Client
	lat    []time.Duration
	buf    bytes.Buffer // the latest response body, its memory reused
}

// call posts one request and returns the response body, read to the end;
// it is valid until the next call.
func (c *indexClient) call(b *testing.B, method string, params any) []byte {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	resp, err := c.client.Post(c.url, "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	c.buf.Reset()
	_, err = c.buf.ReadFrom(resp.Body)
	_ = resp.Body.Close()
	c.lat = append(c.lat, time.Since(start))
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: HTTP %d, %v", method, resp.StatusCode, err)
	}
	return c.buf.Bytes()
}

// report adds the median and 99th percentile latencies to the results.
func (c *indexClient) report(b *testing.B) {
	if len(c.lat) == 0 {
		return
	}
	slices.Sort(c.lat)
	at := func(q float64) float64 {
		return float64(c.lat[int(q*float64(len(c.lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}

// decodeResult decodes a JSON-RPC response's result, failing on an error.
func decodeResult(b *testing.B, data []byte, result any) {
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Error != nil {
		b.Fatalf("answer %.200s: %v", data, err)
	}
	if err := json.Unmarshal(out.Result, result); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkIndexHTTP serves an index of a million 1 KiB containers (built
// once, see CHAINHOST_BENCH_CONTAINERS) with index.NewHandler on an
// httptest server and measures, from a client over loopback HTTP:
// index.getContainerRange of 1024 containers at random places (range1024),
// index.getContainerByID of random containers (byID) and
// index.getContainerByIndex (byIndex). Each op is one request, timed until
// the whole answer is read; p50-ms and p99-ms are its latency quantiles.
func BenchmarkIndexHTTP(b *testing.B) {
	size := indexBigSize(b)
	ix := buildBigIndex(b, size)
	srv := httptest.NewServer(index.NewHandler(ix, index.ServiceOptions{}))
	b.Cleanup(srv.Close)
	newClient := func() *indexClient {
		return &indexClient{url: srv.URL, client: srv.Client()}
	}

	b.Run("range1024", func(b *testing.B) {
		c := newClient()
		rng := rand.New(rand.NewPCG(1, 2))
		// Check one answer in full, outside the timing.
		var first []struct {
			ID    ids.ID `json:"id"`
			Index string `json:"index"`
		}
		decodeResult(b, c.call(b, "index.getContainerRange", map[string]any{"startIndex": 5, "numToFetch": 1024, "encoding": "hex"}), &first)
		if len(first) != 1024 || first[0].ID != indexContainerID(5) || first[1023].Index != "1028" {
			b.Fatalf("getContainerRange from 5 answered %d containers", len(first))
		}
		c.lat = c.lat[:0]
		b.SetBytes(1024 * indexContainerSize)
		b.ReportAllocs()
		for b.Loop() {
			start := rng.Uint64N(size - 1024 + 1)
			data := c.call(b, "index.getContainerRange", map[string]any{"startIndex": start, "numToFetch": 1024, "encoding": "hex"})
			// Each container's hex bytes alone are over 2 KiB.
			if len(data) < 1024*2*indexContainerSize {
				b.Fatalf("getContainerRange from %d: %d bytes: %.200s", start, len(data), data)
			}
		}
		c.report(b)
	})

	b.Run("byID", func(b *testing.B) {
		c := newClient()
		rng := rand.New(rand.NewPCG(3, 4))
		b.ReportAllocs()
		for b.Loop() {
			n := rng.Uint64N(size)
			data := c.call(b, "index.getContainerByID", map[string]any{"id": indexContainerID(n), "encoding": "hex"})
			if !bytes.Contains(data, []byte(fmt.Sprintf(`"index":"%d"`, n))) {
				b.Fatalf("getContainerByID of container %d: %.200s", n, data)
			}
		}
		c.report(b)
	})

	b.Run("byIndex", func(b *testing.B) {
		c := newClient()
		rng := rand.New(rand.NewPCG(5, 6))
		b.ReportAllocs()
		for b.Loop() {
			n := rng.Uint64N(size)
			data := c.call(b, "index.getContainerByIndex", map[string]any{"index": n, "encoding": "hex"})
			if !bytes.Contains(data, []byte(`"id":"`+indexContainerID(n).String()+`"`)) {
				b.Fatalf("getContainerByIndex(%d): %.200s", n, data)
			}
		}
		c.report(b)
	})
}
