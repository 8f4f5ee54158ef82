package sdk

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestWatchParent(t *testing.T) {
	tests := []struct {
		name         string
		changeAfter  int32 // getppid returns another pid from this call on; 0 never
		wantOrphaned bool
	}{
		{name: "parent dies", changeAfter: 3, wantOrphaned: true},
		{name: "parent stays", changeAfter: 0, wantOrphaned: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls, orphaned atomic.Int32
			getppid := func() int {
				if n := calls.Add(1); tt.changeAfter > 0 && n >= tt.changeAfter {
					return 1
				}
				return 4242
			}
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				watchParent(ctx, 5*time.Millisecond, 4242, getppid, func() { orphaned.Add(1) })
			}()
			<-done
			if got := orphaned.Load(); got != map[bool]int32{true: 1, false: 0}[tt.wantOrphaned] {
				t.Errorf("orphaned called %d times, want orphaned=%v", got, tt.wantOrphaned)
			}
			if tt.wantOrphaned && ctx.Err() != nil {
				t.Error("watchParent returned only at the deadline, not when the parent changed")
			}
			if !tt.wantOrphaned && calls.Load() < 2 {
				t.Errorf("getppid called %d times in 300ms at a 5ms interval", calls.Load())
			}
		})
	}
}
