package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/testchain"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// xfChain is the upstream's history in the fault tests: long enough, read
// a few blocks at a time (xfLimits), for faults to land mid-catch-up.
var xfChain = testchain.Options{Txs: 3000, TxsPerBlock: 10, Mix: testchain.Varied}

// xfLimits makes the indexer read the upstream a few blocks a request.
const xfLimits = "          blocks-per-request: 3\n          requests-in-flight: 2\n"

// xfState finds the state of each log entry of a failing upstream (the
// logger writes an entry's keys in any order, some on lines of their own).
var xfState = regexp.MustCompile(`(?s)the upstream of an external chain fails:.*?state=([a-z-]+)`)

// faultProxy stands between an indexing node and its upstream: it
// forwards requests, or answers as a failing node would.
type faultProxy struct {
	srv *httptest.Server

	mu     sync.Mutex
	target *url.URL
	mode   string // "": forward; "429", "500", "garbage", "foreign-receipt"
}

// The modes of a faultProxy.
const (
	xfForward  = ""
	xfTooMany  = "429"
	xfInternal = "500"
	xfGarbage  = "garbage"
)

// newFaultProxy starts a proxy to the JSON-RPC URL target.
func newFaultProxy(t *testing.T, target string) *faultProxy {
	p := &faultProxy{}
	p.setTarget(t, target)
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

// URL is the proxy's JSON-RPC URL.
func (p *faultProxy) URL() string { return p.srv.URL + "/rpc" }

// setTarget points the proxy at a new upstream URL (a restarted node).
func (p *faultProxy) setTarget(t *testing.T, target string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.target = u
	p.mu.Unlock()
}

// setMode makes the proxy answer as mode says.
func (p *faultProxy) setMode(mode string) {
	p.mu.Lock()
	p.mode = mode
	p.mu.Unlock()
}

func (p *faultProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	mode, target := p.mode, p.target
	p.mu.Unlock()
	switch mode {
	case xfTooMany:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case xfInternal:
		http.Error(w, "upstream broke", http.StatusInternalServerError)
	case xfGarbage:
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"jsonrpc":"2.0","id":1,"result":{"number":"not a number","transactions":7}}`))
	default:
		rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.URL.Path = target.Path
		}}
		rp.ServeHTTP(w, r)
	}
}

// xfSetup generates the chain, starts its upstream and records what an
// uninterrupted index of it serves.
func xfSetup(t *testing.T) (chain *testchain.Chain, up *nodetest.Node, want []byte) {
	t.Helper()
	chain, err := testchain.Generate(t.TempDir(), xfChain)
	if err != nil {
		t.Fatal(err)
	}
	up = nodetest.Start(t, nodetest.Options{Config: xcUpstreamConfig(t, chain.File), Args: xcUpstreamArgs})
	plain := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, up.URL+"/ext/bc/C/rpc", "pebble", "")})
	xcWaitSame(t, plain, up.URL+"/ext/bc/C/rpc", xcName)
	want = dcDump(t, plain.URL, chain)
	plain.Stop(t)
	return chain, up, want
}

// xfWaitState waits until the data module's health shows the external
// chain lagging, its upstream in state want, with the error.
func xfWaitState(t *testing.T, n *nodetest.Node, want string) {
	t.Helper()
	plugintest.Eventually(t, time.Minute, func() error {
		h := dcModuleHealth(t, n).Details.Chains[xcName]
		if h["status"] != "lagging" || h["upstream"] != want || h["error"] == nil {
			return fmt.Errorf("health of %s: %v, want lagging, upstream %q, with the error", xcName, h, want)
		}
		return nil
	})
}

// TestDataAPIExternalFaults: an upstream that goes away mid-catch-up and
// comes back, that answers 429 then 500 for a while, that answers garbage,
// and a module SIGKILLed again and again while it catches up: every run
// ends with answers byte for byte those of an uninterrupted index, and
// the failing upstream is reported in health (lagging, with the error) and
// logged once per change of its state, not per attempt.
func TestDataAPIExternalFaults(t *testing.T) {
	t.Parallel()
	chain, up, want := xfSetup(t)
	half := chain.Head / 2

	t.Run("429 then 500", func(t *testing.T) {
		p := newFaultProxy(t, up.URL+"/ext/bc/C/rpc")
		n := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, p.URL(), "pebble", xfLimits)})
		dcWaitIndexed(t, n, half)
		p.setMode(xfTooMany)
		xfWaitState(t, n, evmremote.StateRateLimited)
		p.setMode(xfInternal)
		xfWaitState(t, n, evmremote.StateHTTPError)
		p.setMode(xfForward)
		xcWaitSame(t, n, p.URL(), xcName)
		xcSameDump(t, dcDump(t, n.URL, chain), want)
		// Each state logged once, however many attempts it took: no two
		// lines in a row name the same state.
		var states []string
		for _, m := range xfState.FindAllStringSubmatch(n.Output(), -1) {
			states = append(states, m[1])
		}
		if !slices.Contains(states, evmremote.StateRateLimited) || !slices.Contains(states, evmremote.StateHTTPError) {
			t.Errorf("the failing upstream's log lines name the states %v, want %s and %s among them", states, evmremote.StateRateLimited, evmremote.StateHTTPError)
		}
		for i := 1; i < len(states); i++ {
			if states[i] == states[i-1] {
				t.Errorf("the failing upstream was logged twice in a row in the same state: %v", states)
			}
		}
		if !strings.Contains(n.Output(), "the upstream of an external chain answers again") {
			t.Error("no log line says the upstream answers again")
		}
	})

	t.Run("garbage", func(t *testing.T) {
		p := newFaultProxy(t, up.URL+"/ext/bc/C/rpc")
		n := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, p.URL(), "pebble", xfLimits)})
		dcWaitIndexed(t, n, half)
		p.setMode(xfGarbage)
		xfWaitState(t, n, evmremote.StateMalformed)
		p.setMode(xfForward)
		xcWaitSame(t, n, p.URL(), xcName)
		xcSameDump(t, dcDump(t, n.URL, chain), want)
	})

	t.Run("module killed", func(t *testing.T) {
		rng := crashSeed(t)
		n := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, up.URL+"/ext/bc/C/rpc", "pebble", xfLimits),
			Args: []string{"--plugin-restart-backoff=5ms", "--plugin-restart-max-backoff=20ms"}})
		old, during := 0, 0
		for _, target := range dcTargets(rng, chain.Head) {
			pid := n.WaitNewPlugin(t, "dataapi", old)
			dcWaitIndexed(t, n, target)
			if !dcIndexed(n, chain.Head) {
				during++
			}
			dcKillPID(t, pid)
			old = pid
		}
		n.WaitNewPlugin(t, "dataapi", old)
		if during < dcKills {
			t.Errorf("only %d of %d kills landed while the module caught up", during, dcKills)
		}
		xcWaitSame(t, n, up.URL+"/ext/bc/C/rpc", xcName)
		xcSameDump(t, dcDump(t, n.URL, chain), want)
	})
	// Last: the upstream started again here stops with this subtest.
	t.Run("upstream restarts", func(t *testing.T) {
		p := newFaultProxy(t, up.URL+"/ext/bc/C/rpc")
		n := nodetest.Start(t, nodetest.Options{Config: xcIndexerConfig(t, p.URL(), "pebble", xfLimits)})
		dcWaitIndexed(t, n, half)
		dcKillNode(t, up)
		xfWaitState(t, n, evmremote.StateHTTPError) // the proxy answers 502
		up = nodetest.Start(t, up.Opts)
		p.setTarget(t, up.URL+"/ext/bc/C/rpc")
		xcWaitSame(t, n, p.URL(), xcName)
		xcSameDump(t, dcDump(t, n.URL, chain), want)
	})
}
