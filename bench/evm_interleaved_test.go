package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/chainhost/chainhost/bench/internal/post"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// beforeBinDirEnv names the make build output dir of an earlier commit,
// whose host BenchmarkEVMRPCInterleaved measures too, as "before".
const beforeBinDirEnv = nodetest.BenchEnvPrefix + "BEFORE_BIN_DIR"

// roundsEnv sets how many rounds BenchmarkEVMRPCInterleaved runs.
const roundsEnv = nodetest.BenchEnvPrefix + "ROUNDS"

// The windows of BenchmarkEVMRPCInterleaved: each measurement is preceded
// by a warm-up on the same target (new connections, a woken process).
const (
	interleavedRounds = 6
	throughputWindow  = 2 * time.Second
	latencyWindow     = time.Second
	windowWarmUp      = 300 * time.Millisecond
)

// interleavedKinds are what BenchmarkEVMRPCInterleaved measures of a
// method: 8 clients' requests per second, and one sequential client's
// median latency.
var interleavedKinds = []struct {
	name    string
	clients int
	window  time.Duration
}{{"req/s", 8, throughputWindow}, {"p50", 1, latencyWindow}}

// BenchmarkEVMRPCInterleaved (run it with -benchtime 1x) measures what
// BenchmarkEVMRPC does, 8 clients' requests per second and one client's
// sequential median latency, but starts every target once and then
// measures them in turns, each for a short window, in an order rotated by
// one every round. On a shared machine the load of others drifts over
// seconds; runs minutes apart, as BenchmarkEVMRPC's targets are, differ
// by it more than the targets do. Each ratio is taken within a round, and
// the table printed at the end gives its median over the rounds with its
// range (docs/benchmarks.md). CHAINHOST_BENCH_BEFORE_BIN_DIR adds the host
// of an earlier build; CHAINHOST_BENCH_ROUNDS sets the rounds (default 6).
func BenchmarkEVMRPCInterleaved(b *testing.B) {
	rounds := benchRounds(b)
	starts := []evmTarget{{"standalone", evmStandalone}, {"host", evmHost}, {"listener", evmListener}}
	ratios := [][2]string{{"listener", "standalone"}, {"host", "standalone"}}
	if dir := os.Getenv(beforeBinDirEnv); dir != "" {
		starts = append(starts, evmTarget{"before", func(b *testing.B) string {
			return nodetest.Start(b, nodetest.Options{Config: evmBenchConfig, BinDir: dir}).URL + "/ext/bc/C/rpc"
		}})
		ratios = append(ratios, [2]string{"host", "before"})
	}
	targets := startRPCTargets(b, starts)
	got := runInterleaved(b, targets, rounds)
	// Printed, not logged: the testing package cuts a benchmark's log short.
	fmt.Print(interleavedTable(got, targets, ratios))
}

// benchRounds is how many rounds an interleaved benchmark runs:
// CHAINHOST_BENCH_ROUNDS, default interleavedRounds.
func benchRounds(b *testing.B) int {
	v := os.Getenv(roundsEnv)
	if v == "" {
		return interleavedRounds
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive number of rounds", roundsEnv, v)
	}
	return n
}

// rpcTarget is a started target of an interleaved benchmark: its name, its
// rpc URL, and the requests of evmMethods on it.
type rpcTarget struct {
	name, url string
	bodies    map[string]string
	// pid is the process that serves the target: runInterleaved counts the
	// CPU time it and its children (its plugins) spend per request; 0 for
	// none.
	pid int
}

// The rows of the CPU time a target's processes spent per request of the
// throughput window, in µs: all of them, and the node's process alone
// (the rest is its plugins').
const (
	cpuKind     = "CPU/req"
	nodeCPUKind = "node CPU/req"
)

// cpuTicks is the CPU time, in clock ticks, that pid has spent, and that
// it and its children have.
func cpuTicks(b *testing.B, pid int) (node, all uint64) {
	for _, p := range append([]int{pid}, nodetest.ChildPIDs(pid)...) {
		st, err := plugintest.ReadProcStat(p)
		if err != nil {
			b.Fatalf("CPU time of process %d: %v", p, err)
		}
		all += st.UserTicks + st.SystemTicks
		if p == pid {
			node = all
		}
	}
	return node, all
}

// clockTick is Linux's clock tick of /proc (USER_HZ).
const clockTick = 10 * time.Millisecond

// startRPCTargets starts each target and deploys the token on it with the
// local key, signed for the chain ID the target answers.
func startRPCTargets(b *testing.B, starts []evmTarget) []rpcTarget {
	b.Helper()
	tok := loadERC20(b)
	key := benchKey(b)
	targets := make([]rpcTarget, 0, len(starts))
	for _, s := range starts {
		url := s.url(b)
		c, err := ethclient.Dial(url)
		if err != nil {
			b.Fatal(err)
		}
		bodies := evmBodies(tok, crypto.PubkeyToAddress(key.PublicKey), deployERC20(b, c, tok, key))
		c.Close()
		targets = append(targets, rpcTarget{name: s.name, url: url, bodies: bodies})
	}
	return targets
}

// runInterleaved measures every method of evmMethods, of each kind of
// interleavedKinds, on each target in turns, each for a short window after
// a warm-up on it, in an order rotated by one every round. It returns the
// rounds' values by measure and target.
func runInterleaved(b *testing.B, targets []rpcTarget, rounds int) map[measure]map[string][]float64 {
	got := map[measure]map[string][]float64{}
	b.ResetTimer()
	for r := range rounds {
		start := time.Now()
		for _, m := range evmMethods {
			for _, kind := range interleavedKinds {
				mr := measure{m, kind.name}
				if got[mr] == nil {
					got[mr] = map[string][]float64{}
				}
				for i := range targets {
					t := targets[(i+r)%len(targets)]
					post.Run(t.url, t.bodies[m], kind.clients, windowWarmUp)
					var node0, all0 uint64
					if t.pid != 0 {
						node0, all0 = cpuTicks(b, t.pid)
					}
					res := post.Run(t.url, t.bodies[m], kind.clients, kind.window)
					if res.Failed > 0 {
						b.Fatalf("%s %s on %s: %d of %d requests failed", m, kind.name, t.name, res.Failed, res.Answered)
					}
					v := res.PerSecond
					if kind.clients == 1 {
						v = float64(res.P50.Microseconds())
					} else if t.pid != 0 {
						node1, all1 := cpuTicks(b, t.pid)
						perRequest := func(ticks uint64) float64 {
							return float64((time.Duration(ticks) * clockTick).Microseconds()) / float64(res.Answered)
						}
						for k, ticks := range map[string]uint64{cpuKind: all1 - all0, nodeCPUKind: node1 - node0} {
							if got[measure{m, k}] == nil {
								got[measure{m, k}] = map[string][]float64{}
							}
							got[measure{m, k}][t.name] = append(got[measure{m, k}][t.name], perRequest(ticks))
						}
					}
					got[mr][t.name] = append(got[mr][t.name], v)
				}
			}
		}
		b.Logf("round %d of %d done in %s", r+1, rounds, time.Since(start).Round(time.Second))
	}
	b.StopTimer()
	b.ReportMetric(0, "ns/op") // one op is the whole run
	return got
}

// measure is one row of BenchmarkEVMRPCInterleaved's table: a method and
// what of it ("req/s" or "p50").
type measure struct{ method, kind string }

// interleavedTable is the markdown table of the rounds' values: each
// target's median with its range, then each ratio's (the first target's
// value over the second's, taken within a round). The CPU rows are there
// when every target has a pid.
func interleavedTable(got map[measure]map[string][]float64, targets []rpcTarget, ratios [][2]string) string {
	var sb strings.Builder
	sb.WriteString("| method |")
	for _, t := range targets {
		sb.WriteString(" " + t.name + " |")
	}
	for _, r := range ratios {
		sb.WriteString(" " + r[0] + " / " + r[1] + " |")
	}
	sb.WriteString("\n|---|" + strings.Repeat("---|", len(targets)+len(ratios)) + "\n")
	for _, m := range evmMethods {
		for _, kind := range []string{"req/s", "p50", cpuKind, nodeCPUKind} {
			row := got[measure{m, kind}]
			if len(row) < len(targets) {
				continue // the CPU of a target without a pid
			}
			unit := " µs"
			if kind == "req/s" {
				unit = ""
			}
			fmt.Fprintf(&sb, "| `%s` %s |", m, kind)
			for _, t := range targets {
				md, lo, hi := spread(row[t.name])
				fmt.Fprintf(&sb, " %.0f%s (%.0f–%.0f) |", md, unit, lo, hi)
			}
			for _, r := range ratios {
				per := make([]float64, len(row[r[0]]))
				for i := range per {
					per[i] = row[r[0]][i] / row[r[1]][i]
				}
				md, lo, hi := spread(per)
				fmt.Fprintf(&sb, " %.2f (%.2f–%.2f) |", md, lo, hi)
			}
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// spread is the median, the least and the greatest of vs.
func spread(vs []float64) (median, lo, hi float64) {
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return median, s[0], s[n-1]
}
