package rest

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
)

// EndpointFunc answers one GET endpoint: the value to write as JSON with
// 200, or an error (an *Error for its status; any other error is a 500
// whose text stays in the log).
type EndpointFunc func(r *http.Request) (any, error)

// MuxOptions configures a Mux.
type MuxOptions struct {
	// WriteError writes error answers; nil is WriteError (the metrics v1
	// routes use WriteErrorMessages).
	WriteError ErrorWriter
	// Observe, when set, is called after each answer with the endpoint's
	// pattern ("none" for unmatched paths), the status and the time taken:
	// the module's request metrics.
	Observe func(endpoint string, status int, took time.Duration)
	// Logger logs each answer at DEBUG and each 5xx at WARN; nil discards.
	Logger hclog.Logger
}

// Mux routes GET endpoints by http.ServeMux pattern and answers everything
// else with the REST error body: 405 (with Allow: GET) for another method
// on a known path, 404 for an unknown path.
type Mux struct {
	mux  *http.ServeMux
	opts MuxOptions
}

// NewMux returns an empty Mux.
func NewMux(opts MuxOptions) *Mux {
	if opts.WriteError == nil {
		opts.WriteError = WriteError
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	m := &Mux{mux: http.NewServeMux(), opts: opts}
	m.mux.HandleFunc("/", m.unrouted)
	return m
}

// Handle registers fn for GET requests matching pattern (http.ServeMux
// syntax, without a method).
func (m *Mux) Handle(pattern string, fn EndpointFunc) {
	m.mux.HandleFunc("GET "+pattern, func(w http.ResponseWriter, r *http.Request) {
		begin := time.Now()
		v, err := fn(r)
		m.answer(w, r, pattern, v, err, begin)
	})
}

// unrouted answers what no GET pattern matches: 405 when a GET of the path
// would match one (found here rather than by a method-less pattern per
// endpoint, which ServeMux refuses beside a GET wildcard pattern such as
// /v1/chains/{chainId} next to /v1/chains/allBlocks), else 404.
func (m *Mux) unrouted(w http.ResponseWriter, r *http.Request) {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	if _, pattern := m.mux.Handler(get); strings.HasPrefix(pattern, "GET ") {
		w.Header().Set("Allow", http.MethodGet)
		m.answer(w, r, strings.TrimPrefix(pattern, "GET "), nil, Errorf(http.StatusMethodNotAllowed, "method %s not allowed: use GET", r.Method), time.Now())
		return
	}
	m.answer(w, r, "none", nil, NoEndpoint(r), time.Now())
}

// NoEndpoint is the 404 of a request no endpoint serves. A handler whose
// pattern has a wildcard answers it for a path segment that cannot be a
// value of the wildcard (a sibling path of the contract the API does not
// serve), as the mux answers a path it has no pattern for.
func NoEndpoint(r *http.Request) *Error {
	return NotFound("no endpoint %s %s", r.Method, r.URL.Path)
}

// ServeHTTP routes r.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.mux.ServeHTTP(w, r) }

// answer writes v or err, then observes and logs the answer.
func (m *Mux) answer(w http.ResponseWriter, r *http.Request, endpoint string, v any, err error, begin time.Time) {
	status := http.StatusOK
	if err != nil {
		var re *Error
		if status = http.StatusInternalServerError; errors.As(err, &re) && re.Status >= 400 && re.Status <= 599 {
			status = re.Status
		}
		if status >= 500 {
			m.opts.Logger.Warn("request failed", "path", r.URL.Path, "status", status, "error", err)
		}
		m.opts.WriteError(w, err)
	} else {
		WriteJSON(w, status, v)
	}
	if m.opts.Observe != nil {
		m.opts.Observe(endpoint, status, time.Since(begin))
	}
	m.opts.Logger.Debug("request served", "path", r.URL.Path, "status", status, "key", KeyName(r.Context()))
}
