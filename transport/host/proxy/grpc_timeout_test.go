package proxy

import (
	"errors"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/chainhost/chainhost/transport/httpwire"
)

// TestHTTPTimeout: a plugin handler that never answers is answered for
// with 504 wrapping httpwire.ErrPluginTimeout once Options.Timeout passes,
// over a channel and over calls of their own; the handler's context is
// cancelled, and many such requests leave no goroutine behind.
func TestHTTPTimeout(t *testing.T) {
	for _, noChannel := range []bool{false, true} {
		name := "channel"
		if noChannel {
			name = "call"
		}
		t.Run(name, func(t *testing.T) {
			cancelled := make(chan struct{}, 64)
			hang := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				<-r.Context().Done()
				cancelled <- struct{}{}
			})
			e := newEnv(t, envOptions{
				handlers:  map[string]http.Handler{"hang": hang, "echo": echoHandler()},
				host:      Options{Timeout: 100 * time.Millisecond},
				noChannel: noChannel,
			})
			get := func(path string) int {
				t.Helper()
				resp, err := e.front.Client().Get(e.url(path))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if got := get("/ext/echo/"); got != http.StatusOK {
				t.Fatalf("echo = %d", got)
			}
			base := runtime.NumGoroutine()
			const n = 20
			for range n {
				if got := get("/ext/hang/"); got != http.StatusGatewayTimeout {
					t.Fatalf("hung handler = %d, want 504; logs:\n%s", got, e.logs.String())
				}
				rec, _ := e.lastError()
				if !errors.Is(rec.err, httpwire.ErrPluginTimeout) || rec.err.Error() != "plugin did not answer in time: handler hang: no answer within 100ms" {
					t.Fatalf("OnError got %d %v", rec.status, rec.err)
				}
			}
			for i := range n {
				select {
				case <-cancelled:
				case <-time.After(10 * time.Second):
					t.Fatalf("%d of %d hung handlers saw their context cancelled", i, n)
				}
			}
			// The plugin still answers, and the goroutines of the hung
			// requests are gone.
			if got := get("/ext/echo/"); got != http.StatusOK {
				t.Fatalf("echo after the timeouts = %d", got)
			}
			deadline := time.Now().Add(10 * time.Second)
			for runtime.NumGoroutine() > base+5 {
				if time.Now().After(deadline) {
					t.Fatalf("%d goroutines, %d before the hung requests", runtime.NumGoroutine(), base)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
