package memhost

import (
	"context"
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

func (r *registry) Resolve(ctx context.Context, alias string) (host.ChainInfo, error) {
	if err := ctx.Err(); err != nil {
		return host.ChainInfo{}, err
	}
	if alias == "" {
		return host.ChainInfo{}, fmt.Errorf("chain %q: %w", alias, host.ErrNotFound)
	}
	return (*Host)(r).resolve(alias)
}

func (r *registry) Watch(ctx context.Context, fn func(host.ChainEvent) error) error {
	return r.events.Watch(ctx, func() []host.ChainInfo {
		r.mu.Lock()
		defer r.mu.Unlock()
		return (*Host)(r).chainsLocked()
	}, fn)
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
