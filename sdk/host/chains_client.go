package host

import (
	"context"
	"fmt"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// chainRegistryClient is a ChainRegistry served by the host over gRPC.
type chainRegistryClient struct {
	c pluginv1.ChainRegistryClient
}

func (r *chainRegistryClient) List(ctx context.Context) ([]ChainInfo, error) {
	resp, err := r.c.ListChains(ctx, &pluginv1.ListChainsRequest{})
	if err != nil {
		return nil, fmt.Errorf("host list chains: %w", fromStatus(err))
	}
	out := make([]ChainInfo, 0, len(resp.GetChains()))
	for _, c := range resp.GetChains() {
		info, err := chainFromProto(c)
		if err != nil {
			return nil, fmt.Errorf("host list chains: %w", err)
		}
		out = append(out, info)
	}
	return out, nil
}

func (r *chainRegistryClient) Resolve(ctx context.Context, alias string) (ChainInfo, error) {
	resp, err := r.c.Resolve(ctx, &pluginv1.ResolveRequest{Alias: alias})
	if err != nil {
		return ChainInfo{}, fmt.Errorf("host resolve chain %q: %w", alias, fromStatus(err))
	}
	if resp.GetChain() == nil {
		return ChainInfo{}, fmt.Errorf("host resolve chain %q: %w", alias, ErrNotFound)
	}
	info, err := chainFromProto(resp.GetChain())
	if err != nil {
		return ChainInfo{}, fmt.Errorf("host resolve chain %q: %w", alias, err)
	}
	return info, nil
}

// chainCallsClient is a ChainCaller served by the host over gRPC.
type chainCallsClient struct {
	c pluginv1.ChainCallsClient
}

func (c *chainCallsClient) Call(ctx context.Context, chain, handler string, body []byte) (int, []byte, error) {
	resp, err := c.c.Call(ctx, &pluginv1.ChainCallRequest{Chain: chain, Handler: handler, Body: body})
	if err != nil {
		return 0, nil, fmt.Errorf("host call %s/%s: %w", chain, handler, fromStatus(err))
	}
	return int(resp.GetStatus()), resp.GetBody(), nil
}
