package memhost

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// index is the host.Index view of a Host.
type index Host

func (x *index) Accept(ctx context.Context, kind string, id ids.ID, b []byte, state []host.Op) (host.Accepted, error) {
	if err := ctx.Err(); err != nil {
		return host.Accepted{}, err
	}
	if kind == "" {
		return host.Accepted{}, fmt.Errorf("accept container %s: empty kind", id)
	}
	for i, op := range state {
		if len(op.Key) == 0 {
			return host.Accepted{}, fmt.Errorf("accept %s container %s: state op %d: empty key", kind, id, i)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.self.ID.IsZero() {
		return host.Accepted{}, fmt.Errorf("accept %s container %s: %w", kind, id, host.ErrReadOnly)
	}
	c := (*Host)(x).appendLocked(indexKey{x.self.ID, kind}, id, b)
	(*Host)(x).applyLocked(state)
	return host.Accepted{Index: c.Index, Timestamp: c.Timestamp}, nil
}

func (x *index) Feed(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(host.Container) error) error {
	info, err := (*Host)(x).resolve(chain)
	if err != nil {
		return fmt.Errorf("feed %s: %w", kind, err)
	}
	key := indexKey{info.ID, kind}
	pos := start
	for {
		x.mu.Lock()
		list, changed := x.index[key], x.changed
		var batch []host.Container
		if pos < uint64(len(list)) {
			batch = append(batch, list[pos:]...)
		}
		x.mu.Unlock()
		for _, c := range batch {
			if err := fn(c); err != nil {
				if errors.Is(err, host.ErrStop) {
					return nil
				}
				return err
			}
			pos++
		}
		if !follow {
			return nil
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
