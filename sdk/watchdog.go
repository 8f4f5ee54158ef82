package sdk

import (
	"context"
	"time"
)

// watchInterval is how often the watchdog looks at the parent process.
const watchInterval = 200 * time.Millisecond

// watchParent calls orphaned once, and returns, when getppid stops returning
// parent: the host died and the plugin was re-parented. It returns without
// calling orphaned when ctx ends.
//
// Plugins must never outlive the host. On Linux the host also starts each
// plugin with a parent-death signal (SysProcAttr.Pdeathsig), which kills it
// at once; this watchdog covers the other systems and the cases the signal
// misses (it fires when the forking thread, not the process, exits).
func watchParent(ctx context.Context, interval time.Duration, parent int, getppid func() int, orphaned func()) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if getppid() != parent {
				orphaned()
				return
			}
		}
	}
}
