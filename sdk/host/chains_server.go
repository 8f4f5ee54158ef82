package host

import (
	"context"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// chainRegistryServer serves a ChainRegistry over gRPC.
type chainRegistryServer struct {
	pluginv1.UnimplementedChainRegistryServer
	chains ChainRegistry
}

func (s *chainRegistryServer) ListChains(ctx context.Context, _ *pluginv1.ListChainsRequest) (*pluginv1.ListChainsResponse, error) {
	list, err := s.chains.List(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &pluginv1.ListChainsResponse{Chains: make([]*pluginv1.ChainInfo, len(list))}
	for i, c := range list {
		resp.Chains[i] = chainToProto(c)
	}
	return resp, nil
}

func (s *chainRegistryServer) Resolve(ctx context.Context, req *pluginv1.ResolveRequest) (*pluginv1.ResolveResponse, error) {
	c, err := s.chains.Resolve(ctx, req.GetAlias())
	if err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.ResolveResponse{Chain: chainToProto(c)}, nil
}

func (s *chainRegistryServer) Watch(_ *pluginv1.WatchChainsRequest, stream pluginv1.ChainRegistry_WatchServer) error {
	err := s.chains.Watch(stream.Context(), func(ev ChainEvent) error {
		return stream.Send(&pluginv1.ChainEvent{Kind: string(ev.Kind), Chain: chainToProto(ev.Chain)})
	})
	return toStatus(err)
}

// chainCallsServer serves a ChainCaller over gRPC.
type chainCallsServer struct {
	pluginv1.UnimplementedChainCallsServer
	calls ChainCaller
}

func (s *chainCallsServer) Call(ctx context.Context, req *pluginv1.ChainCallRequest) (*pluginv1.ChainCallResponse, error) {
	path := req.GetPath()
	if path != "" && !strings.HasPrefix(path, "/") {
		return nil, status.Errorf(codes.InvalidArgument, "call %s/%s: path %q does not start with /", req.GetChain(), req.GetHandler(), path)
	}
	if strings.Contains(req.GetHandler(), "/") {
		return nil, status.Errorf(codes.InvalidArgument, "call %s: handler %q holds a /", req.GetChain(), req.GetHandler())
	}
	code, body, err := s.calls.Call(ctx, req.GetChain(), req.GetHandler()+path, req.GetBody())
	if err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.ChainCallResponse{Status: int32(code), Body: body}, nil
}
