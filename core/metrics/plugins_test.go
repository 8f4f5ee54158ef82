package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// gatherOf returns a PluginSource gather function over collectors.
func gatherOf(t *testing.T, cs ...prometheus.Collector) func(context.Context) ([]*dto.MetricFamily, error) {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(cs...)
	return func(context.Context) ([]*dto.MetricFamily, error) { return reg.Gather() }
}

func TestPluginMetrics(t *testing.T) {
	m := New()
	m.PluginUp("data", true)
	requests := func(n float64) prometheus.Collector {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "module_requests_total", Help: "Requests."}, []string{"route", "plugin"})
		c.WithLabelValues("/v1/chains", "spoofed").Add(n)
		return c
	}
	height := prometheus.NewGauge(prometheus.GaugeOpts{Name: "indexer_height", Help: "Height."})
	height.Set(42)
	clash := prometheus.NewGauge(prometheus.GaugeOpts{Name: "module_requests_total", Help: "Requests."})
	m.SetPlugins(func() []PluginSource {
		return []PluginSource{
			{Name: "data", Gather: gatherOf(t, requests(3), height)},
			{Name: "metrics", Gather: gatherOf(t, requests(5))},
			{Name: "broken", Gather: func(context.Context) ([]*dto.MetricFamily, error) { return nil, errors.New("plugin gone") }},
			{Name: "odd", Gather: gatherOf(t, clash)},
		}
	})
	var logged strings.Builder
	srv := httptest.NewServer(m.Handler(logger{&logged}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	out := string(body)
	for _, want := range []string{
		`module_requests_total{plugin="data",route="/v1/chains"} 3`,
		`module_requests_total{plugin="metrics",route="/v1/chains"} 5`,
		`indexer_height{plugin="data"} 42`,
		`chainhost_plugin_up{plugin="data"} 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %s:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{`plugin="spoofed"`, `plugin="odd"`} {
		if strings.Contains(out, unwanted) {
			t.Errorf("metrics hold %s:\n%s", unwanted, out)
		}
	}
	if resp.StatusCode != 200 {
		t.Errorf("status %d, want 200 despite the failing plugins", resp.StatusCode)
	}
	for _, want := range []string{"plugin gone", "plugin odd: metric module_requests_total is a GAUGE, another plugin's is a COUNTER"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("error log lacks %q: %s", want, logged.String())
		}
	}
}

// logger is a promhttp.Logger writing to a builder.
type logger struct{ b *strings.Builder }

func (l logger) Println(v ...any) {
	for _, x := range v {
		l.b.WriteString(strings.TrimSpace(strings.ReplaceAll(toString(x), "\n", " ")) + " ")
	}
}

func toString(x any) string {
	if err, ok := x.(error); ok {
		return err.Error()
	}
	if s, ok := x.(string); ok {
		return s
	}
	return ""
}
