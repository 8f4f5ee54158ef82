package plugintest_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/plugintest"
)

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	plugintest.Eventually(t, time.Minute, func() error {
		if calls++; calls < 3 {
			return fmt.Errorf("call %d", calls)
		}
		return nil
	})
	if calls != 3 {
		t.Fatalf("cond called %d times, want 3", calls)
	}
}

func TestEventuallyFailsWithTheLastError(t *testing.T) {
	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() { // Fatalf ends the goroutine it runs on, as in a test
		defer close(done)
		plugintest.Eventually(rec, 50*time.Millisecond, func() error { return errors.New("height 3, want 5") })
	}()
	<-done
	if !strings.Contains(rec.msg, "height 3, want 5") || !strings.Contains(rec.msg, "50ms") {
		t.Fatalf("failure message %q lacks the last error or the timeout", rec.msg)
	}
}

// fatalRecorder keeps the message of Fatalf instead of failing the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
