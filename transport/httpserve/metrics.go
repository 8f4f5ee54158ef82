package httpserve

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// RequestMetrics count and time HTTP requests by route. The host exports
// them for its listeners, and a chain's plugin for the chain's own
// listener under the same names, which the host labels with the chain
// (docs/listeners.md).
type RequestMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	routes   sync.Map // route -> *routeMetrics
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
	rm := m.route(route)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rm.serve(h, w, r) })
}

// Serve serves r with h, counted and timed under route as Instrument does.
// It is for routes resolved per request (a chain and one of its handlers).
func (m *RequestMetrics) Serve(route string, h http.Handler, w http.ResponseWriter, r *http.Request) {
	m.route(route).serve(h, w, r)
}

// route returns the series of route, made on its first request. Resolving
// the label values once, and not through promhttp's wrappers on every
// request, keeps the instrumentation cheap next to the light calls it
// measures (docs/benchmarks.md, "The shared path").
func (m *RequestMetrics) route(route string) *routeMetrics {
	if rm, ok := m.routes.Load(route); ok {
		return rm.(*routeMetrics)
	}
	rm, _ := m.routes.LoadOrStore(route, &routeMetrics{
		requests: m.requests.MustCurryWith(prometheus.Labels{"route": route}),
		latency:  m.latency.WithLabelValues(route),
	})
	return rm.(*routeMetrics)
}

// routeMetrics are the series of one route.
type routeMetrics struct {
	requests *prometheus.CounterVec // curried with the route
	latency  prometheus.Observer
	codes    sync.Map // status code -> prometheus.Counter
}

// serve serves r with h, then counts it under its status code and times it.
func (rm *routeMetrics) serve(h http.Handler, w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := statusWriter{ResponseWriter: w}
	h.ServeHTTP(&sw, r)
	rm.latency.Observe(time.Since(start).Seconds())
	rm.counter(sw.status).Inc()
}

// counter returns the request counter of status; 0, a handler that wrote
// nothing (or took the connection over), counts as 200, as promhttp does.
func (rm *routeMetrics) counter(status int) prometheus.Counter {
	if status == 0 {
		status = http.StatusOK
	}
	if c, ok := rm.codes.Load(status); ok {
		return c.(prometheus.Counter)
	}
	c, _ := rm.codes.LoadOrStore(status, rm.requests.WithLabelValues(strconv.Itoa(status)))
	return c.(prometheus.Counter)
}

// statusWriter records the status code of an answer. It passes on
// flushing and hijacking (WebSocket upgrades), and Unwrap lets
// http.ResponseController reach the rest.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
