package plugintest

import (
	"testing"
	"time"
)

// pollInterval is how often Eventually asks again.
const pollInterval = 20 * time.Millisecond

// Eventually calls cond until it returns nil and fails t with cond's last
// error once timeout has passed: the one way the project's tests wait for
// something another process or goroutine does.
func Eventually(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	EventuallyEvery(t, timeout, pollInterval, cond)
}

// EventuallyEvery is Eventually asking every interval: a benchmark that
// measures how soon something happens polls more often than a test.
func EventuallyEvery(t testing.TB, timeout, interval time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still not so after %s: %v", timeout, err)
		}
		time.Sleep(interval)
	}
}
