package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// ixCrashRounds is how many times the crash tests kill a process
// (docs/index.md, "Crash safety").
const ixCrashRounds = 24

// ixPutters makes blocks from several goroutines until stopped, keeping
// the acknowledged puts. Failed puts (the host or plugin is down) are
// retried with new keys after a short pause.
type ixPutters struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	acks []putAck
	errs int
}

// startPutters starts workers goroutines putting to the example chain of
// the node current returns; keys start with prefix.
func startPutters(current func() *nodetest.Node, prefix string, workers int) *ixPutters {
	ctx, cancel := context.WithCancel(context.Background())
	p := &ixPutters{cancel: cancel}
	for w := range workers {
		p.wg.Go(func() {
			for k := 0; ctx.Err() == nil; k++ {
				key := fmt.Sprintf("%s-%d-%d", prefix, w, k)
				a, err := putExampleBlock(ctx, current(), "example", key, "v-"+key)
				p.mu.Lock()
				if err != nil {
					p.errs++
				} else {
					p.acks = append(p.acks, a)
				}
				p.mu.Unlock()
				if err != nil {
					select {
					case <-ctx.Done():
					case <-time.After(5 * time.Millisecond):
					}
				}
			}
		})
	}
	return p
}

// stop stops the workers and returns the acknowledged puts and the number
// of failed ones.
func (p *ixPutters) stop() ([]putAck, int) {
	p.cancel()
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.acks), p.errs
}

// TestIndexCrashHost: the host is SIGKILLed at random moments while three
// clients put blocks, and restarted on the same data dir, ixCrashRounds
// times; some kills land during start-up. Afterwards the index is
// contiguous from 0, has no duplicate ID, equals the VM's accepted history
// block for block, and holds every acknowledged put.
func TestIndexCrashHost(t *testing.T) {
	t.Parallel()
	rng := crashSeed(t)
	opts := nodetest.Options{DataDir: t.TempDir(), Config: ixOneChain}
	var acks []putAck
	failed := 0
	for round := range ixCrashRounds {
		if round%4 == 3 {
			// Killed while starting: opening the database, starting the
			// plugin, backfilling or just listening.
			o := opts
			o.NoWait = true
			n := nodetest.Start(t, o)
			time.Sleep(time.Duration(rng.IntN(250)) * time.Millisecond)
			n.Kill()
			continue
		}
		n := nodetest.Start(t, opts)
		p := startPutters(func() *nodetest.Node { return n }, fmt.Sprintf("h%d", round), 3)
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		n.Kill()
		a, errs := p.stop()
		acks = append(acks, a...)
		failed += errs
	}
	n := nodetest.Start(t, opts)
	got := walkIndexRange(t, n, "/ext/index/example/block", 1024)
	t.Logf("%d rounds: %d puts acknowledged, %d failed; the index holds %d containers", ixCrashRounds, len(acks), failed, len(got))
	if len(acks) == 0 {
		t.Fatal("no put was acknowledged: the test proved nothing")
	}
	checkIndexMatchesVM(t, n, "example", got)
	checkPutsIndexed(t, n, got, acks, true)
	// Indexing still works after all that.
	a, err := putExampleBlock(context.Background(), n, "example", "after", "x")
	if err != nil || a.Index != uint64(len(got)) {
		t.Fatalf("put after the crashes: %+v, %v; want index %d", a, err, len(got))
	}
}

// TestIndexCrashPlugin: the VM's plugin process is SIGKILLed at random
// moments while clients put blocks, ixCrashRounds times; the host restarts
// it each time. Afterwards the index equals the VM's history as in
// TestIndexCrashHost.
func TestIndexCrashPlugin(t *testing.T) {
	t.Parallel()
	rng := crashSeed(t)
	n := nodetest.Start(t, nodetest.Options{Config: ixOneChain,
		Args: []string{"--plugin-restart-backoff=5ms", "--plugin-restart-max-backoff=20ms"}})
	p := startPutters(func() *nodetest.Node { return n }, "p", 3)
	old := 0
	for round := range ixCrashRounds {
		pid := n.WaitNewPlugin(t, "example", old)
		// Some kills land at once: while the host initializes the new
		// process or backfills its index.
		if round%4 != 3 {
			time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("round %d: kill plugin %d: %v", round, pid, err)
		}
		old = pid
	}
	n.WaitNewPlugin(t, "example", old)
	waitChainHealthy(t, n, "example")
	// Let the putters see the last restart through.
	time.Sleep(200 * time.Millisecond)
	acks, failed := p.stop()
	// A put sent before the stop may still be accepted after it: read the
	// index again until the VM has no block beyond it.
	var got []indexedContainer
	plugintest.Eventually(t, 30*time.Second, func() error {
		got = walkIndexRange(t, n, "/ext/index/example/block", 1024)
		if _, err := ixVMBlock(context.Background(), n, "example", uint64(len(got))); err == nil {
			return fmt.Errorf("the VM has a block at height %d, the index ends before it", len(got))
		}
		return nil
	})
	t.Logf("%d plugin kills: %d puts acknowledged, %d failed; the index holds %d containers", ixCrashRounds, len(acks), failed, len(got))
	if len(acks) == 0 {
		t.Fatal("no put was acknowledged: the test proved nothing")
	}
	checkIndexMatchesVM(t, n, "example", got)
	checkPutsIndexed(t, n, got, acks, true)
}

// waitChainHealthy waits until /ext/health reports the chain healthy: its
// plugin started, initialized and backfilled, so it answers.
func waitChainHealthy(t *testing.T, n *nodetest.Node, alias string) {
	t.Helper()
	plugintest.Eventually(t, 60*time.Second, func() error {
		var h struct {
			Checks map[string]struct {
				Healthy bool `json:"healthy"`
			} `json:"checks"`
		}
		status, body := restGet(t, context.Background(), n.URL+"/ext/health")
		if json.Unmarshal(body, &h) == nil && h.Checks["chain/"+alias].Healthy {
			return nil
		}
		return fmt.Errorf("chain %s not healthy: %d %s", alias, status, body)
	})
}
