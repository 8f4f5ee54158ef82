package index

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// collect subscribes from start until it has want containers, checking
// they are exactly the entries start, start+1, ... It may run on any
// goroutine.
func collect(ix *Index, start, want uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	next := start
	err := ix.Subscribe(ctx, start, func(c Container) error {
		if err := mismatch(c, next); err != nil {
			return err
		}
		next++
		if next == start+want {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		return fmt.Errorf("subscription ended with %v", err)
	}
	if next != start+want {
		return fmt.Errorf("subscription ended at %d, want %d", next, start+want)
	}
	return nil
}

func TestSubscribeCatchUpThenLive(t *testing.T) {
	db, _ := openDB(t)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	const stored, live = 300, 500 // stored spans more than one page
	mustAccept(t, ix, 0, stored)

	starts := []uint64{0, 1, 255, 256, stored, stored + 17, stored + live - 1}
	var wg sync.WaitGroup
	errs := make([]error, len(starts))
	for i, start := range starts {
		wg.Go(func() { errs[i] = collect(ix, start, stored+live-start) })
	}
	// Append while the subscribers catch up: single appends and batches.
	for k := uint64(stored); k < stored+live; {
		if k%3 == 0 && k+4 <= stored+live {
			if _, err := ix.AcceptMany([]Entry{entry(k), entry(k + 1), entry(k + 2), entry(k + 3)}, nil); err != nil {
				t.Fatalf("AcceptMany at %d: %v", k, err)
			}
			k += 4
			continue
		}
		mustAccept(t, ix, k, k+1)
		k++
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("subscriber from %d: %v", starts[i], err)
		}
	}
}

func TestSubscribeEnds(t *testing.T) {
	db, _ := openDB(t)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	mustAccept(t, ix, 0, 3)
	stop := errors.New("stop here")

	tests := []struct {
		name    string
		timeout time.Duration
		fn      func(Container) error
		wantErr error
		wantN   int
	}{
		{"callback error", time.Minute, func(c Container) error {
			if c.Index == 1 {
				return stop
			}
			return nil
		}, stop, 2},
		{"context ends while waiting", 50 * time.Millisecond, func(Container) error { return nil }, context.DeadlineExceeded, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			n := 0
			err := ix.Subscribe(ctx, 0, func(c Container) error { n++; return tc.fn(c) })
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Subscribe error = %v, want %v", err, tc.wantErr)
			}
			if n != tc.wantN {
				t.Fatalf("callback ran %d times, want %d", n, tc.wantN)
			}
		})
	}
}

func TestSubscribeFromPastTheEnd(t *testing.T) {
	db, _ := openDB(t)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	done := make(chan error, 1)
	go func() { done <- collect(ix, 3, 2) }()
	mustAccept(t, ix, 0, 5)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestSubscribePositions(t *testing.T) {
	db, _ := openDB(t)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	mustAccept(t, ix, 0, 300)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	next := uint64(5)
	go func() {
		done <- ix.SubscribePositions(ctx, next, func(p uint64) error {
			if p != next {
				return fmt.Errorf("position %d, want %d", p, next)
			}
			if next++; next == 310 {
				cancel()
			}
			return nil
		})
	}()
	mustAccept(t, ix, 300, 310) // live, after the stored ones
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("SubscribePositions ended with %v at %d", err, next)
	}
}
