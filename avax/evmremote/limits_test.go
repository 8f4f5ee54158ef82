package evmremote_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// chainIDServer answers eth_chainId once release is closed, counting the
// requests under way at once.
func chainIDServer(t *testing.T, release <-chan struct{}) (url string, most *atomic.Int64) {
	var now atomic.Int64
	most = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := now.Add(1)
		defer now.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		_, _ = io.ReadAll(r.Body)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x539"}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, most
}

// TestInFlight: the node never has more than InFlight requests of a client
// at once, and has that many when more are asked.
func TestInFlight(t *testing.T) {
	release := make(chan struct{})
	url, most := chainIDServer(t, release)
	c, err := evmremote.Dial(context.Background(), evmremote.Options{URL: url, InFlight: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			if _, err := c.ChainID(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	plugintest.Eventually(t, 30*time.Second, func() error {
		if m := most.Load(); m < 3 {
			return fmt.Errorf("%d requests at once", m)
		}
		return nil
	})
	close(release)
	wg.Wait()
	if m := most.Load(); m != 3 {
		t.Fatalf("%d requests at once, want InFlight's 3", m)
	}
}

// TestRequestsPerSecond: requests start no faster than RequestsPerSecond.
func TestRequestsPerSecond(t *testing.T) {
	release := make(chan struct{})
	close(release)
	url, _ := chainIDServer(t, release)
	c, err := evmremote.Dial(context.Background(), evmremote.Options{URL: url, InFlight: 4, RequestsPerSecond: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	for range 11 {
		if _, err := c.ChainID(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 450*time.Millisecond {
		t.Fatalf("11 requests at 20 a second took %s, want at least 0.5s", took)
	}
}

// TestDialRefusesBadURL: a URL that is not http(s) is refused at once.
func TestDialRefusesBadURL(t *testing.T) {
	for _, u := range []string{"", "ws://host:1", "localhost:9650", "http://"} {
		if c, err := evmremote.Dial(context.Background(), evmremote.Options{URL: u}); err == nil {
			c.Close()
			t.Errorf("Dial(%q) succeeded, want an error", u)
		}
	}
}
