package memhost

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
	key := indexKey{x.self.ID, kind}
	if slices.ContainsFunc(x.index[key], func(c host.Container) bool { return c.ID == id }) {
		return host.Accepted{}, fmt.Errorf("accept %s container %s: %w", kind, id, host.ErrAlreadyIndexed)
	}
	c := (*Host)(x).appendLocked(key, id, b)
	(*Host)(x).applyLocked(state)
	return host.Accepted{Index: c.Index, Timestamp: c.Timestamp}, nil
}

func (x *index) AcceptBatch(ctx context.Context, b host.AcceptBatch) ([]host.Accepted, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(b.Containers) == 0 {
		return nil, fmt.Errorf("accept batch: no containers")
	}
	for i, c := range b.Containers {
		if c.Kind == "" {
			return nil, fmt.Errorf("accept batch: container %d (%s): empty kind", i, c.ID)
		}
	}
	for i, op := range b.State {
		if len(op.Key) == 0 {
			return nil, fmt.Errorf("accept batch: state op %d: empty key", i)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	h := (*Host)(x)
	if x.self.ID.IsZero() {
		return nil, fmt.Errorf("accept batch: %w", host.ErrReadOnly)
	}
	seen := map[indexKey]map[ids.ID]bool{}
	for _, c := range b.Containers {
		key := indexKey{x.self.ID, c.Kind}
		if seen[key] == nil {
			seen[key] = map[ids.ID]bool{}
			for _, old := range x.index[key] {
				seen[key][old.ID] = true
			}
		}
		if seen[key][c.ID] {
			return nil, fmt.Errorf("accept batch: %s container %s: %w", c.Kind, c.ID, host.ErrAlreadyIndexed)
		}
		seen[key][c.ID] = true
	}
	apply, err := h.checkSharedLocked(x.self.ID, b.SharedMemory)
	if err != nil {
		return nil, fmt.Errorf("accept batch: %w", err)
	}
	out := make([]host.Accepted, len(b.Containers))
	for i, c := range b.Containers {
		ct := h.appendLocked(indexKey{x.self.ID, c.Kind}, c.ID, c.Bytes)
		out[i] = host.Accepted{Index: ct.Index, Timestamp: ct.Timestamp}
	}
	h.applyLocked(b.State)
	apply()
	return out, nil
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
