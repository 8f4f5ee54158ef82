package host

import (
	"context"
	"errors"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// Iterate sends pairs in messages of at most this many pairs or bytes (one
// larger pair still goes alone, within the raised message limits).
const (
	iterateBatchPairs = 256
	iterateBatchBytes = 1 << 20
)

// databaseServer serves a Database over gRPC.
type databaseServer struct {
	pluginv1.UnimplementedDatabaseServer
	db Database
}

func (s *databaseServer) Get(ctx context.Context, req *pluginv1.GetRequest) (*pluginv1.GetResponse, error) {
	v, err := s.db.Get(ctx, req.GetKey())
	if errors.Is(err, ErrNotFound) {
		return &pluginv1.GetResponse{}, nil
	}
	if err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.GetResponse{Value: v, Found: true}, nil
}

func (s *databaseServer) Has(ctx context.Context, req *pluginv1.HasRequest) (*pluginv1.HasResponse, error) {
	ok, err := s.db.Has(ctx, req.GetKey())
	if err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.HasResponse{Found: ok}, nil
}

func (s *databaseServer) Put(ctx context.Context, req *pluginv1.PutRequest) (*pluginv1.PutResponse, error) {
	if err := s.db.Put(ctx, req.GetKey(), req.GetValue()); err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.PutResponse{}, nil
}

func (s *databaseServer) Delete(ctx context.Context, req *pluginv1.DeleteRequest) (*pluginv1.DeleteResponse, error) {
	if err := s.db.Delete(ctx, req.GetKey()); err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.DeleteResponse{}, nil
}

func (s *databaseServer) WriteBatch(ctx context.Context, req *pluginv1.WriteBatchRequest) (*pluginv1.WriteBatchResponse, error) {
	if err := s.db.Write(ctx, opsFromProto(req.GetOps()), req.GetSync()); err != nil {
		return nil, toStatus(err)
	}
	return &pluginv1.WriteBatchResponse{}, nil
}

func (s *databaseServer) Iterate(req *pluginv1.IterateRequest, stream pluginv1.Database_IterateServer) error {
	var (
		batch []*pluginv1.KeyValue
		size  int
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := stream.Send(&pluginv1.IterateResponse{Pairs: batch})
		batch, size = nil, 0
		return err
	}
	err := s.db.Iterate(stream.Context(), req.GetPrefix(), req.GetStart(), func(key, value []byte) error {
		batch = append(batch, &pluginv1.KeyValue{Key: clone(key), Value: clone(value)})
		size += len(key) + len(value)
		if len(batch) >= iterateBatchPairs || size >= iterateBatchBytes {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return toStatus(err)
}

// clone copies b, keeping nil as nil.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
