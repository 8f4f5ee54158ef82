package logging

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/internal/syncbuf"
)

// TestLimited: a burst passes, the lines beyond it are dropped, the limit
// is shared by sub-loggers and the standard writer, and the drops are
// counted in one line at once and then at most once a second.
func TestLimited(t *testing.T) {
	out := &syncbuf.Buffer{}
	base := hclog.New(&hclog.LoggerOptions{Output: out, Level: hclog.Trace, DisableTime: true})
	l := Limited(base, LineLimit{PerSecond: 10, Burst: 3})
	clock := time.Unix(1_700_000_000, 0)
	l.(*limited).lim.now = func() time.Time { return clock }

	sub := l.Named("sub").With("k", "v")
	w := l.StandardWriter(&hclog.StandardLoggerOptions{ForceLevel: hclog.Info})
	l.Info("one")
	sub.Debug("two")
	_, _ = w.Write([]byte("three\n"))
	for range 100 {
		l.Error("flood")
		sub.Trace("flood")
		if n, err := w.Write([]byte("flood\n")); n != 6 || err != nil {
			t.Fatalf("a dropped write = %d, %v; want its length and no error", n, err)
		}
	}
	clock = clock.Add(time.Second / 2) // 5 lines' worth, of which a burst is kept, within the second
	for _, msg := range []string{"four", "five", "six", "over", "over", "over"} {
		l.Warn(msg)
	}
	clock = clock.Add(time.Second / 2) // the second is over
	l.Warn("nine")
	clock = clock.Add(time.Second)      // a full bucket, 3 lines of up to 1 KiB
	l.Info(strings.Repeat("z", 2*1024)) // costs 3
	l.Info("ten")                       // over the limit: the long line took it all

	want := []string{
		"[INFO]  one",
		"[DEBUG] sub: two: k=v",
		"[INFO]  three",
		"[WARN]  log lines dropped over the limit: dropped=1 lines_per_second=10 burst=3",
		"[WARN]  four",
		"[WARN]  five",
		"[WARN]  six",
		"[WARN]  log lines dropped over the limit: dropped=302 lines_per_second=10 burst=3",
		"[WARN]  nine",
		"[INFO]  " + strings.Repeat("z", 2*1024),
		"[WARN]  log lines dropped over the limit: dropped=1 lines_per_second=10 burst=3",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("logged:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
