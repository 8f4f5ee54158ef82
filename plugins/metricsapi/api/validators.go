package api

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The fee metrics of a node's and of a subnet's L1 validators (the
// contract's enums), each a field of the day's sum over them.
var (
	nodeFeeMetrics = map[string]func(feeSum) uint64{
		"perNodeCumulativeFeesPaid": func(d feeSum) uint64 { return d.cumulative },
		"perNodeDailyFeesPaid":      func(d feeSum) uint64 { return d.fees },
	}
	nodeFeeMetricNames = []string{"perNodeCumulativeFeesPaid", "perNodeDailyFeesPaid"}

	subnetFeeMetrics = map[string]func(feeSum) uint64{
		"perSubnetDailyFeesPaid":      func(d feeSum) uint64 { return d.fees },
		"perSubnetCumulativeFeesPaid": func(d feeSum) uint64 { return d.cumulative },
		"perSubnetPayingValidators":   func(d feeSum) uint64 { return d.paying },
	}
	subnetFeeMetricNames = []string{"perSubnetDailyFeesPaid", "perSubnetCumulativeFeesPaid", "perSubnetPayingValidators"}
)

// feeSum is a UTC day's sum over several L1 validators: what they paid
// that day and up to its end, and how many paid.
type feeSum struct {
	fees, cumulative, paying uint64
}

// nodeFees answers GET /v2/validator/{nodeId}/metrics/{metric}: one point
// per UTC day, newest first, from the day the node first validated an L1
// to the P-Chain's day: what its L1 validators paid that day, or up to
// its end.
func (s *Server) nodeFees(r *http.Request) (any, error) {
	v, err := rest.PathParam(r, "nodeId")
	if err != nil {
		return nil, err
	}
	node, err := avax.ParseNodeID(v)
	if err != nil {
		return nil, rest.BadRequest("nodeId: must be a node ID (CB58 after NodeID-), got %s", rest.Quote(v))
	}
	q, err := s.readFeeQuery(r, nodeFeeMetricNames)
	if err != nil {
		return nil, err
	}
	vids, err := s.opts.Store.NodeL1Validations(q.chain.Info.ID, node)
	if err != nil {
		return nil, validationsUnreadable(err)
	}
	if len(vids) == 0 {
		return nil, rest.NotFound("node %s has not validated an L1 on the P-Chain", node)
	}
	return s.sumFees(r.Context(), q.chain, vids, q.tr, nodeFeeMetrics[q.metric])
}

// subnetFees answers GET /v2/subnet/{subnetId}/metrics/{metric}: one point
// per UTC day, newest first, from the day of the subnet's first L1
// validator to the P-Chain's day: what its L1 validators paid that day or
// up to its end, or how many paid. A subnet that is not an L1 has none.
func (s *Server) subnetFees(r *http.Request) (any, error) {
	subnet, err := subnetParam(r)
	if err != nil {
		return nil, err
	}
	q, err := s.readFeeQuery(r, subnetFeeMetricNames)
	if err != nil {
		return nil, err
	}
	if err := s.knownSubnet(q.chain, subnet); err != nil {
		return nil, err
	}
	vids, err := s.opts.Store.SubnetL1Validations(q.chain.Info.ID, subnet)
	if err != nil {
		return nil, validationsUnreadable(err)
	}
	return s.sumFees(r.Context(), q.chain, vids, q.tr, subnetFeeMetrics[q.metric])
}

// knownSubnet answers 404 for a subnet the P-Chain has not made (as far as
// the staking series have read it: they hold every subnet from the block
// that made it).
func (s *Server) knownSubnet(c series.Chain, subnet ids.ID) error {
	_, ok, err := s.opts.Store.FirstHour(c.Info.ID, store.SubnetSeries(subnet))
	if err != nil {
		return validationsUnreadable(err)
	}
	if !ok {
		return rest.NotFound("subnet %s not found on the P-Chain", subnet)
	}
	return nil
}

func validationsUnreadable(err error) error {
	return rest.Unavailable("the validations cannot be read").WithCause(err)
}

// sumFees returns the days whose start lies in tr of the sum over the L1
// validators vids, newest first: each validator's fee records read from
// the P-Chain (one call each, from its start), added day by day, its
// cumulative fees carried on after its removal.
func (s *Server) sumFees(ctx context.Context, c series.Chain, vids []ids.ID, tr timeRange, value func(feeSum) uint64) (any, error) {
	start, end, keep := dayWindow(tr)
	p := s.pClient(c)
	type answer struct {
		days  []pvmapi.FeeDay
		final uint64 // the cumulative fees of its last day
	}
	answers := make([]answer, 0, len(vids))
	first, last := uint64(0), uint64(0) // days, as the P-Chain numbers them (unix seconds of midnight)
	hasFirst := false
	for _, id := range vids {
		fees, err := p.L1ValidatorFees(ctx, id.String(), 0, end)
		if err != nil {
			return nil, feeError(err, id.String())
		}
		// The P-Chain's day: every validator's series runs to it (its
		// cumulative fees held after its removal).
		asOfDay := uint64(fees.AsOf) / pvmapi.SecondsPerDay * pvmapi.SecondsPerDay
		if end != 0 {
			asOfDay = min(asOfDay, end/pvmapi.SecondsPerDay*pvmapi.SecondsPerDay)
		}
		last = max(last, asOfDay)
		if len(fees.Days) == 0 {
			continue
		}
		if d := uint64(fees.Days[0].Day); !hasFirst || d < first {
			first, hasFirst = d, true
		}
		answers = append(answers, answer{days: fees.Days, final: uint64(fees.Days[len(fees.Days)-1].CumulativeFees)})
	}
	out := MetricsResponse{Results: []Point{}}
	if !hasFirst || last < first {
		return out, nil
	}
	n := (last-first)/pvmapi.SecondsPerDay + 1
	sums := make([]feeSum, n)
	carry := make([]uint64, n+1) // cumulative fees of validators whose days ended before
	for _, a := range answers {
		var i uint64
		for _, d := range a.days {
			i = (uint64(d.Day) - first) / pvmapi.SecondsPerDay
			if i >= n {
				break
			}
			sums[i].fees += uint64(d.Fees)
			sums[i].cumulative += uint64(d.CumulativeFees)
			if d.Fees > 0 {
				sums[i].paying++
			}
		}
		if i+1 < n {
			carry[i+1] += a.final
		}
	}
	var carried uint64
	for i := range sums {
		carried += carry[i]
		sums[i].cumulative += carried
	}
	for i, d := range slices.Backward(sums) {
		day := first + uint64(i)*pvmapi.SecondsPerDay
		if day >= start && keep(day) {
			out.Results = append(out.Results, Point{Value: value(d), Timestamp: int64(day)})
		}
	}
	return out, nil
}

// Page sizes of the validators' addresses (the contract's).
var addressesPageSize = rest.IntRange{Default: 1000, Min: 1, Max: 5000}

// AddressesResponse is the answer of validators:getAddresses
// (PChainLookingGlassResponse).
type AddressesResponse struct {
	Addresses     []ValidatorAddresses `json:"addresses"`
	NextPageToken string               `json:"nextPageToken,omitempty"`
}

// ValidatorAddresses are the reward addresses of one validation period and
// its start, unix seconds in decimal (PChainAddressDetails).
type ValidatorAddresses struct {
	Addresses []string `json:"addresses"`
	SortKey   string   `json:"sortKey"`
}

// validatorAddresses answers GET
// /v2/subnets/{subnetId}/validators:getAddresses: the reward addresses of
// the validation periods of the subnet that meet the time range, by start
// then transaction ID, from the store's validations. Only the primary
// network's validators have reward addresses; an L1's have none.
func (s *Server) validatorAddresses(r *http.Request) (any, error) {
	subnet, err := subnetParam(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	tr := readRange(q)
	pageSize := q.Int("pageSize", addressesPageSize)
	token := q.String("pageToken", "")
	network := q.Enum("network", "", rest.Networks...)
	if err := q.Err(); err != nil {
		return nil, err
	}
	if err := tr.check(); err != nil {
		return nil, err
	}
	if network != "" && !s.opts.Network.Serves(network) {
		return nil, rest.NotFound("this node does not serve network %s", network)
	}
	c, err := s.pChain()
	if err != nil {
		return nil, err
	}
	if err := s.knownSubnet(c, subnet); err != nil {
		return nil, err
	}
	out := AddressesResponse{Addresses: []ValidatorAddresses{}}
	if subnet != (ids.ID{}) {
		return out, nil // an L1's validators are rewarded nothing
	}
	scope := strings.Join([]string{"addresses", c.Info.ID.String(), subnet.String(), tr.String()}, "/")
	var after *store.ValidationCursor
	if token != "" {
		after = new(store.ValidationCursor)
		if err := s.tokens.open(token, scope, after); err != nil {
			return nil, err
		}
	}
	end := uint64(1<<64 - 1)
	if tr.HasEnd {
		end = uint64(tr.End)
	}
	var more bool
	var last store.Validation
	err = s.opts.Store.EachValidation(c.Info.ID, after, end, func(v store.Validation) bool {
		if tr.HasStart && v.End <= uint64(tr.Start) {
			return true // ended before the range
		}
		if len(out.Addresses) == pageSize {
			more = true
			return false
		}
		out.Addresses = append(out.Addresses, ValidatorAddresses{Addresses: v.Addresses, SortKey: strconv.FormatUint(v.Start, 10)})
		last = v
		return true
	})
	if err != nil {
		return nil, validationsUnreadable(err)
	}
	if more {
		if out.NextPageToken, err = s.tokens.issue(scope, store.ValidationCursor{Start: last.Start, TxID: last.TxID}); err != nil {
			return nil, rest.Unavailable("a page token cannot be issued").WithCause(err)
		}
	}
	return out, nil
}

// subnetParam reads the path's subnet ID.
func subnetParam(r *http.Request) (ids.ID, error) {
	v, err := rest.PathParam(r, "subnetId")
	if err != nil {
		return ids.ID{}, err
	}
	return parseID("subnetId", "a subnet ID", v)
}
