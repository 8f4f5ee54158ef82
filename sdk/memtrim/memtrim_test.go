package memtrim_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/memtrim"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// sink keeps the burst's allocations from being optimised away.
var sink [][]byte

// TestRunGivesBack: after a burst of garbage, a quiet process collects it
// and gives the pages back within a few intervals, even when the burst's
// last collection found all of it live; after that, with nothing more to
// give back, it is left alone.
func TestRunGivesBack(t *testing.T) {
	// A burst: 64 MiB allocated, collected while all of it is live, then
	// dropped.
	for range 64 {
		sink = append(sink, make([]byte, 1<<20))
	}
	runtime.GC()
	// Released memory is counted from the burst's end: the burst may have
	// taken its pages from the heap's own released pages (a fresh arena's
	// are), so the count before it says nothing.
	s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	sink = nil
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const interval = 20 * time.Millisecond
	go memtrim.Run(ctx, memtrim.Options{Interval: interval, Threshold: 16 << 20})
	plugintest.Eventually(t, 10*time.Second, func() error {
		metrics.Read(s)
		if got := s[0].Value.Uint64(); got < before+32<<20 {
			return fmt.Errorf("released %d bytes more than at the burst's end, want at least 32 MiB", int64(got)-int64(before))
		}
		return nil
	})
	// The trim is over once a quiet interval has passed since it.
	time.Sleep(3 * interval)
	metrics.Read(s)
	cycles := s[1].Value.Uint64()
	time.Sleep(25 * interval)
	metrics.Read(s)
	if more := s[1].Value.Uint64() - cycles; more > 0 {
		t.Errorf("%d collections in 25 quiet intervals after the trim, want none", more)
	}
}
