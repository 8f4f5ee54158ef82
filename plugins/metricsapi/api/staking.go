package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The staking metrics (NetworkMetric), each a field of the totals.
var stakingMetrics = map[string]func(store.Totals) uint64{
	"validatorCount":  func(t store.Totals) uint64 { return t.ValidatorCount },
	"validatorWeight": func(t store.Totals) uint64 { return t.ValidatorWeight },
	"delegatorCount":  func(t store.Totals) uint64 { return t.DelegatorCount },
	"delegatorWeight": func(t store.Totals) uint64 { return t.DelegatorWeight },
}

// stakingMetricNames are stakingMetrics' names in the contract's order.
var stakingMetricNames = []string{"delegatorCount", "delegatorWeight", "validatorCount", "validatorWeight"}

// Page sizes of the staking series (docs/metrics-api.md).
var stakingPageSize = rest.IntRange{Default: 100, Min: 1, Max: 2160}

// stakingCursor is where the next page of a staking series starts: the
// newest hour it holds.
type stakingCursor struct {
	Hour uint32 `json:"hour"`
}

// staking answers GET /v2/networks/{network}/metrics/{metric}: one point
// per hour, newest first, from the series' first hour (the genesis, or the
// block that made the subnet) to the hour holding the P-Chain's time; an
// hour's value is the state at its end, the current state for the hour in
// progress. Without subnetId the value is the sum over all subnets.
func (s *Server) staking(r *http.Request) (any, error) {
	if _, err := s.opts.Network.PathParam(r, "network"); err != nil {
		return nil, err
	}
	metric, err := pathEnum(r, "metric", stakingMetricNames...)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	tr := readRange(q)
	pageSize := q.Int("pageSize", stakingPageSize)
	token := q.String("pageToken", "")
	subnetText := q.String("subnetId", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	if err := tr.check(); err != nil {
		return nil, err
	}
	which := store.AllSubnets
	if subnetText != "" {
		id, err := parseID("subnetId", "a subnet ID", subnetText)
		if err != nil {
			return nil, err
		}
		which = store.SubnetSeries(id)
	}
	c, err := s.pChain()
	if err != nil {
		return nil, err
	}
	unreadable := func(err error) error {
		return rest.Unavailable("the staking series cannot be read").WithCause(err)
	}
	first, ok, err := s.opts.Store.FirstHour(c.Info.ID, which)
	if err != nil {
		return nil, unreadable(err)
	}
	out := MetricsResponse{Results: []Point{}}
	if !ok {
		if !which.All {
			return nil, rest.NotFound("subnet %s not found on the P-Chain", subnetText)
		}
		return out, nil // the genesis is not read yet
	}
	scope := strings.Join([]string{"staking", c.Info.ID.String(), metric, subnetText, tr.String()}, "/")
	var top int64
	if token != "" {
		var cur stakingCursor
		if err := s.tokens.open(token, scope, &cur); err != nil {
			return nil, err
		}
		top = int64(cur.Hour)
	} else if top, err = s.newestHour(r, c); err != nil {
		return nil, err
	}
	startHour, endHour := tr.steps(store.SecondsPerHour)
	if tr.HasEnd {
		top = min(top, endHour)
	}
	bottom := max(int64(first), startHour)
	if top < bottom {
		return out, nil
	}
	pageBottom := max(bottom, top-int64(pageSize)+1)
	// Each record holds from its hour until the next record; the points
	// go newest first, each hour's at top-hour.
	value := stakingMetrics[metric]
	out.Results = make([]Point, top-pageBottom+1)
	var (
		held      uint64 // the value of the newest record read
		heldHour  int64  // its hour
		firstHour = int64(-1)
	)
	fill := func(to int64) { // the hours from heldHour's (or pageBottom) to before to
		for h := max(heldHour, pageBottom); h < to; h++ {
			out.Results[top-h] = Point{Value: held, Timestamp: h * store.SecondsPerHour}
		}
	}
	err = s.opts.Store.EachHour(c.Info.ID, which, uint32(pageBottom), uint32(top), func(r store.HourTotals) {
		if firstHour < 0 {
			firstHour = int64(r.Hour)
		} else {
			fill(int64(r.Hour))
		}
		held, heldHour = value(r.Totals), int64(r.Hour)
	})
	if err != nil {
		return nil, unreadable(err)
	}
	if firstHour < 0 || firstHour > pageBottom {
		// The first hour has a record: only a damaged store gets here.
		return nil, unreadable(fmt.Errorf("no staking record at or before hour %d", pageBottom))
	}
	fill(top + 1)
	if pageBottom > bottom {
		if out.NextPageToken, err = s.tokens.issue(scope, stakingCursor{Hour: uint32(pageBottom - 1)}); err != nil {
			return nil, rest.Unavailable("a page token cannot be issued").WithCause(err)
		}
	}
	return out, nil
}

// newestHour returns the hour holding the P-Chain's time, whose value is
// the current state; while the series have not read every block the feed
// has shown (the module catching up), the hour of the last block read.
func (s *Server) newestHour(r *http.Request, c series.Chain) (int64, error) {
	p, err := s.opts.Store.StakingProgress(c.Info.ID)
	if err != nil {
		return 0, rest.Unavailable("the staking series cannot be read").WithCause(err)
	}
	if c.StakingRead < c.Seen {
		return p.LastBlockTime / store.SecondsPerHour, nil
	}
	now, err := s.chainTime(r.Context(), c)
	if err != nil {
		return 0, err
	}
	return max(now, p.LastBlockTime) / store.SecondsPerHour, nil
}
