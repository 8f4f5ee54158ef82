package memtrim

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// sink keeps the burst's allocations from being optimised away.
var sink [][]byte

// TestRunGivesBack: after a burst of garbage, a quiet process collects it
// and gives the pages back within a few intervals.
func TestRunGivesBack(t *testing.T) {
	free := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(free)
	before := free[0].Value.Uint64()
	// A burst: 64 MiB allocated, then dropped.
	for range 64 {
		sink = append(sink, make([]byte, 1<<20))
	}
	sink = nil
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Options{Interval: 20 * time.Millisecond, Threshold: 16 << 20})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		metrics.Read(free)
		if free[0].Value.Uint64() >= before+32<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("released %d bytes more than before the burst, want at least 32 MiB", free[0].Value.Uint64()-before)
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}
