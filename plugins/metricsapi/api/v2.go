package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/pchain"
	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Point is one point of a v2 series (docs/metrics-api.md): counts,
// weights and nAVAX amounts, all integers, written exactly.
type Point struct {
	Value     uint64 `json:"value"`
	Timestamp int64  `json:"timestamp"`
}

// MetricsResponse is the answer of every v2 series (MetricsApiResponse).
type MetricsResponse struct {
	Results       []Point `json:"results"`
	NextPageToken string  `json:"nextPageToken,omitempty"`
}

// AppendJSON appends the answer as encoding/json writes it (the struct
// tags above), without reflection: a page holds up to 2160 points
// (rest.JSONAppender).
func (m MetricsResponse) AppendJSON(b []byte) []byte {
	b = append(b, `{"results":[`...)
	for i, p := range m.Results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"value":`...)
		b = strconv.AppendUint(b, p.Value, 10)
		b = append(b, `,"timestamp":`...)
		b = strconv.AppendInt(b, p.Timestamp, 10)
		b = append(b, '}')
	}
	b = append(b, ']')
	if m.NextPageToken != "" {
		token, _ := json.Marshal(m.NextPageToken) // a string always encodes
		b = append(append(b, `,"nextPageToken":`...), token...)
	}
	return append(b, '}')
}

// timeRange is the startTimestamp and endTimestamp of a v2 request: the
// points whose timestamp t has Start <= t <= End, each bound when given.
type timeRange struct {
	Start, End       int64
	HasStart, HasEnd bool
}

// readRange reads startTimestamp and endTimestamp from q: integers of at
// least 0. Call q.Err, then check.
func readRange(q *rest.Params) timeRange {
	var tr timeRange
	tr.Start, tr.HasStart = q.Int64("startTimestamp", 0)
	tr.End, tr.HasEnd = q.Int64("endTimestamp", 0)
	return tr
}

// String returns the range as a page token's scope names it: each bound
// given, or nothing.
func (tr timeRange) String() string {
	bound := func(v int64, given bool) string {
		if !given {
			return ""
		}
		return strconv.FormatInt(v, 10)
	}
	return bound(tr.Start, tr.HasStart) + ".." + bound(tr.End, tr.HasEnd)
}

// check refuses a start after the end.
func (tr timeRange) check() error {
	if tr.HasStart && tr.HasEnd && tr.Start > tr.End {
		return rest.BadRequest("startTimestamp: %d is after endTimestamp %d", tr.Start, tr.End)
	}
	return nil
}

// steps returns the steps of length step (an hour or a day) whose start
// lies in the range: first and last step numbers, last only when HasEnd.
func (tr timeRange) steps(step int64) (first, last int64) {
	first = tr.Start / step
	if tr.Start%step != 0 {
		first++
	}
	return first, tr.End / step
}

// pathEnum reads the path parameter name, which must be one of allowed.
func pathEnum(r *http.Request, name string, allowed ...string) (string, error) {
	v, err := rest.PathParam(r, name)
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, v) {
		return "", rest.BadRequest("%s: must be one of %s, got %s", name, strings.Join(allowed, "|"), rest.Quote(v))
	}
	return v, nil
}

// parseID reads an ID parameter's value: a 400 naming it unless CB58 of
// 32 bytes.
func parseID(name, what, v string) (ids.ID, error) {
	id, err := ids.FromString(v)
	if err != nil {
		return ids.ID{}, rest.BadRequest("%s: must be %s (CB58), got %s", name, what, rest.Quote(v))
	}
	return id, nil
}

// pChain returns the P-Chain whose series the v2 endpoints serve: the
// chain of the P-Chain VM (the one aliased P when there are several); a
// node without one answers 404.
func (s *Server) pChain() (series.Chain, error) {
	var found []series.Chain
	for _, c := range s.opts.Chains() {
		if c.Staking {
			found = append(found, c)
		}
	}
	for _, c := range found {
		if slices.Contains(c.Info.Aliases, "P") {
			return c, nil
		}
	}
	if len(found) == 0 {
		return series.Chain{}, rest.NotFound("this node runs no P-Chain: the staking and L1 validator fee series come from it")
	}
	return found[0], nil
}

// pClient returns a client of the P-Chain c.
func (s *Server) pClient(c series.Chain) pchain.Client {
	return pchain.New(s.opts.Host.Calls, c.Info.ID.String())
}

// pFailed is the answer to a failed call of the P-Chain.
func pFailed(err error) error {
	return rest.Unavailable("the P-Chain does not answer").WithCause(err)
}

// chainTime returns the P-Chain's time, unix seconds.
func (s *Server) chainTime(ctx context.Context, c series.Chain) (int64, error) {
	t, err := s.pClient(c).Time(ctx)
	if err != nil {
		return 0, pFailed(err)
	}
	return int64(t), nil
}

// feeError answers an error of a P-Chain fee read: an unknown validation
// ID is a 404, a range of too many days a 400; anything else the chain's
// failure.
func feeError(err error, validationID string) error {
	switch pchain.Code(err) {
	case pvmapi.CodeNotFound:
		return rest.NotFound("L1 validation ID %s not found", validationID)
	case jsonrpc.CodeInvalidParams:
		return rest.BadRequest("startTimestamp: the range holds more than %d days of the P-Chain's history; narrow startTimestamp and endTimestamp", pvmapi.MaxDays).WithCause(err)
	}
	return pFailed(err)
}
