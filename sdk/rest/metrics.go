package rest

import (
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// EndpointMetrics counts and times a module's answers by endpoint: its
// Observe is a Mux's MuxOptions.Observe.
type EndpointMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// NewEndpointMetrics returns <prefix>_requests_total, by endpoint and status
// code, and <prefix>_request_seconds, by endpoint, described as api's
// (for example "Data API"), registered with reg unless it is nil.
func NewEndpointMetrics(prefix, api string, reg prometheus.Registerer) (*EndpointMetrics, error) {
	m := &EndpointMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: prefix + "_requests_total", Help: api + " requests, by endpoint and status code.",
		}, []string{"endpoint", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: prefix + "_request_seconds", Help: api + " request duration, by endpoint.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 8),
		}, []string{"endpoint"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.requests, m.latency} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("register the %s request metrics: %w", api, err)
			}
		}
	}
	return m, nil
}

// Observe records one answer.
func (m *EndpointMetrics) Observe(endpoint string, status int, took time.Duration) {
	m.requests.WithLabelValues(endpoint, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(endpoint).Observe(took.Seconds())
}
