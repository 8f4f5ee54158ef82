// Package api serves the metrics REST API (docs/metrics-api.md): the v1
// average throughput of every chain with a block index, the v2 staking
// series and the EVM chains' chain metrics from the metrics module's
// store, the v2 L1 validator fee series
// from the P-Chain's fee records, in the shapes of reference/openapi/,
// with the REST toolkit's errors and parameter checks and the server-kept
// page tokens of docs/metrics-api.md.
package api

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The module's path prefixes.
var Prefixes = []string{"/v1/avg_tps", "/v2/networks", "/v2/validation", "/v2/validators", "/v2/validator", "/v2/subnet", "/v2/subnets", "/v2/health-check", "/v2/live-check", "/v2/chains"}

// v1Prefix holds the v1 routes, whose error bodies carry `message` as an
// array of strings (docs/metrics-api.md, "Errors").
const v1Prefix = "/v1"

// MessageArrayPrefixes are the path prefixes of the array style: the
// module's description declares them, so that the errors the host answers
// for the module there (413, 502, 503, 504) have it too.
var MessageArrayPrefixes = []string{v1Prefix}

// ErrorWriter picks the error body style of a request: messages arrays on
// the v1 routes, a message string elsewhere. The rate limiter uses it too.
func ErrorWriter(r *http.Request) rest.ErrorWriter {
	return rest.ErrorWriterFor(MessageArrayPrefixes, r.URL.Path)
}

// GCPercent is the collector's GOGC for the module's process unless its
// environment sets GOGC: a 2160-point page leaves some 200 KB of garbage
// on its way out (its points and the copies of its JSON), and at Go's
// default of 100 the collection every hundred pages or so, whose
// stop-the-world phases wait for threads a loaded machine has descheduled,
// set the 99th percentile. At 400 the heap may grow to five times what is
// live (about 100 MB for 20 MB) between collections (docs/benchmarks.md,
// "Metrics API").
const GCPercent = 400

// Options configures a Server.
type Options struct {
	// Store holds the series and the page tokens.
	Store *store.Store
	// Chains lists the chains the series cover.
	Chains func() []series.Chain
	// Host calls EVM chains for their EVM chain ID and the P-Chain for
	// its time and fees.
	Host host.Services
	// Network is the network whose names the node answers to.
	Network rest.Network
	// TokenTTL is how long a page token stays valid.
	TokenTTL time.Duration
	// Clock is the module's clock; nil is time.Now.
	Clock func() time.Time
	// Logger; nil discards.
	Logger hclog.Logger
	// Metrics takes the request collectors; nil registers none.
	Metrics prometheus.Registerer
}

// Server answers the metrics API.
type Server struct {
	opts    Options
	tokens  tokens
	metrics *rest.EndpointMetrics

	mu       sync.Mutex
	evmChain map[ids.ID]uint64 // EVM chain IDs learnt
}

// New returns a server.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	metrics, err := rest.NewEndpointMetrics("metricsapi", "Metrics API", opts.Metrics)
	if err != nil {
		return nil, err
	}
	return &Server{
		opts:     opts,
		tokens:   tokens{store: opts.Store, ttl: opts.TokenTTL, clock: opts.Clock},
		metrics:  metrics,
		evmChain: map[ids.ID]uint64{},
	}, nil
}

// Handler routes the endpoints; every other path and method gets the REST
// error body, in the style of its route.
func (s *Server) Handler() http.Handler {
	v1 := rest.NewMux(rest.MuxOptions{WriteError: rest.WriteErrorMessages, Observe: s.metrics.Observe, Logger: s.opts.Logger})
	v1.Handle("/v1/avg_tps/{chainId}", s.avgTPS)
	v2 := rest.NewMux(rest.MuxOptions{Observe: s.metrics.Observe, Logger: s.opts.Logger})
	v2.Handle("/v2/networks/{network}/metrics/{metric}", s.staking)
	v2.Handle("/v2/validation/{l1ValidationId}/metrics/{metric}", s.validationFees)
	v2.Handle("/v2/validators/metrics/{metric}", s.totalFees)
	v2.Handle("/v2/validator/{nodeId}/metrics/{metric}", s.nodeFees)
	v2.Handle("/v2/subnet/{subnetId}/metrics/{metric}", s.subnetFees)
	v2.Handle("/v2/subnets/{subnetId}/validators:getAddresses", s.validatorAddresses)
	v2.Handle("/v2/chains/{chainId}/metrics/{metric}", s.chainMetric)
	v2.Handle("/v2/chains/{chainId}/rollingWindowMetrics/{metric}", s.rollingWindow)
	s.handleService(v2)
	mux := http.NewServeMux()
	mux.Handle(v1Prefix+"/", v1)
	mux.Handle("/", v2)
	return mux
}

// chain resolves a chainId path value: an EVM chain ID (decimal) or a
// blockchain ID or alias of a chain the series cover, or the name of an
// external chain; anything else is a 404. The node's own chains come
// first: an external chain that shares their EVM chain ID or alias
// answers by its blockchain ID or name (docs/metrics-api.md, "External
// chains").
func (s *Server) chain(ctx context.Context, value string) (series.Chain, error) {
	chains := s.opts.Chains()
	var external []series.Chain
	for _, c := range chains {
		if c.External != nil {
			external = append(external, c)
		}
	}
	if evmID, err := strconv.ParseUint(value, 10, 64); err == nil {
		for _, c := range chains {
			if id, ok := s.evmChainID(ctx, c.Info); ok && id == evmID {
				return c, nil
			}
		}
		for _, c := range external {
			if c.External.ChainID == evmID {
				return c, nil
			}
		}
	} else if info, err := s.opts.Host.Chains.Resolve(ctx, value); err == nil {
		for _, c := range chains {
			if c.Info.ID == info.ID {
				return c, nil
			}
		}
	}
	for _, c := range external {
		if value == c.External.Name || value == c.Info.ID.String() {
			return c, nil
		}
	}
	return series.Chain{}, rest.NotFound("chain %s not found: use a blockchain ID or alias of a chain with a block index, or an EVM chain ID", rest.Quote(value))
}
