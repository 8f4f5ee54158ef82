package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

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

func (r *chainRegistryClient) Watch(ctx context.Context, fn func(ChainEvent) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := r.c.Watch(ctx, &pluginv1.WatchChainsRequest{})
	if err != nil {
		return fmt.Errorf("host watch chains: %w", fromStatus(err))
	}
	for {
		msg, err := stream.Recv()
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if errors.Is(err, io.EOF) {
				return errors.New("host watch chains: the host ended the watch")
			}
			return fmt.Errorf("host watch chains: %w", fromStatus(err))
		}
		info, err := chainFromProto(msg.GetChain())
		if err != nil {
			return fmt.Errorf("host watch chains: %w", err)
		}
		if err := fn(ChainEvent{Kind: ChainEventKind(msg.GetKind()), Chain: info}); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
}

// SplitHandlerPath splits a chain call's handler path into the handler name
// and the path below it ("" or "/...").
func SplitHandlerPath(handlerPath string) (handler, path string) {
	handler, rest, ok := strings.Cut(handlerPath, "/")
	if !ok {
		return handler, ""
	}
	return handler, "/" + rest
}

// chainCallsClient is a ChainCaller served by the host over gRPC.
type chainCallsClient struct {
	c pluginv1.ChainCallsClient
}

func (c *chainCallsClient) Call(ctx context.Context, chain, handlerPath string, body []byte) (int, []byte, error) {
	handler, path := SplitHandlerPath(handlerPath)
	resp, err := c.c.Call(ctx, &pluginv1.ChainCallRequest{Chain: chain, Handler: handler, Path: path, Body: body})
	if err != nil {
		return 0, nil, fmt.Errorf("host call %s/%s: %w", chain, handlerPath, fromStatus(err))
	}
	return int(resp.GetStatus()), resp.GetBody(), nil
}
