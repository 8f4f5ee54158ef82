package load

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Tally is what one category (or the transfers) got: vegeta's latency
// and rate metrics, and the answers counted as failures and as rate-limit
// answers.
type Tally struct {
	Name        string
	Metrics     vegeta.Metrics
	Failures    int
	RateLimited int
	// FailedBy counts the failures by answer: the HTTP status, "200 with
	// an error object", or "no answer".
	FailedBy map[string]int
	// FirstFailures are a few failures, for the report.
	FirstFailures []string
}

// add counts one result.
func (t *Tally) add(r *vegeta.Result, why string, rateLimited bool) {
	r.Body = nil // kept by vegeta's metrics otherwise
	t.Metrics.Add(r)
	switch {
	case rateLimited:
		t.RateLimited++
	case why != "":
		t.Failures++
		if t.FailedBy == nil {
			t.FailedBy = map[string]int{}
		}
		switch {
		case r.Code == 0:
			t.FailedBy["no answer"]++
		case r.Code == http.StatusOK:
			t.FailedBy["200 with an error object"]++
		default:
			t.FailedBy[strconv.Itoa(int(r.Code))]++
		}
		if len(t.FirstFailures) < 5 {
			t.FirstFailures = append(t.FirstFailures, why)
		}
	}
}

// Attack sends the mix at total requests per second (less the transfers'
// share, which TxSender sends) for d, every category at its share, and
// returns a tally per category once every answer is in.
func Attack(ctx context.Context, mix []Category, total int, d time.Duration) []*Tally {
	tallies := make([]*Tally, len(mix))
	var wg sync.WaitGroup
	for i, c := range mix {
		tallies[i] = &Tally{Name: c.Name}
		rate := vegeta.Rate{Freq: total * c.PerMille / 1000, Per: time.Second}
		if rate.Freq == 0 {
			continue
		}
		// A client per category, whose connections are closed at the end,
		// so that what the node holds afterwards is its own.
		client := &http.Client{
			Timeout:       30 * time.Second,
			Transport:     &http.Transport{MaxIdleConnsPerHost: 1000, IdleConnTimeout: time.Minute},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		attacker := vegeta.NewAttacker(vegeta.Client(client))
		wg.Go(func() {
			defer client.CloseIdleConnections()
			var next atomic.Uint64
			targeter := func(t *vegeta.Target) error {
				*t = c.Targets[next.Add(1)%uint64(len(c.Targets))]
				return nil
			}
			results := attacker.Attack(targeter, rate, d, c.Name)
			stop := context.AfterFunc(ctx, func() { attacker.Stop() })
			defer stop()
			for r := range results {
				why, limited := c.failed(r)
				tallies[i].add(r, why, limited)
			}
			tallies[i].Metrics.Close()
		})
	}
	wg.Wait()
	return tallies
}
