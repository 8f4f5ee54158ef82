package metrics

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// pluginLabel is the label that names the plugin (a chain's alias or a
// module's name) on every metric a plugin exports.
const pluginLabel = "plugin"

// PluginSource is one plugin whose own metrics the exporter serves.
type PluginSource struct {
	// Name is the plugin's name, the value of pluginLabel.
	Name string
	// Gather returns the plugin's metric families; it must give up when
	// ctx ends.
	Gather func(ctx context.Context) ([]*dto.MetricFamily, error)
}

// SetPlugins sets the function that lists, at each scrape, the plugins
// whose metrics /ext/metrics merges with the host's.
func (m *Metrics) SetPlugins(list func() []PluginSource) {
	m.pluginsMu.Lock()
	defer m.pluginsMu.Unlock()
	m.plugins = list
}

// pluginGatherer gathers every plugin's metrics, labelled with its name.
type pluginGatherer struct{ m *Metrics }

// Gather asks every plugin at once and merges their families by name. A
// plugin that fails, or a family whose type differs from another plugin's
// of the same name, is left out and reported in the error; the rest is
// served.
func (g pluginGatherer) Gather() ([]*dto.MetricFamily, error) {
	g.m.pluginsMu.Lock()
	list := g.m.plugins
	g.m.pluginsMu.Unlock()
	if list == nil {
		return nil, nil
	}
	sources := list()
	results := make([][]*dto.MetricFamily, len(sources))
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, src := range sources {
		wg.Go(func() {
			results[i], errs[i] = src.Gather(context.Background())
		})
	}
	wg.Wait()
	var problems prometheus.MultiError
	byName := map[string]*dto.MetricFamily{}
	for i, src := range sources {
		if errs[i] != nil {
			problems.Append(errs[i])
			continue
		}
		for _, mf := range results[i] {
			labelled := withPluginLabel(mf, src.Name)
			have, ok := byName[mf.GetName()]
			switch {
			case !ok:
				byName[mf.GetName()] = labelled
			case have.GetType() != labelled.GetType():
				problems.Append(fmt.Errorf("plugin %s: metric %s is a %s, another plugin's is a %s",
					src.Name, mf.GetName(), labelled.GetType(), have.GetType()))
			default:
				have.Metric = append(have.Metric, labelled.Metric...)
			}
		}
	}
	out := make([]*dto.MetricFamily, 0, len(byName))
	for _, mf := range byName {
		out = append(out, mf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, problems.MaybeUnwrap()
}

// withPluginLabel returns a copy of mf whose every metric carries
// pluginLabel=name, in place of any such label the plugin set.
func withPluginLabel(mf *dto.MetricFamily, name string) *dto.MetricFamily {
	out := proto.Clone(mf).(*dto.MetricFamily)
	for _, metric := range out.Metric {
		labels := slices.DeleteFunc(metric.Label, func(l *dto.LabelPair) bool { return l.GetName() == pluginLabel })
		labels = append(labels, &dto.LabelPair{Name: proto.String(pluginLabel), Value: proto.String(name)})
		sort.Slice(labels, func(i, j int) bool { return labels[i].GetName() < labels[j].GetName() })
		metric.Label = labels
	}
	return out
}
