// Package metrics holds the node's Prometheus collectors and serves them at
// /ext/metrics.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/chainhost/chainhost/transport/httpserve"
)

// Metrics is the node's metric registry.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *httpserve.RequestMetrics
	rpcCalls    *prometheus.CounterVec
	rpcLatency  *prometheus.HistogramVec
	restarts    *prometheus.CounterVec
	pluginState *prometheus.GaugeVec

	pluginsMu sync.Mutex
	plugins   func() []PluginSource // see SetPlugins
}

// New creates the registry with the Go and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg:      prometheus.NewRegistry(),
		requests: httpserve.NewRequestMetrics(),
		rpcCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chainhost_jsonrpc_calls_total",
			Help: "JSON-RPC calls served by the host, by route, method and error code (0 for success).",
		}, []string{"route", "method", "code"}),
		rpcLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "chainhost_jsonrpc_call_duration_seconds",
			Help:    "JSON-RPC call latency by route and method.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10),
		}, []string{"route", "method"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chainhost_plugin_restarts_total",
			Help: "Restarts of plugin processes after they died.",
		}, []string{pluginLabel}),
		pluginState: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "chainhost_plugin_up",
			Help: "1 while a plugin process is running and initialized, else 0.",
		}, []string{pluginLabel}),
	}
	m.reg.MustRegister(m.requests.Collectors()...)
	m.reg.MustRegister(m.rpcCalls, m.rpcLatency, m.restarts, m.pluginState,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the host's metrics and the plugins' (see SetPlugins) in
// the Prometheus exposition formats. A plugin that cannot be gathered is
// left out, and logged to errorLog when it is set; the rest is served.
func (m *Metrics) Handler(errorLog promhttp.Logger) http.Handler {
	return promhttp.HandlerFor(prometheus.Gatherers{m.reg, pluginGatherer{m}}, promhttp.HandlerOpts{
		Registry:      m.reg,
		ErrorLog:      errorLog,
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// Instrument wraps h to count requests and time them under route.
func (m *Metrics) Instrument(route string, h http.Handler) http.Handler {
	return m.requests.Instrument(route, h)
}

// Serve serves r with h, counted and timed under route as Instrument does,
// for routes resolved per request.
func (m *Metrics) Serve(route string, h http.Handler, w http.ResponseWriter, r *http.Request) {
	m.requests.Serve(route, h, w, r)
}

// ObserveCall records one JSON-RPC call; code is 0 on success.
func (m *Metrics) ObserveCall(route, method string, d time.Duration, code int) {
	m.rpcCalls.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.rpcLatency.WithLabelValues(route, method).Observe(d.Seconds())
}

// PluginRestarted counts a restart of plugin.
func (m *Metrics) PluginRestarted(plugin string) { m.restarts.WithLabelValues(plugin).Inc() }

// PluginUp records whether plugin is running.
func (m *Metrics) PluginUp(plugin string, up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.pluginState.WithLabelValues(plugin).Set(v)
}
