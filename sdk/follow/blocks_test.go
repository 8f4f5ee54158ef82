package follow_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/follow"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/internal/memhost"
)

var chain = host.ChainInfo{ID: ids.ID{7}, Aliases: []string{"c"}, IndexKinds: []string{"block"}}

// appendN appends n blocks to the chain's index from position from.
func appendN(h *memhost.Host, from, n int) {
	for i := from; i < from+n; i++ {
		h.AppendContainer(chain.ID, "block", ids.ID{byte(i), byte(i >> 8), 1}, nil)
	}
}

// TestBlocksInOrder: positions stored and appended later are read in
// batches, several in flight, and handed over in order, once each; a
// short answer is followed by a read of the rest, an empty one asked
// again.
func TestBlocksInOrder(t *testing.T) {
	h := memhost.New(memhost.Options{Others: []host.ChainInfo{chain}})
	appendN(h, 0, 250)
	var mu sync.Mutex
	empty := map[uint64]bool{}
	read := func(_ context.Context, from uint64, count int) ([]uint64, error) {
		mu.Lock()
		defer mu.Unlock()
		if from%7 == 3 && !empty[from] { // not served yet, the first time
			empty[from] = true
			return nil, nil
		}
		out := []uint64{}
		for p := from; p < from+uint64(min(count, 9)); p++ { // at most 9: short answers
			out = append(out, p)
		}
		return out, nil
	}
	var accepted uint64
	b := follow.Blocks[uint64]{
		Index: h.Services().Index, Chain: "c", Kind: "block", Read: read, Batch: 20, InFlight: 3,
		Accepted: func(n uint64) { mu.Lock(); accepted = n; mu.Unlock() },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	next := uint64(5)
	go func() {
		time.Sleep(10 * time.Millisecond)
		appendN(h, 250, 50) // live
	}()
	err := b.Run(ctx, next, func(from uint64, items []uint64) error {
		if from != next {
			return fmt.Errorf("an answer from %d handed over, want %d", from, next)
		}
		for _, p := range items {
			if p != next {
				return fmt.Errorf("position %d handed over, want %d", p, next)
			}
			next++
		}
		if next == 300 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || next != 300 {
		t.Fatalf("Run ended with %v at %d, want canceled at 300", err, next)
	}
	mu.Lock()
	defer mu.Unlock()
	if accepted != 300 {
		t.Errorf("accepted %d, want 300", accepted)
	}
}

// TestBlocksFailures: a failed read, a chain that never serves a
// position, or use failing, end Run with the error.
func TestBlocksFailures(t *testing.T) {
	h := memhost.New(memhost.Options{Others: []host.ChainInfo{chain}})
	appendN(h, 0, 3)
	boom := errors.New("boom")
	for name, tc := range map[string]struct {
		read follow.Read[int]
		use  error
		want string
	}{
		"read fails":   {read: func(context.Context, uint64, int) ([]int, error) { return nil, boom }, want: "boom"},
		"never served": {read: func(context.Context, uint64, int) ([]int, error) { return nil, nil }, want: "answered nothing at position 0"},
		"use fails":    {read: func(_ context.Context, _ uint64, n int) ([]int, error) { return make([]int, n), nil }, use: boom, want: "boom"},
	} {
		t.Run(name, func(t *testing.T) {
			b := follow.Blocks[int]{Index: h.Services().Index, Chain: "c", Kind: "block", Read: tc.read}
			err := b.Run(context.Background(), 0, func(uint64, []int) error { return tc.use })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRetry: a failed run starts again after the pause (drawn between half
// the doubling bound and all of it), or at once when woken, and a run
// that returns nil is done.
func TestRetry(t *testing.T) {
	wake := make(chan struct{}, 1)
	runs := 0
	var pauses []time.Duration
	follow.Retry{Min: time.Hour, Max: 2 * time.Hour, Wake: wake}.Run(context.Background(), func(context.Context) error {
		if runs++; runs == 3 {
			return nil
		}
		return errors.New("down")
	}, func(_ error, pause time.Duration) {
		pauses = append(pauses, pause)
		wake <- struct{}{}
	})
	within := func(d, bound time.Duration) bool { return d >= bound/2 && d <= bound }
	if runs != 3 || len(pauses) != 2 || !within(pauses[0], time.Hour) || !within(pauses[1], 2*time.Hour) {
		t.Fatalf("runs %d, pauses %v", runs, pauses)
	}
}
