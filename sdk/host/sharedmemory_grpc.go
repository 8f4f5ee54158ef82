package host

import (
	"context"
	"fmt"
	"math"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
)

// sharedMemoryClient is a SharedMemory served by the host over gRPC.
type sharedMemoryClient struct {
	c pluginv1.SharedMemoryClient
}

func (m *sharedMemoryClient) Get(ctx context.Context, peer ids.ID, keys [][]byte) ([][]byte, error) {
	resp, err := m.c.Get(ctx, &pluginv1.SharedMemoryGetRequest{PeerChainId: peer[:], Keys: keys})
	if err != nil {
		return nil, fmt.Errorf("host shared memory get from %s: %w", peer, fromStatus(err))
	}
	if got := len(resp.GetValues()); got != len(keys) {
		return nil, fmt.Errorf("host shared memory get from %s: %d values for %d keys", peer, got, len(keys))
	}
	return resp.GetValues(), nil
}

func (m *sharedMemoryClient) Indexed(ctx context.Context, peer ids.ID, traits [][]byte, startTrait, startKey []byte, limit int) ([][]byte, []byte, []byte, error) {
	if limit < 0 {
		limit = 0
	}
	resp, err := m.c.Indexed(ctx, &pluginv1.SharedMemoryIndexedRequest{
		PeerChainId: peer[:],
		Traits:      traits,
		StartTrait:  startTrait,
		StartKey:    startKey,
		Limit:       uint32(min(limit, math.MaxUint32)),
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("host shared memory indexed from %s: %w", peer, fromStatus(err))
	}
	return resp.GetValues(), resp.GetLastTrait(), resp.GetLastKey(), nil
}

// sharedMemoryServer serves a SharedMemory over gRPC.
type sharedMemoryServer struct {
	pluginv1.UnimplementedSharedMemoryServer
	sm SharedMemory
}

func (s *sharedMemoryServer) Get(ctx context.Context, req *pluginv1.SharedMemoryGetRequest) (*pluginv1.SharedMemoryGetResponse, error) {
	peer, err := idArg(req.GetPeerChainId(), "shared memory get: peer chain ID")
	if err != nil {
		return nil, err
	}
	values, err := s.sm.Get(ctx, peer, req.GetKeys())
	if err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.SharedMemoryGetResponse{Values: values}, nil
}

func (s *sharedMemoryServer) Indexed(ctx context.Context, req *pluginv1.SharedMemoryIndexedRequest) (*pluginv1.SharedMemoryIndexedResponse, error) {
	peer, err := idArg(req.GetPeerChainId(), "shared memory indexed: peer chain ID")
	if err != nil {
		return nil, err
	}
	values, lastTrait, lastKey, err := s.sm.Indexed(ctx, peer, req.GetTraits(), req.GetStartTrait(), req.GetStartKey(), int(req.GetLimit()))
	if err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.SharedMemoryIndexedResponse{Values: values, LastTrait: lastTrait, LastKey: lastKey}, nil
}
