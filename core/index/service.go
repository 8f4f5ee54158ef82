package index

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// HeaderIncomplete is the response header, set to "true", by which an
// incomplete index says so on every answer.
const HeaderIncomplete = "X-Chainhost-Index-Incomplete"

// ServiceOptions configures the index JSON-RPC service.
type ServiceOptions struct {
	// MaxBatchSize is the most items a batch may hold; 0 means
	// jsonrpc.DefaultMaxBatchSize (40, docs/api/jsonrpc.md).
	MaxBatchSize int
	// Incomplete marks every HTTP response with HeaderIncomplete
	// (NewHandler only).
	Incomplete bool
	// OnCall, if set, runs after every method call (see jsonrpc.Options).
	OnCall func(method string, dur time.Duration, err *jsonrpc.Error)
	// OnPanic, if set, receives a method's panic (see jsonrpc.Options).
	OnPanic func(method string, recovered any, stack []byte)
}

// wireContainer is a container as the index API writes it (docs/index.md).
type wireContainer struct {
	ID        ids.ID         `json:"id"`
	Bytes     string         `json:"bytes"`
	Timestamp time.Time      `json:"timestamp"`
	Encoding  string         `json:"encoding"`
	Index     jsonrpc.Uint64 `json:"index"`
}

// toWire returns the wire form of c.
func toWire(c Container) wireContainer {
	return wireContainer{
		ID:        c.ID,
		Bytes:     hexWithChecksum(c.Bytes),
		Timestamp: c.Timestamp.UTC(),
		Encoding:  encodingHex,
		Index:     jsonrpc.Uint64(c.Index),
	}
}

// indexResult is the result of index.getIndex.
type indexResult struct {
	Index jsonrpc.Uint64 `json:"index"`
}

// isAcceptedResult is the result of index.isAccepted.
type isAcceptedResult struct {
	IsAccepted bool `json:"isAccepted"`
}

// service answers the index methods over one index.
type service struct{ ix *Index }

// newService returns a JSON-RPC server with the index methods of
// docs/api/index.md over ix. It does not mark incompleteness; NewHandler does.
func newService(ix *Index, opts ServiceOptions) *jsonrpc.Server {
	s := jsonrpc.NewServer(jsonrpc.Options{
		MaxBatchSize: opts.MaxBatchSize,
		OnCall:       opts.OnCall,
		OnPanic:      opts.OnPanic,
	})
	svc := service{ix: ix}
	s.Register("index.getContainerByID", jsonrpc.Method(svc.getContainerByID))
	s.Register("index.getContainerByIndex", jsonrpc.Method(svc.getContainerByIndex))
	s.Register("index.getContainerRange", jsonrpc.Method(svc.getContainerRange))
	s.Register("index.getIndex", jsonrpc.Method(svc.getIndex))
	s.Register("index.getLastAccepted", jsonrpc.Method(svc.getLastAccepted))
	s.Register("index.isAccepted", jsonrpc.Method(svc.isAccepted))
	return s
}

// NewHandler returns the HTTP handler of the index API over ix: the
// newService server, whose responses carry HeaderIncomplete when
// opts.Incomplete.
func NewHandler(ix *Index, opts ServiceOptions) http.Handler {
	s := newService(ix, opts)
	if !opts.Incomplete {
		return s
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderIncomplete, "true")
		s.ServeHTTP(w, r)
	})
}

// getContainerByID answers index.getContainerByID.
func (s service) getContainerByID(_ context.Context, p idParams) (wireContainer, error) {
	c, err := s.ix.GetByID(*p.ID)
	if err != nil {
		return wireContainer{}, err
	}
	return toWire(c), nil
}

// getContainerByIndex answers index.getContainerByIndex.
func (s service) getContainerByIndex(_ context.Context, p indexParams) (wireContainer, error) {
	c, err := s.ix.GetByIndex(uint64(p.Index))
	if err != nil {
		return wireContainer{}, err
	}
	return toWire(c), nil
}

// getContainerRange answers index.getContainerRange, applying the rules of docs/index.md in their order: 0 wanted
// answers empty, a start past the last accepted index is an error, a short
// tail answers what exists. The limit is checked by rangeParams.
func (s service) getContainerRange(_ context.Context, p rangeParams) (jsonrpc.RawResult, error) {
	if p.NumToFetch == 0 {
		return jsonrpc.RawResult("[]"), nil
	}
	n, err := s.ix.Len()
	if err != nil {
		return nil, err
	}
	start := uint64(p.StartIndex)
	switch {
	case n == 0:
		return nil, errNoneAccepted
	case start > n-1:
		return nil, fmt.Errorf("start index (%d) > last accepted index (%d)", start, n-1)
	}
	cs, err := s.ix.Range(start, min(uint64(p.NumToFetch), n-start))
	if err != nil {
		return nil, err
	}
	size := 2
	for _, c := range cs {
		size += wireSize(c) + 1
	}
	// Encoded here, in one pass, rather than by encoding/json: a range is
	// up to 1024 containers, megabytes of hex (see appendWire).
	return jsonrpc.RawResult(appendWires(make([]byte, 0, size), cs)), nil
}

// getIndex answers index.getIndex.
func (s service) getIndex(_ context.Context, p idParams) (indexResult, error) {
	i, err := s.ix.IndexOf(*p.ID)
	if err != nil {
		return indexResult{}, err
	}
	return indexResult{Index: jsonrpc.Uint64(i)}, nil
}

// getLastAccepted answers index.getLastAccepted.
func (s service) getLastAccepted(_ context.Context, _ encodingParams) (wireContainer, error) {
	c, err := s.ix.Last()
	if err != nil {
		return wireContainer{}, err
	}
	return toWire(c), nil
}

// isAccepted answers index.isAccepted: false for an unknown ID.
func (s service) isAccepted(_ context.Context, p idParams) (isAcceptedResult, error) {
	_, err := s.ix.IndexOf(*p.ID)
	switch {
	case err == nil:
		return isAcceptedResult{IsAccepted: true}, nil
	case errors.Is(err, ErrNotFound):
		return isAcceptedResult{IsAccepted: false}, nil
	default:
		return isAcceptedResult{}, err
	}
}
