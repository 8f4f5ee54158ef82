package api

import (
	"net/http"
	"slices"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/pchain"
	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The fee metrics of one L1 validator and of all (the contract's enums),
// each a field of the P-Chain's fee day.
var (
	validationFeeMetrics = map[string]func(pvmapi.FeeDay) uint64{
		"validationCumulativeFeesDaily": func(d pvmapi.FeeDay) uint64 { return uint64(d.CumulativeFees) },
		"validationFeesDaily":           func(d pvmapi.FeeDay) uint64 { return uint64(d.Fees) },
	}
	validationFeeMetricNames = []string{"validationCumulativeFeesDaily", "validationFeesDaily"}

	totalFeeMetrics = map[string]func(pvmapi.FeeDay) uint64{
		"totalCumulativeFeesDaily": func(d pvmapi.FeeDay) uint64 { return uint64(d.CumulativeFees) },
		"totalValidatorFeesDaily":  func(d pvmapi.FeeDay) uint64 { return uint64(d.Fees) },
		"totalPayingValidatorsDaily": func(d pvmapi.FeeDay) uint64 {
			if d.PayingValidators == nil {
				return 0
			}
			return uint64(*d.PayingValidators)
		},
	}
	totalFeeMetricNames = []string{"totalCumulativeFeesDaily", "totalValidatorFeesDaily", "totalPayingValidatorsDaily"}
)

// dayWindow returns the P-Chain's fee read for the days whose start lies
// in tr: the days that meet [start, end] (end 0: until now), a superset;
// and keep, which tells the days of its answer that are in tr.
func dayWindow(tr timeRange) (start, end uint64, keep func(day uint64) bool) {
	first, last := tr.steps(pvmapi.SecondsPerDay)
	start = uint64(first) * pvmapi.SecondsPerDay
	if !tr.HasEnd {
		return start, 0, func(uint64) bool { return true }
	}
	// A range without a day start still asks for one day (so that an
	// unknown validation ID is a 404), whose answer is dropped; end is
	// never 0, which would mean now. end is the last day's last second:
	// the chain clips the days to a validator's start, to the second, and
	// one that started later in the day still has that day.
	end = uint64(max(last, first)+1)*pvmapi.SecondsPerDay - 1
	return start, end, func(day uint64) bool { return day <= uint64(last)*pvmapi.SecondsPerDay }
}

// feePoints returns the days kept, newest first.
func feePoints(days []pvmapi.FeeDay, keep func(uint64) bool, value func(pvmapi.FeeDay) uint64) MetricsResponse {
	out := MetricsResponse{Results: make([]Point, 0, len(days))}
	for _, d := range slices.Backward(days) {
		if keep(uint64(d.Day)) {
			out.Results = append(out.Results, Point{Value: value(d), Timestamp: int64(d.Day)})
		}
	}
	return out
}

// validationFees answers GET /v2/validation/{l1ValidationId}/metrics/{metric}:
// one point per UTC day of the validator's, newest first, from the
// P-Chain's fee records: what it paid that day, or up to that day's end.
func (s *Server) validationFees(r *http.Request) (any, error) {
	v, err := rest.PathParam(r, "l1ValidationId")
	if err != nil {
		return nil, err
	}
	id, err := parseID("l1ValidationId", "a validation ID", v)
	if err != nil {
		return nil, err
	}
	return s.feeSeries(r, validationFeeMetricNames, validationFeeMetrics, func(p pchain.Client, start, end uint64) ([]pvmapi.FeeDay, error) {
		fees, err := p.L1ValidatorFees(r.Context(), id.String(), start, end)
		if err != nil {
			return nil, feeError(err, id.String())
		}
		return fees.Days, nil
	})
}

// totalFees answers GET /v2/validators/metrics/{metric}: one point per UTC
// day since the P-Chain's genesis, newest first, from its fee records:
// what all L1 validators paid that day or up to its end, or how many paid.
func (s *Server) totalFees(r *http.Request) (any, error) {
	return s.feeSeries(r, totalFeeMetricNames, totalFeeMetrics, func(p pchain.Client, start, end uint64) ([]pvmapi.FeeDay, error) {
		fees, err := p.L1FeeTotals(r.Context(), start, end)
		if err != nil {
			return nil, feeError(err, "")
		}
		return fees.Days, nil
	})
}

// feeSeries answers a fee series: the path's metric, one of names, over
// the query's range, from the P-Chain's fee days that read returns for
// [start, end] (dayWindow).
func (s *Server) feeSeries(r *http.Request, names []string, metrics map[string]func(pvmapi.FeeDay) uint64,
	read func(p pchain.Client, start, end uint64) ([]pvmapi.FeeDay, error)) (any, error) {
	q, err := s.readFeeQuery(r, names)
	if err != nil {
		return nil, err
	}
	start, end, keep := dayWindow(q.tr)
	days, err := read(s.pClient(q.chain), start, end)
	if err != nil {
		return nil, err
	}
	return feePoints(days, keep, metrics[q.metric]), nil
}

// feeQuery is what a fee series' request asks: its metric, its time
// range, and the P-Chain it is read from.
type feeQuery struct {
	metric string
	tr     timeRange
	chain  series.Chain
}

// readFeeQuery reads a fee series' request: the path's metric, one of
// names, and the query's range.
func (s *Server) readFeeQuery(r *http.Request, names []string) (feeQuery, error) {
	metric, err := pathEnum(r, "metric", names...)
	if err != nil {
		return feeQuery{}, err
	}
	tr, err := readFeeRange(r)
	if err != nil {
		return feeQuery{}, err
	}
	c, err := s.pChain()
	if err != nil {
		return feeQuery{}, err
	}
	return feeQuery{metric: metric, tr: tr, chain: c}, nil
}

// readFeeRange reads the query of a fee series: its time range only (the
// contract gives them no page parameters).
func readFeeRange(r *http.Request) (timeRange, error) {
	q := rest.Query(r)
	tr := readRange(q)
	if err := q.Err(); err != nil {
		return tr, err
	}
	return tr, tr.check()
}
