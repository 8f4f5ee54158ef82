package load

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Table formats the tallies as a Markdown table: the rate asked and held,
// latency percentiles, failures and rate-limit answers.
func Table(tallies []*Tally, asked map[string]int) string {
	var b strings.Builder
	b.WriteString("| part | rate asked | rate held | requests | p50 | p99 | max | failed | failed, by answer | 429 |\n|---|---|---|---|---|---|---|---|---|---|\n")
	var total Tally
	var askedTotal int
	for _, t := range tallies {
		m := t.Metrics
		fmt.Fprintf(&b, "| %s | %d/s | %.1f/s | %d | %s | %s | %s | %d | %s | %d |\n", t.Name, asked[t.Name], m.Rate, m.Requests,
			ms(m.Latencies.P50), ms(m.Latencies.P99), ms(m.Latencies.Max), t.Failures, byAnswer(t.FailedBy), t.RateLimited)
		total.Metrics.Requests += m.Requests
		total.Metrics.Rate += m.Rate
		total.Failures += t.Failures
		total.RateLimited += t.RateLimited
		askedTotal += asked[t.Name]
	}
	fmt.Fprintf(&b, "| **all** | %d/s | %.1f/s | %d | | | | %d | | %d |\n", askedTotal, total.Metrics.Rate, total.Metrics.Requests, total.Failures, total.RateLimited)
	return b.String()
}

// byAnswer formats failure counts by answer, most frequent first.
func byAnswer(counts map[string]int) string {
	keys := slices.Collect(maps.Keys(counts))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(counts[b]-counts[a], strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

// ms formats a latency in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// ProcTable formats snapshots of the node's processes side by side, one
// column group per moment, as a Markdown table.
func ProcTable(moments []string, snaps [][]Proc) string {
	var b strings.Builder
	b.WriteString("| process | measure |")
	for _, m := range moments {
		b.WriteString(" " + m + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(moments)) + "\n")
	names := []string{}
	seen := map[string]bool{}
	for _, s := range snaps {
		for _, p := range s {
			if !seen[p.Name] {
				seen[p.Name] = true
				names = append(names, p.Name)
			}
		}
	}
	find := func(s []Proc, name string) (Proc, bool) {
		for _, p := range s {
			if p.Name == name {
				return p, true
			}
		}
		return Proc{}, false
	}
	for _, name := range names {
		rows := []struct {
			label string
			value func(Proc) string
		}{
			{"RSS", func(p Proc) string { return fmt.Sprintf("%.1f MiB", float64(p.RSSKiB)/1024) }},
			{"goroutines", func(p Proc) string {
				if p.Goroutines < 0 {
					return "–"
				}
				return fmt.Sprint(p.Goroutines)
			}},
			{"threads", func(p Proc) string { return fmt.Sprint(p.Threads) }},
			{"fds", func(p Proc) string { return fmt.Sprint(p.FDs) }},
		}
		for _, r := range rows {
			if r.label == "goroutines" && name != "host" {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s |", name, r.label)
			for _, s := range snaps {
				v := "–"
				if p, ok := find(s, name); ok {
					v = r.value(p)
				}
				b.WriteString(" " + v + " |")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
