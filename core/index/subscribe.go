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
			page, err := ix.Range(pos, min(n-pos, subscribePage))
			if err != nil {
				return fmt.Errorf("subscribe to index %s: %w", ix, err)
			}
			for _, c := range page {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := fn(c); err != nil {
					return err
				}
				pos++
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
