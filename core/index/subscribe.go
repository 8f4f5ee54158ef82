package index

import (
	"context"
	"fmt"
)

// subscribePage is how many containers Subscribe reads at a time.
const subscribePage = 256

// Subscribe calls fn with every container from position start on, in
// order, then with each container appended later, until ctx is done (it
// then returns ctx's error) or fn fails (it returns fn's error). No
// container is missed or repeated between the stored ones and the live
// ones. A start past the end waits for the index to reach it. fn runs on
// the caller's goroutine with no lock held.
func (ix *Index) Subscribe(ctx context.Context, start uint64, fn func(Container) error) error {
	return ix.follow(ctx, start, func(pos, end uint64) (uint64, error) {
		page, err := ix.Range(pos, min(end-pos, subscribePage))
		if err != nil {
			return pos, fmt.Errorf("subscribe to index %s: %w", ix, err)
		}
		for _, c := range page {
			if err := ctx.Err(); err != nil {
				return pos, err
			}
			if err := fn(c); err != nil {
				return pos, err
			}
			pos++
		}
		return pos, nil
	})
}

// SubscribePositions is Subscribe without reading the containers: fn gets
// each one's position, for a reader that reads what they hold elsewhere.
func (ix *Index) SubscribePositions(ctx context.Context, start uint64, fn func(uint64) error) error {
	return ix.follow(ctx, start, func(pos, end uint64) (uint64, error) {
		for ; pos < end; pos++ {
			if err := ctx.Err(); err != nil {
				return pos, err
			}
			if err := fn(pos); err != nil {
				return pos, err
			}
		}
		return pos, nil
	})
}

// follow hands the positions from start on to deliver, which takes some
// of those in [pos, end) and returns the next one, until ctx is done or
// deliver fails; it waits for appends when deliver has caught up.
func (ix *Index) follow(ctx context.Context, start uint64, deliver func(pos, end uint64) (uint64, error)) error {
	if err := ix.load(); err != nil {
		return err
	}
	pos := start
	for {
		n, changed := ix.watch()
		for pos < n {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			if pos, err = deliver(pos, n); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
