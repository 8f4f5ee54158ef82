// Package post sends one JSON-RPC request over and over from concurrent
// keep-alive clients for a while, and counts and times the answers: the
// load of bench/rpcload and of the interleaved EVM benchmark
// (docs/benchmarks.md).
package post

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Result is what a run measured.
type Result struct {
	// Answered is how many requests were answered, Failed how many of them
	// (or of those not answered) failed: a transport error, a status other
	// than 200, or a JSON-RPC error.
	Answered, Failed int64
	// PerSecond is Answered over the run's duration.
	PerSecond float64
	// P50 is the median time a request took.
	P50 time.Duration
}

// Run posts body to url from clients concurrent clients, each sending its
// next request when its last is answered, until d has passed.
func Run(url, body string, clients int, d time.Duration) Result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	var done, failed atomic.Int64
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	took := make([][]time.Duration, clients) // each client's request times
	for i := range clients {
		wg.Go(func() {
			for time.Now().Before(stop) {
				start := time.Now()
				if err := One(client, url, body); err != nil {
					failed.Add(1)
					if errors.Is(err, errUnanswered) {
						continue
					}
				}
				took[i] = append(took[i], time.Since(start))
				done.Add(1)
			}
		})
	}
	wg.Wait()
	all := slices.Concat(took...)
	slices.Sort(all)
	r := Result{Answered: done.Load(), Failed: failed.Load(), PerSecond: float64(done.Load()) / d.Seconds()}
	if len(all) > 0 {
		r.P50 = all[len(all)/2]
	}
	return r
}

// errUnanswered wraps the error of a request that got no answer.
var errUnanswered = errors.New("no answer")

// One posts body to url with client and reads the answer to the end, as
// ethclient does, so that the connection is reused. It fails on a
// transport error (wrapping errUnanswered), a status other than 200, or a
// JSON-RPC error.
func One(client *http.Client, url, body string) error {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %w", errUnanswered, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		return fmt.Errorf("read the answer: %w", err)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("answer %d: %s", resp.StatusCode, b)
	case strings.Contains(string(b), `"error"`):
		return fmt.Errorf("JSON-RPC error: %s", b)
	}
	return nil
}
