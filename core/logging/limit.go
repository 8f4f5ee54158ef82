package logging

import (
	"io"
	"log"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/time/rate"
)

// LineLimit bounds how many lines a logger writes: PerSecond on average,
// Burst at once, a line of more than 1 KiB counting as one per KiB.
type LineLimit struct {
	PerSecond float64
	Burst     int
}

// PluginLines returns the limit of what one plugin process logs through
// the host: its log lines and its stray stdout and stderr writes together,
// 500 a second in bursts of 5,000. A plugin whose log runs away can then
// neither fill the disk and the terminal at the speed it writes nor take
// the host's CPU to format it (docs/bad-input.md).
func PluginLines() LineLimit { return LineLimit{PerSecond: 500, Burst: 5000} }

// Limited returns a logger that writes through l (and sub-loggers that
// share its limit) while the limit allows, and drops the lines beyond it.
// l itself says, at WARN and at most once a second, how many lines it
// dropped.
func Limited(l hclog.Logger, limit LineLimit) hclog.Logger {
	return &limited{Logger: l, lim: &lineLimit{
		bucket: rate.NewLimiter(rate.Limit(limit.PerSecond), limit.Burst),
		limit:  limit,
		out:    l,
		now:    time.Now,
	}}
}

// reportEvery is the least time between two lines that report drops, so
// that the reports of a sustained flood do not make a flood of their own.
const reportEvery = time.Second

// lineLimit is the token bucket shared by a limited logger and the loggers
// derived from it.
type lineLimit struct {
	bucket *rate.Limiter
	limit  LineLimit
	out    hclog.Logger // where the drops are reported
	now    func() time.Time

	mu         sync.Mutex
	dropped    int64     // lines dropped since the last report
	lastReport time.Time // when drops were last reported
}

// lineCost is the text a line may hold for the price of one: a longer
// line counts as one per lineCost started, so that the limit bounds bytes
// too.
const lineCost = 1024

// allow reports whether a line of n bytes may be written. At most once per
// reportEvery, at the first line written or dropped after it passed, it
// says how many lines were dropped since it last said so.
func (l *lineLimit) allow(n int) bool {
	now := l.now()
	ok := l.bucket.AllowN(now, 1+n/lineCost)
	l.mu.Lock()
	if !ok {
		l.dropped++
	}
	dropped := l.dropped
	report := dropped > 0 && now.Sub(l.lastReport) >= reportEvery
	if report {
		l.dropped, l.lastReport = 0, now
	}
	l.mu.Unlock()
	if report {
		l.out.Warn("log lines dropped over the limit", "dropped", dropped, "lines_per_second", l.limit.PerSecond, "burst", l.limit.Burst)
	}
	return ok
}

// limited is the hclog.Logger of Limited.
type limited struct {
	hclog.Logger
	lim *lineLimit
}

var _ hclog.Logger = (*limited)(nil)

// Log writes the line if the limit allows.
func (l *limited) Log(level hclog.Level, msg string, args ...any) {
	if l.lim.allow(len(msg)) {
		l.Logger.Log(level, msg, args...)
	}
}

// Trace logs at TRACE within the limit.
func (l *limited) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }

// Debug logs at DEBUG within the limit.
func (l *limited) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }

// Info logs at INFO within the limit.
func (l *limited) Info(msg string, args ...any) { l.Log(hclog.Info, msg, args...) }

// Warn logs at WARN within the limit.
func (l *limited) Warn(msg string, args ...any) { l.Log(hclog.Warn, msg, args...) }

// Error logs at ERROR within the limit.
func (l *limited) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

// With returns a sub-logger that shares the limit.
func (l *limited) With(args ...any) hclog.Logger {
	return &limited{Logger: l.Logger.With(args...), lim: l.lim}
}

// Named returns a sub-logger that shares the limit.
func (l *limited) Named(name string) hclog.Logger {
	return &limited{Logger: l.Logger.Named(name), lim: l.lim}
}

// ResetNamed returns a sub-logger that shares the limit.
func (l *limited) ResetNamed(name string) hclog.Logger {
	return &limited{Logger: l.Logger.ResetNamed(name), lim: l.lim}
}

// StandardLogger returns a standard library logger within the limit.
func (l *limited) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

// StandardWriter returns a writer whose writes, each a line, are logged
// within the limit.
func (l *limited) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	return limitedWriter{w: l.Logger.StandardWriter(opts), lim: l.lim}
}

// limitedWriter drops the writes over its limit.
type limitedWriter struct {
	w   io.Writer
	lim *lineLimit
}

// Write writes p if the limit allows; a dropped write reports success, as
// the writer of stray output expects nothing else.
func (w limitedWriter) Write(p []byte) (int, error) {
	if !w.lim.allow(len(p)) {
		return len(p), nil
	}
	return w.w.Write(p)
}
