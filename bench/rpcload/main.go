// Command rpcload posts one JSON-RPC request from concurrent keep-alive
// clients for a while and prints how many were answered, and the median
// time a request took (with -c 1, of sequential requests). With
// bench/cpu-per-request.sh it measures the CPU the host and a plugin spend
// per request (docs/benchmarks.md).
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "", "endpoint to POST to")
	body := flag.String("body", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`, "request body")
	clients := flag.Int("c", 8, "concurrent clients")
	dur := flag.Duration("d", 10*time.Second, "how long to send")
	flag.Parse()
	if *url == "" {
		fmt.Fprintln(os.Stderr, "rpcload: -url is required")
		os.Exit(2)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients}}
	var done, failed atomic.Int64
	stop := time.Now().Add(*dur)
	var wg sync.WaitGroup
	took := make([][]time.Duration, *clients) // each client's request times
	for i := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				start := time.Now()
				resp, err := client.Post(*url, "application/json", strings.NewReader(*body))
				if err != nil {
					failed.Add(1)
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || strings.Contains(string(b), `"error"`) {
					failed.Add(1)
				}
				took[i] = append(took[i], time.Since(start))
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	all := slices.Concat(took...)
	slices.Sort(all)
	var p50 time.Duration
	if len(all) > 0 {
		p50 = all[len(all)/2]
	}
	fmt.Printf("%d requests, %.0f req/s, %d failed, p50 %d µs\n", done.Load(), float64(done.Load())/dur.Seconds(), failed.Load(), p50.Microseconds())
	if failed.Load() > 0 {
		os.Exit(1)
	}
}
