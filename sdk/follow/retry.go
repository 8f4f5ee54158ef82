package follow

import (
	"context"
	"math/rand/v2"
	"time"
)

// Defaults of Retry.
const (
	DefaultRetryMin = 500 * time.Millisecond
	DefaultRetryMax = 30 * time.Second
)

// Retry runs a reading again after it fails, as while the chain restarts.
type Retry struct {
	// Min and Max bound the pause before the next run: it doubles from
	// Min to Max, and is Min again after a run that lasted longer than
	// Max; 0: DefaultRetryMin and DefaultRetryMax. Each pause is drawn
	// between half of it and all of it, so that followers that failed
	// together (an upstream that went away) do not come back in step.
	Min, Max time.Duration
	// Wake, when not nil, cuts a pause short (the chain started again).
	Wake <-chan struct{}
}

// Run runs run until ctx ends or run returns nil (it is done), again
// after each failure; failed, when not nil, is told each failure and the
// pause before the next run.
func (r Retry) Run(ctx context.Context, run func(context.Context) error, failed func(err error, pause time.Duration)) {
	lo, hi := r.Min, r.Max
	if lo <= 0 {
		lo = DefaultRetryMin
	}
	if hi <= 0 {
		hi = DefaultRetryMax
	}
	pause := lo
	for ctx.Err() == nil {
		started := time.Now()
		err := run(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		if time.Since(started) > hi {
			pause = lo
		}
		wait := pause/2 + rand.N(pause/2+1)
		if failed != nil {
			failed(err, wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-r.Wake:
		case <-time.After(wait):
		}
		pause = min(2*pause, hi)
	}
}
