package api

import (
	"net/http"

	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// avgTPSPage is how many days one page of the average throughput holds.
const avgTPSPage = 100

// MetricPoint is one point of a series (docs/metrics-api.md).
type MetricPoint struct {
	Timestamp int64   `json:"timestamp"`
	Value     float64 `json:"value"`
}

// AvgTPSResponse is the answer of /v1/avg_tps/{chainId}.
type AvgTPSResponse struct {
	Results       []MetricPoint `json:"results"`
	Status        int           `json:"status"`
	LastRun       int64         `json:"lastRun"`
	NextPageToken string        `json:"nextPageToken,omitempty"`
}

// avgTPSCursor is where the next page of avg_tps starts: the newest day it
// holds.
type avgTPSCursor struct {
	Day uint32 `json:"day"`
}

// avgTPS answers GET /v1/avg_tps/{chainId}: per UTC day, from the day of
// the chain's newest block back to the day of its first, the day's
// transactions divided by the seconds of a day, newest first, with when
// the module last ran over the chain (lastRun).
func (s *Server) avgTPS(r *http.Request) (any, error) {
	value, err := rest.PathParam(r, "chainId")
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	c, err := s.chain(r.Context(), value)
	if err != nil {
		return nil, err
	}
	p, err := s.opts.Store.Progress(c.Info.ID)
	if err != nil {
		return nil, rest.Unavailable("the series of chain %s cannot be read", c.Info.ID).WithCause(err)
	}
	// The module's last run over the chain: its last count of a block, or
	// the start of its current run when that is later (a run that finds
	// nothing new still ran).
	out := AvgTPSResponse{Results: []MetricPoint{}, Status: http.StatusOK, LastRun: max(p.LastRun, c.Followed)}
	first, hasDays, err := s.opts.Store.FirstDay(c.Info.ID)
	if err != nil {
		return nil, rest.Unavailable("the series of chain %s cannot be read", c.Info.ID).WithCause(err)
	}
	scope := "avg_tps/" + c.Info.ID.String()
	top := store.DayOf(p.LastBlockTime)
	if token != "" {
		var cur avgTPSCursor
		if err := s.tokens.open(token, scope, &cur); err != nil {
			return nil, err
		}
		top = cur.Day
	}
	if !hasDays || top < first {
		return out, nil
	}
	bottom := first
	if top-first >= avgTPSPage {
		bottom = top - avgTPSPage + 1
	}
	days, err := s.opts.Store.Days(c.Info.ID, top, avgTPSPage)
	if err != nil {
		return nil, rest.Unavailable("the series of chain %s cannot be read", c.Info.ID).WithCause(err)
	}
	// Fill the days without a block with zeros.
	next := 0
	for day := int64(top); day >= int64(bottom); day-- {
		var txs uint64
		if next < len(days) && int64(days[next].Day) == day {
			txs = days[next].Txs
			next++
		}
		out.Results = append(out.Results, MetricPoint{Timestamp: day * store.SecondsPerDay, Value: float64(txs) / store.SecondsPerDay})
	}
	if bottom > first {
		if out.NextPageToken, err = s.tokens.issue(scope, avgTPSCursor{Day: bottom - 1}); err != nil {
			return nil, rest.Unavailable("a page token cannot be issued").WithCause(err)
		}
	}
	return out, nil
}
