package memtrim_test

import (
	"context"
	"fmt"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/memtrim"
	"github.com/chainhost/chainhost/sdk/plugintest"
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
		memtrim.Run(ctx, memtrim.Options{Interval: 20 * time.Millisecond, Threshold: 16 << 20})
	}()
	plugintest.Eventually(t, 10*time.Second, func() error {
		metrics.Read(free)
		if got := free[0].Value.Uint64(); got < before+32<<20 {
			return fmt.Errorf("released %d bytes more than before the burst, want at least 32 MiB", got-before)
		}
		return nil
	})
	cancel()
	<-done
}
