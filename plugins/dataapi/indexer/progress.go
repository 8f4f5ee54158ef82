package indexer

import (
	"context"
	"time"
)

// progressInterval is how often a chain that is catching up logs its
// progress.
const progressInterval = 5 * time.Second

// rateWindow is how far back the rate of indexing is measured.
const rateWindow = 10 * time.Second

// sample is a chain's indexed height at a time.
type sample struct {
	at     time.Time
	height uint64
}

// rate measures how fast a chain is indexed, over the last rateWindow.
type rate struct {
	samples []sample
	last    float64
}

// observe records height at now and returns the blocks indexed per second
// lately and the time left to reach accepted at that rate (0 when caught
// up or when the rate is not known yet).
func (r *rate) observe(now time.Time, height, accepted uint64) (float64, time.Duration) {
	if n := len(r.samples); n > 0 && height < r.samples[n-1].height {
		r.samples, r.last = nil, 0 // rolled back: start over
	}
	r.samples = append(r.samples, sample{now, height})
	for len(r.samples) > 2 && now.Sub(r.samples[1].at) >= rateWindow {
		r.samples = r.samples[1:]
	}
	if first := r.samples[0]; now.Sub(first.at) >= time.Second {
		r.last = float64(height-first.height) / now.Sub(first.at).Seconds()
	}
	if height >= accepted || r.last <= 0 {
		return r.last, 0
	}
	return r.last, time.Duration(float64(accepted-height) / r.last * float64(time.Second))
}

// logProgress logs, every progressInterval until ctx ends, each chain that
// is behind its accepted height, with its rate and the time left, and
// once when it has caught up.
func (x *Indexer) logProgress(ctx context.Context) {
	behind := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(progressInterval):
		}
		for _, c := range x.Chains() {
			name := alias(c)
			if name == "" {
				name = c.Info.ID.String()
			}
			lag := c.Accepted - min(c.Accepted, c.Height)
			switch {
			case c.Indexed && lag > 0 && c.Rate > 0:
				behind[name] = true
				x.log.Info("catching up", "chain", name, "height", c.Height, "head", c.Accepted, "behind", lag,
					"blocks_per_second", int64(c.Rate), "eta", c.ETA.Round(time.Second).String())
			case lag == 0 && behind[name]:
				delete(behind, name)
				x.log.Info("caught up", "chain", name, "height", c.Height)
			}
		}
	}
}

// externalStatus is an external chain's state in the health details: "ok"
// while its upstream answers and it is indexed, "lagging" while the
// upstream fails (the last error is beside it) or before it first
// answered.
func externalStatus(c Chain) string {
	if c.Err != nil || !c.Info.Running {
		return "lagging"
	}
	return "ok"
}
