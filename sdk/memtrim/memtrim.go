// Package memtrim gives a process's idle memory back to the operating
// system once a burst of work has ended. The Go runtime collects garbage
// only when the heap reaches its goal, or every two minutes, so after a
// burst of load a quiet process keeps the garbage of the burst, and the
// pages of it, resident for minutes: the heap goal the burst set (twice
// the live heap, which in the host counts goleveldb's preallocated
// memtables) says nothing about what the quiet process needs
// (docs/benchmarks.md, "Memory after load").
package memtrim

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Options configures Run.
type Options struct {
	// Interval is how often the process is looked at; a process that
	// collected no garbage during one is quiet.
	Interval time.Duration
	// Threshold is how many bytes must be reclaimable (garbage not yet
	// collected, and free heap pages still resident) before a quiet
	// process gives them back.
	Threshold uint64
}

// Defaults of Options: a quiet process gives back 16 MiB or more within
// 20 seconds of its last collection.
const (
	DefaultInterval  = 10 * time.Second
	DefaultThreshold = 16 << 20
)

// samples are the runtime metrics Run reads, by index.
var samples = []string{
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/live:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
}

// Run looks at the process every interval until ctx ends; when no
// collection ran since the last look and the reclaimable memory is over
// the threshold, it collects and returns the free pages to the system
// (debug.FreeOSMemory), sync.Pools emptied. A busy process collects on its own and is left
// alone, so this costs nothing under load.
func Run(ctx context.Context, opts Options) {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Threshold == 0 {
		opts.Threshold = DefaultThreshold
	}
	s := make([]metrics.Sample, len(samples))
	for i, name := range samples {
		s[i].Name = name
	}
	t := time.NewTicker(opts.Interval)
	defer t.Stop()
	var lastCycles uint64
	kept := uint64(0) // the live heap after the last trim; 0 before one
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(s)
		cycles := s[0].Value.Uint64()
		if cycles == lastCycles && reclaimable(s, kept) >= opts.Threshold {
			// The first collection moves what sync.Pools hold (net/http's
			// connection buffers, say) to their victim caches; the second
			// frees it, and returns the free pages.
			runtime.GC()
			debug.FreeOSMemory()
			metrics.Read(s)
			cycles = s[0].Value.Uint64()
			kept = s[1].Value.Uint64()
		}
		lastCycles = cycles
	}
}

// reclaimable is what a trim may give back: the heap's objects beyond
// what is known to be live, plus its free pages still held. Known live is
// the smaller of the live heap at the last collection and after the last
// trim: a burst's last collection may have found all of the burst live
// (its requests still in flight), and then only the live heap of a quiet
// moment, the last trim's, tells its garbage apart.
func reclaimable(s []metrics.Sample, kept uint64) uint64 {
	live, objects, free := min(s[1].Value.Uint64(), kept), s[2].Value.Uint64(), s[3].Value.Uint64()
	garbage := uint64(0)
	if objects > live {
		garbage = objects - live
	}
	return garbage + free
}
