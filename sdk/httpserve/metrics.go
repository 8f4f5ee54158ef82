package httpserve

import (
	"context"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// RequestMetrics count and time HTTP requests by route. The host exports
// them for its listeners, and a chain's plugin for the chain's own
// listener under the same names, which the host labels with the chain
// (docs/listeners.md).
type RequestMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	routes   sync.Map // route -> its instrumentation, for Serve
}

// NewRequestMetrics returns the collectors, not registered.
func NewRequestMetrics() *RequestMetrics {
	return &RequestMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chainhost_http_requests_total",
			Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "chainhost_http_request_duration_seconds",
			Help:    "HTTP request latency by route.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"route"}),
	}
}

// Collectors are the collectors to register.
func (m *RequestMetrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.latency}
}

// Instrument wraps h to count requests and time them under route.
func (m *RequestMetrics) Instrument(route string, h http.Handler) http.Handler {
	return promhttp.InstrumentHandlerDuration(m.latency.MustCurryWith(prometheus.Labels{"route": route}),
		promhttp.InstrumentHandlerCounter(m.requests.MustCurryWith(prometheus.Labels{"route": route}), h))
}

// Serve serves r with h, counted and timed under route as Instrument does.
// It is for routes resolved per request (a chain and one of its handlers):
// each route's instrumentation is built once, not on every request, which
// would cost more than a cheap call it measures.
func (m *RequestMetrics) Serve(route string, h http.Handler, w http.ResponseWriter, r *http.Request) {
	ih, ok := m.routes.Load(route)
	if !ok {
		ih, _ = m.routes.LoadOrStore(route, m.Instrument(route, http.HandlerFunc(serveTarget)))
	}
	ih.(http.Handler).ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), targetKey{}, h)))
}

// targetKey carries Serve's handler through the cached instrumentation.
type targetKey struct{}

// serveTarget serves the request with the handler Serve put in its context.
func serveTarget(w http.ResponseWriter, r *http.Request) {
	r.Context().Value(targetKey{}).(http.Handler).ServeHTTP(w, r)
}
