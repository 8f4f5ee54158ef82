package host

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/wire"
)

// indexServer serves an Index over gRPC.
type indexServer struct {
	pluginv1.UnimplementedIndexServer
	index Index
}

func (s *indexServer) Accept(ctx context.Context, req *pluginv1.AcceptRequest) (*pluginv1.AcceptResponse, error) {
	id, err := idArg(req.GetId(), "accept "+req.GetKind()+" container: ID")
	if err != nil {
		return nil, err
	}
	acc, err := s.index.Accept(ctx, req.GetKind(), id, req.GetBytes(), opsFromProto(req.GetState()))
	if err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.AcceptResponse{Index: acc.Index, TimestampUnixNano: wire.TimeToProto(acc.Timestamp)}, nil
}

func (s *indexServer) AcceptBatch(ctx context.Context, req *pluginv1.AcceptBatchRequest) (*pluginv1.AcceptBatchResponse, error) {
	bi, ok := s.index.(BatchIndex)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "accept batch: this host's index does not accept batches")
	}
	containers, err := newContainersFromProto(req.GetContainers())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "accept batch: "+err.Error())
	}
	shared, err := sharedFromProto(req.GetSharedMemory())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "accept batch: "+err.Error())
	}
	acc, err := bi.AcceptBatch(ctx, AcceptBatch{Containers: containers, State: opsFromProto(req.GetState()), SharedMemory: shared})
	if err != nil {
		return nil, toStatus(err)
	}
	out := &pluginv1.AcceptBatchResponse{Accepted: make([]*pluginv1.AcceptResponse, len(acc))}
	for i, a := range acc {
		out.Accepted[i] = &pluginv1.AcceptResponse{Index: a.Index, TimestampUnixNano: wire.TimeToProto(a.Timestamp)}
	}
	return out, nil
}

func (s *indexServer) Feed(req *pluginv1.FeedRequest, stream pluginv1.Index_FeedServer) error {
	ctx, chain, kind, start, follow := stream.Context(), req.GetChain(), req.GetKind(), req.GetStart(), req.GetFollow()
	if req.GetPositionsOnly() {
		return toStatus(FeedPositions(ctx, s.index, chain, kind, start, follow, func(p uint64) error {
			return stream.Send(&pluginv1.Container{Index: p})
		}))
	}
	return toStatus(s.index.Feed(ctx, chain, kind, start, follow, func(c Container) error {
		return stream.Send(containerToProto(c))
	}))
}
