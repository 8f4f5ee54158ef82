// Package metricstest computes the metrics API's staking and L1 validator
// fee series by hand, from staking periods and L1 validator balances known
// to a test: the oracle of the module's tests and of the node's
// (docs/metrics-api.md says what each series is).
package metricstest

import (
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Lengths of the series' steps, seconds.
const (
	Hour = 3600
	Day  = 86400
)

// StakingMetrics are the staking series' metrics.
var StakingMetrics = []string{"validatorCount", "validatorWeight", "delegatorCount", "delegatorWeight"}

// Staker is a validator or a delegator, active from Start until before
// End, in one subnet. An L1 validator whose weight changes is one Staker
// per weight.
type Staker struct {
	Subnet     ids.ID
	Delegator  bool
	Weight     uint64
	Start, End uint64
}

// TotalsAt returns the four metrics' values at time at, of one subnet's
// stakers, or of all subnets' when subnet is nil.
func TotalsAt(stakers []Staker, subnet *ids.ID, at uint64) map[string]uint64 {
	out := map[string]uint64{"validatorCount": 0, "validatorWeight": 0, "delegatorCount": 0, "delegatorWeight": 0}
	for _, s := range stakers {
		if (subnet != nil && s.Subnet != *subnet) || at < s.Start || at >= s.End {
			continue
		}
		kind := "validator"
		if s.Delegator {
			kind = "delegator"
		}
		out[kind+"Count"]++
		out[kind+"Weight"] += s.Weight
	}
	return out
}

// Hourly returns a staking series, newest first: every hour from the one
// holding first (the genesis, or the subnet's creation) to the one
// holding now (the chain's time), an hour's value the totals at its end,
// the current totals for the hour in progress.
func Hourly(stakers []Staker, subnet *ids.ID, metric string, first, now uint64) []api.Point {
	var out []api.Point
	for h := now / Hour; h >= first/Hour; h-- {
		out = append(out, api.Point{Timestamp: int64(h * Hour), Value: TotalsAt(stakers, subnet, min(h*Hour+Hour-1, now))[metric]})
		if h == 0 {
			break
		}
	}
	return out
}

// Within returns the points whose timestamp lies in [start, end].
func Within(points []api.Point, start, end uint64) []api.Point {
	var out []api.Point
	for _, p := range points {
		if p.Timestamp >= int64(start) && p.Timestamp <= int64(end) {
			out = append(out, p)
		}
	}
	return out
}

// Payer is an L1 validator that pays Rate per second from Start out of
// Balance (its top-ups included, when made while it was active), until
// the balance runs out or until Stop (a disable or a removal; 0: never).
type Payer struct {
	Start, Balance, Stop uint64
}

// Fees returns, per UTC day (its midnight), what the payers paid by now
// at rate nAVAX per second and how many of them paid, counted second by
// second.
func Fees(payers []Payer, rate, now uint64) (fees, paying map[uint64]uint64) {
	fees, paying = map[uint64]uint64{}, map[uint64]uint64{}
	for _, p := range payers {
		paid := map[uint64]bool{}
		left := p.Balance
		for s := p.Start; left > 0 && s < now && (p.Stop == 0 || s < p.Stop); s++ {
			amount := min(rate, left)
			left -= amount
			day := s / Day * Day
			fees[day] += amount
			paid[day] = true
		}
		for day := range paid {
			paying[day]++
		}
	}
	return fees, paying
}

// Cumulative returns, for a day, the sum of perDay up to its end.
func Cumulative(perDay map[uint64]uint64) func(day uint64) uint64 {
	return func(day uint64) uint64 {
		var sum uint64
		for d, v := range perDay {
			if d <= day {
				sum += v
			}
		}
		return sum
	}
}

// Of returns, for a day, its value in perDay (0 when absent).
func Of(perDay map[uint64]uint64) func(day uint64) uint64 {
	return func(day uint64) uint64 { return perDay[day] }
}

// Daily returns a daily series, newest first: every UTC day from the one
// holding first to the one holding last, with value.
func Daily(first, last uint64, value func(day uint64) uint64) []api.Point {
	var out []api.Point
	for d := last / Day * Day; d >= first/Day*Day; d -= Day {
		out = append(out, api.Point{Timestamp: int64(d), Value: value(d)})
		if d == 0 {
			break
		}
	}
	return out
}
