package memhost

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/sdk/host"
)

// registry is the host.ChainRegistry view of a Host.
type registry Host

func (r *registry) List(ctx context.Context) ([]host.ChainInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return (*Host)(r).chainsLocked(), nil
}

func (r *registry) Watch(ctx context.Context, fn func(host.ChainEvent) error) error {
	ch := make(chan host.ChainEvent, watchBuffer)
	r.mu.Lock()
	current := (*Host)(r).chainsLocked()
	r.watchers[ch] = struct{}{}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		if _, ok := r.watchers[ch]; ok {
			delete(r.watchers, ch)
			close(ch)
		}
		r.mu.Unlock()
	}()
	for _, c := range current {
		if err := fn(host.ChainEvent{Kind: host.ChainCurrent, Chain: c}); err != nil {
			return endWatch(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-ch:
			if !ok {
				return fmt.Errorf("watch chains: %w", host.ErrWatchBehind)
			}
			if err := fn(ev); err != nil {
				return endWatch(err)
			}
		}
	}
}

// endWatch is the result of a watch whose callback returned err: nil for
// host.ErrStop.
func endWatch(err error) error {
	if errors.Is(err, host.ErrStop) {
		return nil
	}
	return err
}

func (r *registry) Resolve(ctx context.Context, alias string) (host.ChainInfo, error) {
	if err := ctx.Err(); err != nil {
		return host.ChainInfo{}, err
	}
	if alias == "" {
		return host.ChainInfo{}, fmt.Errorf("chain %q: %w", alias, host.ErrNotFound)
	}
	return (*Host)(r).resolve(alias)
}

// caller is the host.ChainCaller view of a Host.
type caller Host

func (c *caller) Call(ctx context.Context, chain, handlerPath string, body []byte) (int, []byte, error) {
	if c.opts.Call == nil {
		return 0, nil, fmt.Errorf("call %s/%s: %w", chain, handlerPath, errNoCaller)
	}
	info, err := (*Host)(c).resolve(chain)
	if err != nil {
		return 0, nil, fmt.Errorf("call %s/%s: %w", chain, handlerPath, err)
	}
	return c.opts.Call(ctx, info, handlerPath, body)
}
