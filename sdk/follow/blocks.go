package follow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chainhost/chainhost/sdk/host"
)

// Read reads what a chain holds at positions of its index from from on, in
// order: at most count items, fewer when the chain answers part (the rest
// is asked for again), none when it does not serve the first yet (asked
// again shortly).
type Read[T any] func(ctx context.Context, from uint64, count int) ([]T, error)

// Defaults of Blocks.
const (
	DefaultBatch = 100
	PollInterval = time.Second
)

// emptyPauseMin, emptyPauseMax and emptyWait bound the wait for a chain to
// answer for a position the index already holds: a VM may serve a block a
// moment after the index feed shows it. The first retry comes after
// emptyPauseMin, the pause doubles up to emptyPauseMax, and the read gives
// up after about emptyWait.
const (
	emptyPauseMin = time.Millisecond
	emptyPauseMax = 20 * time.Millisecond
	emptyWait     = 2 * time.Second
)

// Blocks follows one chain's index and reads its positions with Read.
type Blocks[T any] struct {
	// Index is the host's index; Chain (an ID or alias) and Kind name the
	// index followed.
	Index       host.Index
	Chain, Kind string
	// Read reads the positions.
	Read Read[T]
	// Batch is the most positions one Read asks for; 0: DefaultBatch.
	Batch int
	// InFlight is how many Reads run at once; 0: 1.
	InFlight int
	// Poll, on a node that keeps no index (the feed answers
	// host.ErrNoIndex), is asked every PollInterval how many positions the
	// chain has accepted; nil: Run returns the feed's error.
	Poll func(ctx context.Context) (uint64, error)
	// Accepted, when not nil, is told how many positions are known
	// accepted, each time that grows.
	Accepted func(n uint64)
	// Feed, when not nil, replaces the host's index as the source of how
	// many positions there are: it calls raise with each new count until
	// ctx ends or it fails (a chain another node runs, followed by its
	// head; Index is then unused).
	Feed func(ctx context.Context, raise func(n uint64)) error
}

// job is one Read in flight.
type job[T any] struct {
	from  uint64
	count int
	done  chan struct{}
	items []T
	err   error
}

// Run reads the positions from next on, then live as the index grows, and
// hands each answer to use, in order, with the position of its first item.
// It returns when ctx ends (ctx's error) or at the first failure of the
// feed, a Read or use.
func (b Blocks[T]) Run(ctx context.Context, next uint64, use func(from uint64, items []T) error) error {
	batch, inFlight := b.Batch, max(b.InFlight, 1)
	if batch <= 0 {
		batch = DefaultBatch
	}
	// Every goroutine started here (the feed, the reads in flight) ends
	// before Run returns: cancel, then wait.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var accepted atomic.Uint64
	grown := make(chan struct{}, 1)
	raise := func(n uint64) {
		for cur := accepted.Load(); n > cur; cur = accepted.Load() {
			if accepted.CompareAndSwap(cur, n) {
				if b.Accepted != nil {
					b.Accepted(n)
				}
				select {
				case grown <- struct{}{}:
				default:
				}
				return
			}
		}
	}
	raise(next)
	feedErr := make(chan error, 1)
	wg.Go(func() { feedErr <- b.feed(ctx, next, raise) })

	start := func(from uint64, count int) *job[T] {
		j := &job[T]{from: from, count: count, done: make(chan struct{})}
		wg.Go(func() {
			defer close(j.done)
			for pause, waited := emptyPauseMin, time.Duration(0); ; pause = min(2*pause, emptyPauseMax) {
				j.items, j.err = b.Read(ctx, from, count)
				if j.err != nil || len(j.items) > 0 || waited >= emptyWait {
					return
				}
				select {
				case <-ctx.Done():
					j.err = ctx.Err()
					return
				case <-time.After(pause):
				}
				waited += pause
			}
		})
		return j
	}
	var inflight []*job[T]
	for {
		for len(inflight) < inFlight && next < accepted.Load() {
			count := int(min(uint64(batch), accepted.Load()-next))
			inflight = append(inflight, start(next, count))
			next += uint64(count)
		}
		var done <-chan struct{} // nil, never ready, while nothing is in flight
		if len(inflight) > 0 {
			done = inflight[0].done
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-feedErr:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err == nil {
				err = errors.New("it ended")
			}
			return fmt.Errorf("index feed: %w", err)
		case <-grown:
			continue
		case <-done:
		}
		j := inflight[0]
		inflight = inflight[1:]
		switch n := len(j.items); {
		case j.err != nil:
			return j.err
		case n == 0:
			return fmt.Errorf("chain %s answered nothing at position %d of its %s index, which the index holds", b.Chain, j.from, b.Kind)
		case n > j.count:
			return fmt.Errorf("chain %s answered %d items for %d positions from %d", b.Chain, n, j.count, j.from)
		case n < j.count:
			// A short answer: ask for the rest first.
			inflight = append([]*job[T]{start(j.from+uint64(n), j.count-n)}, inflight...)
		}
		if err := use(j.from, j.items); err != nil {
			return err
		}
	}
}

// feed raises the accepted count as the index grows, from position next
// on; on a node without an index it polls instead, when it can.
func (b Blocks[T]) feed(ctx context.Context, next uint64, raise func(uint64)) error {
	if b.Feed != nil {
		return b.Feed(ctx, raise)
	}
	err := host.FeedPositions(ctx, b.Index, b.Chain, b.Kind, next, true, func(p uint64) error {
		raise(p + 1)
		return nil
	})
	if !errors.Is(err, host.ErrNoIndex) || b.Poll == nil {
		return err
	}
	for {
		n, err := b.Poll(ctx)
		if err != nil {
			return err
		}
		raise(n)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(PollInterval):
		}
	}
}
