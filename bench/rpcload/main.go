// Command rpcload posts one JSON-RPC request from concurrent keep-alive
// clients for a while and prints how many were answered, and the median
// time a request took (with -c 1, of sequential requests). With
// bench/cpu-per-request.sh it measures the CPU the host and a plugin spend
// per request (docs/benchmarks.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/chainhost/chainhost/bench/internal/post"
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
	r := post.Run(*url, *body, *clients, *dur)
	fmt.Printf("%d requests, %.0f req/s, %d failed, p50 %d µs\n", r.Answered, r.PerSecond, r.Failed, r.P50.Microseconds())
	if r.Failed > 0 {
		os.Exit(1)
	}
}
