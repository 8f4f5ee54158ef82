package host

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/wire"
)

// indexClient is an Index served by the host over gRPC.
type indexClient struct {
	c pluginv1.IndexClient
}

func (x *indexClient) Accept(ctx context.Context, kind string, id ids.ID, bytes []byte, state []Op) (Accepted, error) {
	req := &pluginv1.AcceptRequest{Kind: kind, Id: id[:], Bytes: bytes, State: opsToProto(state)}
	resp, err := x.c.Accept(ctx, req)
	if err != nil {
		return Accepted{}, fmt.Errorf("host index accept %s %s: %w", kind, id, fromStatus(err))
	}
	return Accepted{Index: resp.GetIndex(), Timestamp: wire.TimeFromProto(resp.GetTimestampUnixNano())}, nil
}

func (x *indexClient) AcceptBatch(ctx context.Context, b AcceptBatch) ([]Accepted, error) {
	req := &pluginv1.AcceptBatchRequest{
		Containers:   newContainersToProto(b.Containers),
		State:        opsToProto(b.State),
		SharedMemory: sharedToProto(b.SharedMemory),
	}
	resp, err := x.c.AcceptBatch(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("host index accept batch of %d containers: %w", len(b.Containers), fromStatus(err))
	}
	if got := len(resp.GetAccepted()); got != len(b.Containers) {
		return nil, fmt.Errorf("host index accept batch: %d answers for %d containers", got, len(b.Containers))
	}
	out := make([]Accepted, len(resp.GetAccepted()))
	for i, a := range resp.GetAccepted() {
		out[i] = Accepted{Index: a.GetIndex(), Timestamp: wire.TimeFromProto(a.GetTimestampUnixNano())}
	}
	return out, nil
}

func (x *indexClient) Feed(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(Container) error) error {
	req := &pluginv1.FeedRequest{Chain: chain, Kind: kind, Start: start, Follow: follow}
	return x.feed(ctx, req, func(msg *pluginv1.Container) error {
		c, err := containerFromProto(msg)
		if err != nil {
			return fmt.Errorf("host index feed %s %s: %w", chain, kind, err)
		}
		return fn(c)
	})
}

func (x *indexClient) FeedPositions(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(uint64) error) error {
	req := &pluginv1.FeedRequest{Chain: chain, Kind: kind, Start: start, Follow: follow, PositionsOnly: true}
	return x.feed(ctx, req, func(msg *pluginv1.Container) error { return fn(msg.GetIndex()) })
}

// feed streams req's containers to fn until the stream ends, fn fails or
// returns ErrStop.
func (x *indexClient) feed(ctx context.Context, req *pluginv1.FeedRequest, fn func(*pluginv1.Container) error) error {
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := x.c.Feed(streamCtx, req)
	if err != nil {
		return fmt.Errorf("host index feed %s %s: %w", req.GetChain(), req.GetKind(), fromStatus(err))
	}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("host index feed %s %s: %w", req.GetChain(), req.GetKind(), fromStatus(err))
		}
		if err := fn(msg); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
}
