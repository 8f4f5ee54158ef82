package metricsapi_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/plugins/metricsapi/metricstest"
	"github.com/chainhost/chainhost/sdk/ids"
)

// validation is a primary-network validator as the test made it: its
// period and its reward address.
type validation struct {
	start, end uint64
	address    string
}

// rewardAddress returns the P-Chain address of ShortID {b}, formatted as
// the P-Chain formats it.
func rewardAddress(b byte) (avax.ShortID, string) {
	a := avax.ShortID{b, 0x0a}
	s, err := avax.FormatAddress("P", avax.HRP(avax.LocalID), a)
	if err != nil {
		panic(err)
	}
	return a, s
}

// addresses GETs the validators' addresses page by page at pageSize.
func (e *env) addresses(path string, pageSize int) []api.ValidatorAddresses {
	e.t.Helper()
	var all []api.ValidatorAddresses
	token := ""
	for n := 1; ; n++ {
		p := path + fmt.Sprintf("&pageSize=%d", pageSize)
		if token != "" {
			p += "&pageToken=" + url.QueryEscape(token)
		}
		status, _, body := e.get(p)
		if status != 200 {
			e.t.Fatalf("GET %s = %d %s", p, status, body)
		}
		var page api.AddressesResponse
		if err := json.Unmarshal(body, &page); err != nil {
			e.t.Fatalf("GET %s: %v in %s", p, err, body)
		}
		all = append(all, page.Addresses...)
		if page.NextPageToken == "" {
			return all
		}
		if len(page.Addresses) != pageSize {
			e.t.Fatalf("%s: page %d holds %d items, has a next page", p, n, len(page.Addresses))
		}
		token = page.NextPageToken
	}
}

// checkAddresses checks validators:getAddresses of the primary network
// against the validators made: all of them, and those whose period meets
// a range, in one page and in pages of 2; an L1 has none.
func (e *env) checkAddresses(made []validation, l1 *ids.ID) {
	e.t.Helper()
	start := func(a api.ValidatorAddresses) uint64 {
		v, err := strconv.ParseUint(a.SortKey, 10, 64)
		if err != nil {
			e.t.Fatalf("sortKey %q: %v", a.SortKey, err)
		}
		return v
	}
	want := func(from, to uint64) []api.ValidatorAddresses {
		var out []api.ValidatorAddresses
		for _, v := range made {
			if v.start <= to && v.end > from {
				out = append(out, api.ValidatorAddresses{Addresses: []string{v.address}, SortKey: strconv.FormatUint(v.start, 10)})
			}
		}
		return out
	}
	// By start, then by transaction ID, which the test does not know:
	// equal starts compare as sets.
	key := func(a, b api.ValidatorAddresses) int {
		return cmp.Or(cmp.Compare(start(a), start(b)), slices.Compare(a.Addresses, b.Addresses))
	}
	same := func(what string, got, want []api.ValidatorAddresses) {
		e.t.Helper()
		if !slices.IsSortedFunc(got, func(a, b api.ValidatorAddresses) int { return cmp.Compare(start(a), start(b)) }) {
			e.t.Fatalf("%s: not by start: %v", what, got)
		}
		g, w := slices.Clone(got), slices.Clone(want)
		slices.SortFunc(g, key)
		slices.SortFunc(w, key)
		if !slices.EqualFunc(g, w, func(a, b api.ValidatorAddresses) bool { return key(a, b) == 0 }) {
			e.t.Fatalf("%s:\n got  %v\n want %v", what, got, want)
		}
	}
	base := "/v2/subnets/11111111111111111111111111111111LpoYY/validators:getAddresses?network=fuji"
	all := want(0, 1<<63)
	same(base, e.addresses(base, 5000), all)
	same(base+" in pages of 2", e.addresses(base, 2), all)
	for _, r := range [][2]uint64{{pT0 + 6*hour, pT0 + 7*hour}, {pT0 + 10*hour, pT0 + 10*hour}, {pT0 + 2*secondsPerDay, pT0 + 40*secondsPerDay}} {
		path := fmt.Sprintf("%s&startTimestamp=%d&endTimestamp=%d", base, r[0], r[1])
		same(path, e.addresses(path, 2), want(r[0], r[1]))
	}
	if l1 != nil {
		path := "/v2/subnets/" + l1.String() + "/validators:getAddresses?"
		same(path, e.addresses(path, 10), nil)
	}
}

// checkValidatorFees checks the fee series of each L1 validator's node
// and of the L1 against the payers (nodes[i] is payers[i]'s node).
func (e *env) checkValidatorFees(payers []metricstest.Payer, nodes []avax.NodeID, subnet ids.ID, now uint64) {
	e.t.Helper()
	for i, py := range payers {
		mine, _ := metricstest.Fees([]metricstest.Payer{py}, pRate, now)
		base := "/v2/validator/" + nodes[i].String() + "/metrics/"
		samePoints(e.t, base+"perNodeDailyFeesPaid", e.metrics(base+"perNodeDailyFeesPaid").Results, metricstest.Daily(py.Start, now, metricstest.Of(mine)))
		samePoints(e.t, base+"perNodeCumulativeFeesPaid", e.metrics(base+"perNodeCumulativeFeesPaid").Results, metricstest.Daily(py.Start, now, metricstest.Cumulative(mine)))
	}
	first := payers[0].Start
	for _, py := range payers {
		first = min(first, py.Start)
	}
	fees, paying := metricstest.Fees(payers, pRate, now)
	for metric, value := range map[string]func(uint64) uint64{
		"perSubnetDailyFeesPaid":      metricstest.Of(fees),
		"perSubnetCumulativeFeesPaid": metricstest.Cumulative(fees),
		"perSubnetPayingValidators":   metricstest.Of(paying),
	} {
		path := "/v2/subnet/" + subnet.String() + "/metrics/" + metric
		want := metricstest.Daily(first, now, value)
		samePoints(e.t, path, e.metrics(path).Results, want)
		// The days whose midnight is in [start, end]: the last but one.
		if len(want) > 1 {
			bounded := fmt.Sprintf("%s?startTimestamp=%d&endTimestamp=%d", path, want[1].Timestamp-5, want[1].Timestamp+5)
			samePoints(e.t, bounded, e.metrics(bounded).Results, want[1:2])
		}
	}
	// The primary network has no L1 validators: no point.
	path := "/v2/subnet/11111111111111111111111111111111LpoYY/metrics/perSubnetDailyFeesPaid"
	samePoints(e.t, path, e.metrics(path).Results, nil)
}
