package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// benchBody is a small JSON-RPC request.
var benchBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)

// benchHandler answers a small JSON-RPC response after reading the body.
func benchHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x1b4"}`)
	})
}

// BenchmarkRoundTrip is a small POST through the host handler, gRPC over a
// unix socket (as go-plugin uses) and the plugin's handler.
func BenchmarkRoundTrip(b *testing.B) {
	e := newEnv(b, envOptions{handlers: map[string]http.Handler{"rpc": benchHandler()}, unix: true})
	benchPost(b, e.front.Client(), e.url("/ext/rpc"))
}

// BenchmarkRoundTripParallel is BenchmarkRoundTrip from 8 concurrent
// clients, every request on the shared channel stream (channel) against a
// ServeHTTP call per request (call-per-request, a plugin without the
// channel) and the handler served directly (direct). Client, host and
// plugin share one process and the two cores: ns/op is CPU-bound.
func BenchmarkRoundTripParallel(b *testing.B) {
	for _, tc := range []struct {
		name      string
		noChannel bool
		direct    bool
	}{{"channel", false, false}, {"call-per-request", true, false}, {"direct", false, true}} {
		b.Run(tc.name, func(b *testing.B) {
			var url string
			if tc.direct {
				srv := httptest.NewServer(benchHandler())
				b.Cleanup(srv.Close)
				url = srv.URL + "/"
			} else {
				e := newEnv(b, envOptions{handlers: map[string]http.Handler{"rpc": benchHandler()}, unix: true, noChannel: tc.noChannel})
				url = e.url("/ext/rpc")
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			b.SetParallelism(4)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Post(url, "application/json", bytes.NewReader(benchBody))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
		})
	}
}

// BenchmarkDirect is the same POST to the same handler served in-process.
func BenchmarkDirect(b *testing.B) {
	srv := httptest.NewServer(benchHandler())
	defer srv.Close()
	benchPost(b, srv.Client(), srv.URL+"/")
}

func benchPost(b *testing.B, client *http.Client, url string) {
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Post(url, "application/json", bytes.NewReader(benchBody))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkCarriers compares the carriers the handler chooses between, for
// a small POST and for one of 2 MiB, from 8 concurrent clients: the data
// socket (unix), the shared channel stream (channel) and a ServeHTTP call
// per request (call). The client, host and plugin share one process.
func BenchmarkCarriers(b *testing.B) {
	large := bytes.Repeat([]byte("x"), 2<<20)
	for _, size := range []struct {
		name string
		body []byte
	}{{"small", benchBody}, {"2MiB", large}} {
		for _, tc := range []struct {
			name            string
			data, noChannel bool
		}{{"unix", true, false}, {"channel", false, false}, {"call", false, true}} {
			if tc.name == "channel" && len(size.body) > channelMaxBody {
				continue // such a body takes a call of its own
			}
			b.Run(size.name+"/"+tc.name, func(b *testing.B) {
				e := newEnv(b, envOptions{handlers: map[string]http.Handler{"rpc": benchHandler()}, unix: true,
					data: tc.data, noChannel: tc.noChannel, host: Options{MaxBodyBytes: 4 << 20}})
				url := e.url("/ext/rpc")
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
				b.SetParallelism(4)
				b.SetBytes(int64(len(size.body)))
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						resp, err := client.Post(url, "application/json", bytes.NewReader(size.body))
						if err != nil {
							b.Error(err)
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							b.Errorf("status %d", resp.StatusCode)
							return
						}
					}
				})
			})
		}
	}
}
