package api

import (
	"encoding/json"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Value is a metric's value: an integer, a big integer (wei) or a
// fraction, written as a JSON number (exactly, for the integers).
type Value struct {
	Int   uint64
	Big   *big.Int
	Float float64
	// IsFloat selects Float, a non-nil Big selects Big, else Int.
	IsFloat bool
}

// AppendJSON appends the value as a JSON number; a fraction as
// encoding/json writes a float64.
func (v Value) AppendJSON(b []byte) []byte {
	switch {
	case v.IsFloat:
		f := v.Float
		if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
			return strconv.AppendFloat(b, f, 'f', -1, 64)
		}
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// e-07 is written e-7, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	case v.Big != nil:
		return v.Big.Append(b, 10)
	}
	return strconv.AppendUint(b, v.Int, 10)
}

// ChainPoint is one point of a chain metric.
type ChainPoint struct {
	Value     Value
	Timestamp int64
}

// ChainMetricsResponse is the answer of a chain metric
// (MetricsApiResponse).
type ChainMetricsResponse struct {
	Results       []ChainPoint
	NextPageToken string
}

// AppendJSON writes the answer without reflection: a page holds up to
// 2160 points (rest.JSONAppender).
func (m ChainMetricsResponse) AppendJSON(b []byte) []byte {
	b = append(b, `{"results":[`...)
	for i, p := range m.Results {
		if i > 0 {
			b = append(b, ',')
		}
		b = p.Value.AppendJSON(append(b, `{"value":`...))
		b = strconv.AppendInt(append(b, `,"timestamp":`...), p.Timestamp, 10)
		b = append(b, '}')
	}
	b = append(b, ']')
	if m.NextPageToken != "" {
		token, _ := json.Marshal(m.NextPageToken) // a string always encodes
		b = append(append(b, `,"nextPageToken":`...), token...)
	}
	return append(b, '}')
}

// chainMetric is one ChainMetric: its value in a bucket, and whether an
// empty bucket holds the value of the bucket before it (the cumulative
// counts) rather than zero.
type chainMetric struct {
	value      func(b *store.Bucket) Value
	cumulative bool
	// wei is set for the metrics of the buckets' wei sums.
	wei bool
}

func count(f func(b *store.Bucket) uint64) func(*store.Bucket) Value {
	return func(b *store.Bucket) Value { return Value{Int: f(b)} }
}

func ratio(f func(b *store.Bucket) float64) func(*store.Bucket) Value {
	return func(b *store.Bucket) Value { return Value{Float: f(b), IsFloat: true} }
}

// wei is a metric of wei, copied out of the bucket (which is reused) only
// when it does not fit 64 bits.
func wei(f func(b *store.Bucket) *big.Int) func(*store.Bucket) Value {
	return func(b *store.Bucket) Value {
		if v := f(b); v.IsUint64() {
			return Value{Int: v.Uint64()}
		}
		return Value{Big: new(big.Int).Set(f(b))}
	}
}

// chainMetrics are the contract's ChainMetric values (docs/metrics-api.md,
// "Chain metrics", says what each is).
var chainMetrics = map[string]chainMetric{
	"activeAddresses":     {value: count(func(b *store.Bucket) uint64 { return b.Active })},
	"activeSenders":       {value: count(func(b *store.Bucket) uint64 { return b.Senders })},
	"cumulativeTxCount":   {value: count(func(b *store.Bucket) uint64 { return b.Cumulative.Txs }), cumulative: true},
	"cumulativeAddresses": {value: count(func(b *store.Bucket) uint64 { return b.Cumulative.Addresses }), cumulative: true},
	"cumulativeContracts": {value: count(func(b *store.Bucket) uint64 { return b.Cumulative.Contracts }), cumulative: true},
	"cumulativeDeployers": {value: count(func(b *store.Bucket) uint64 { return b.Cumulative.Deployers }), cumulative: true},
	"contracts":           {value: count(func(b *store.Bucket) uint64 { return b.Contracts })},
	"deployers":           {value: count(func(b *store.Bucket) uint64 { return b.Deployers })},
	"gasUsed":             {value: count(func(b *store.Bucket) uint64 { return b.GasUsed })},
	"txCount":             {value: count(func(b *store.Bucket) uint64 { return b.Txs })},
	"avgGps":              {value: ratio(func(b *store.Bucket) float64 { return float64(b.GasUsed) / float64(b.Span()) })},
	"maxGps":              {value: ratio(func(b *store.Bucket) float64 { return b.MaxGPS })},
	"avgTps":              {value: ratio(func(b *store.Bucket) float64 { return float64(b.Txs) / float64(b.Span()) })},
	"maxTps":              {value: ratio(func(b *store.Bucket) float64 { return b.MaxTPS })},
	"avgGasPrice":         {value: ratio(avgGasPrice), wei: true},
	"maxGasPrice":         {value: wei(func(b *store.Bucket) *big.Int { return b.MaxGasPrice }), wei: true},
	"feesPaid":            {value: wei(func(b *store.Bucket) *big.Int { return b.Fees }), wei: true},
}

// avgGasPrice is the mean gas price of a bucket's transactions, wei; 0
// without any.
func avgGasPrice(b *store.Bucket) float64 {
	if b.Txs == 0 {
		return 0
	}
	if b.GasPrices.IsUint64() && b.GasPrices.Uint64() <= 1<<53 {
		return float64(b.GasPrices.Uint64()) / float64(b.Txs) // both exact: one rounding, as the fraction's
	}
	f, _ := new(big.Rat).SetFrac(b.GasPrices, new(big.Int).SetUint64(b.Txs)).Float64()
	return f
}

// chainMetricNames are the ChainMetric values in the contract's order.
var chainMetricNames = []string{"activeAddresses", "activeSenders", "cumulativeTxCount", "cumulativeAddresses",
	"cumulativeContracts", "cumulativeDeployers", "contracts", "deployers", "gasUsed", "txCount", "avgGps", "maxGps",
	"avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid"}

// intervals are the TimeIntervalGranularity values.
var intervals = map[string]store.Interval{"hour": store.Hour, "day": store.Day, "week": store.Week, "month": store.Month}

// Page sizes of the chain metrics (the contract's).
var chainPageSize = rest.IntRange{Default: 100, Min: 1, Max: 2160}

// chainCursor is where the next page of a chain metric starts: the
// newest bucket it holds.
type chainCursor struct {
	Bucket uint32 `json:"bucket"`
}

// metricsChain resolves the chainId of a chain metrics path: an EVM chain
// whose blocks the module counts whole.
func (s *Server) metricsChain(r *http.Request) (series.Chain, error) {
	v, err := rest.PathParam(r, "chainId")
	if err != nil {
		return series.Chain{}, err
	}
	switch v {
	case "total", "mainnet", "testnet":
		return series.Chain{}, rest.NotFound("chain %s: the sums over a network's chains are not kept; ask for each chain of /v2/chains", rest.Quote(v))
	}
	c, err := s.chain(r.Context(), v)
	if err != nil {
		return series.Chain{}, err
	}
	if c.External == nil && c.Info.VMName != evmapi.VMName {
		return series.Chain{}, rest.NotFound("chain %s is not an EVM chain: the chain metrics are kept for EVM chains", rest.Quote(v))
	}
	return c, nil
}

// unreadable is the answer when the chain metrics cannot be read.
func unreadable(c series.Chain, err error) error {
	return rest.Unavailable("the chain metrics of chain %s cannot be read", c.Info.ID).WithCause(err)
}

// chainMetric answers GET /v2/chains/{chainId}/metrics/{metric}: one point
// per bucket of the interval, newest first, from the bucket of the
// chain's first block counted to that of its last; a bucket without a
// block is 0, or for the cumulative metrics the value of the bucket
// before.
func (s *Server) chainMetric(r *http.Request) (any, error) {
	metric, err := pathEnum(r, "metric", chainMetricNames...)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	tr := readRange(q)
	intervalName := q.Enum("timeInterval", "day", "hour", "day", "week", "month")
	pageSize := q.Int("pageSize", chainPageSize)
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	if err := tr.check(); err != nil {
		return nil, err
	}
	c, err := s.metricsChain(r)
	if err != nil {
		return nil, err
	}
	interval := intervals[intervalName]
	scope := strings.Join([]string{"chain", c.Info.ID.String(), metric, intervalName, tr.String()}, "/")
	var cur *chainCursor
	if token != "" {
		cur = new(chainCursor)
		if err := s.tokens.open(token, scope, cur); err != nil {
			return nil, err
		}
	}
	out := ChainMetricsResponse{Results: []ChainPoint{}}
	first, ok, err := s.opts.Store.FirstBucket(c.Info.ID, interval)
	if err != nil {
		return nil, unreadable(c, err)
	}
	if !ok {
		return out, nil // no block counted yet
	}
	var top int64
	if cur != nil {
		top = int64(cur.Bucket)
	} else {
		p, err := s.opts.Store.Progress(c.Info.ID)
		if err != nil {
			return nil, unreadable(c, err)
		}
		top = int64(interval.Bucket(p.LastBlockTime))
	}
	bottom := int64(first)
	if tr.HasStart && tr.Start > store.MaxTime {
		return out, nil
	}
	if tr.HasStart {
		b := int64(interval.Bucket(tr.Start))
		if interval.Start(uint32(b)) < tr.Start {
			b++
		}
		bottom = max(bottom, b)
	}
	if tr.HasEnd {
		top = min(top, int64(interval.Bucket(tr.End)))
	}
	if top < bottom {
		return out, nil
	}
	pageBottom := max(bottom, top-int64(pageSize)+1)
	m := chainMetrics[metric]
	out.Results = make([]ChainPoint, top-pageBottom+1)
	zero := Value{Int: 0}
	if !m.cumulative {
		zero = m.value(&store.Bucket{Fees: new(big.Int), GasPrices: new(big.Int), MaxGasPrice: new(big.Int)})
	}
	held, next := zero, pageBottom // the value of the buckets from next on without a record
	fill := func(to int64) {
		for ; next < to; next++ {
			out.Results[top-next] = ChainPoint{Value: held, Timestamp: interval.Start(uint32(next))}
		}
	}
	err = s.opts.Store.EachBucket(c.Info.ID, interval, uint32(pageBottom), uint32(top), m.wei, func(n uint32, b *store.Bucket) {
		v := m.value(b)
		if int64(n) < pageBottom {
			if m.cumulative {
				held = v
			}
			return
		}
		fill(int64(n))
		out.Results[top-int64(n)] = ChainPoint{Value: v, Timestamp: interval.Start(n)}
		next = int64(n) + 1
		if m.cumulative {
			held = v
		}
	})
	if err != nil {
		return nil, unreadable(c, err)
	}
	fill(top + 1)
	if pageBottom > bottom {
		if out.NextPageToken, err = s.tokens.issue(scope, chainCursor{Bucket: uint32(pageBottom - 1)}); err != nil {
			return nil, rest.Unavailable("a page token cannot be issued").WithCause(err)
		}
	}
	return out, nil
}

// rollingMetricNames are the ChainRollingWindowMetric values in the
// contract's order.
var rollingMetricNames = []string{"gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice",
	"maxGasPrice", "feesPaid", "contracts", "deployers", "activeAddresses", "activeSenders"}

// distinctKinds are the rolling metrics that count distinct addresses,
// with the kind of member they count.
var distinctKinds = map[string]byte{"activeAddresses": store.Active, "activeSenders": store.Sender, "deployers": store.Deployer}

// windows are the rolling windows of ChainRollingWindowMetricsValue, in
// hours; the active addresses and senders have the first three only, as
// the contract says.
var windows = []struct {
	name  string
	hours int64
}{{"lastHour", 1}, {"lastDay", 24}, {"lastWeek", 7 * 24}, {"lastMonth", 30 * 24}, {"last90Days", 90 * 24}, {"lastYear", 365 * 24}}

// RollingWindowResponse is the answer of the rolling window metrics
// (RollingWindowMetricsApiResponse): the windows' values by name.
type RollingWindowResponse struct {
	Result map[string]Value
}

// AppendJSON writes the windows in the contract's order.
func (r RollingWindowResponse) AppendJSON(b []byte) []byte {
	b = append(b, `{"result":{`...)
	first := true
	for _, name := range []string{"lastHour", "lastDay", "lastWeek", "lastMonth", "last90Days", "lastYear", "allTime"} {
		v, ok := r.Result[name]
		if !ok {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = v.AppendJSON(append(strconv.AppendQuote(b, name), ':'))
	}
	return append(b, "}}"...)
}

// rollingWindow answers GET /v2/chains/{chainId}/rollingWindowMetrics/{metric}:
// the metric over the hours before now (the module's clock, or the
// chain's newest block when later), the hour in progress included, and
// over the chain's whole history.
func (s *Server) rollingWindow(r *http.Request) (any, error) {
	metric, err := pathEnum(r, "metric", rollingMetricNames...)
	if err != nil {
		return nil, err
	}
	if err := rest.Query(r).Err(); err != nil {
		return nil, err
	}
	c, err := s.metricsChain(r)
	if err != nil {
		return nil, err
	}
	m := chainMetrics[metric]
	kind, distinct := distinctKinds[metric]
	p, err := s.opts.Store.Progress(c.Info.ID)
	if err != nil {
		return nil, unreadable(c, err)
	}
	now := store.Hour.Bucket(max(s.opts.Clock().Unix(), p.LastBlockTime))
	out := RollingWindowResponse{Result: map[string]Value{}}
	for _, w := range windows {
		if distinct && kind != store.Deployer && w.hours > 7*24 {
			break
		}
		from := int64(now) - w.hours + 1
		b, members, err := s.window(c, max(from, 0), int64(now), distinct, kind)
		if err != nil {
			return nil, unreadable(c, err)
		}
		out.Result[w.name] = m.value(b)
		if distinct {
			out.Result[w.name] = Value{Int: members}
		}
	}
	if !distinct || kind == store.Deployer {
		all, _, err := s.window(c, -1, 0, false, 0)
		if err != nil {
			return nil, unreadable(c, err)
		}
		out.Result["allTime"] = m.value(all)
		if distinct {
			out.Result["allTime"] = Value{Int: all.Cumulative.Deployers}
		}
	}
	return out, nil
}

// window merges the chain's hour buckets from hour to hour (both
// included): the whole days among them from the day buckets, the rest
// from the hour buckets; from -1 merges every month bucket. When
// distinct, it also counts the distinct members of kind.
func (s *Server) window(c series.Chain, from, to int64, distinct bool, kind byte) (*store.Bucket, uint64, error) {
	merged := &store.Bucket{Fees: new(big.Int), GasPrices: new(big.Int), MaxGasPrice: new(big.Int)}
	seen := map[common.Address]struct{}{}
	span := func(i store.Interval, lo, hi int64) error {
		if lo > hi {
			return nil
		}
		err := s.opts.Store.EachBucket(c.Info.ID, i, uint32(lo), uint32(hi), true, func(n uint32, b *store.Bucket) {
			if int64(n) >= lo {
				merged.Merge(b)
			}
		})
		if err != nil || !distinct {
			return err
		}
		return s.opts.Store.CountMembers(c.Info.ID, i, uint32(lo), uint32(hi), kind, seen)
	}
	if from < 0 {
		return merged, 0, span(store.Month, 0, math.MaxUint32-1)
	}
	const perDay = 24
	firstDay, lastDay := (from+perDay-1)/perDay, (to+1)/perDay-1 // the days wholly in the window
	if firstDay > lastDay {
		err := span(store.Hour, from, to)
		return merged, uint64(len(seen)), err
	}
	for _, part := range []struct {
		i      store.Interval
		lo, hi int64
	}{{store.Hour, from, firstDay*perDay - 1}, {store.Day, firstDay, lastDay}, {store.Hour, (lastDay + 1) * perDay, to}} {
		if err := span(part.i, part.lo, part.hi); err != nil {
			return nil, 0, err
		}
	}
	return merged, uint64(len(seen)), nil
}
