package host

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// databaseClient is a Database served by the host over gRPC.
type databaseClient struct {
	c pluginv1.DatabaseClient
}

func (d *databaseClient) Get(ctx context.Context, key []byte) ([]byte, error) {
	resp, err := d.c.Get(ctx, &pluginv1.GetRequest{Key: key})
	if err != nil {
		return nil, fmt.Errorf("host database get: %w", fromStatus(err))
	}
	if !resp.GetFound() {
		return nil, ErrNotFound
	}
	return resp.GetValue(), nil
}

func (d *databaseClient) Has(ctx context.Context, key []byte) (bool, error) {
	resp, err := d.c.Has(ctx, &pluginv1.HasRequest{Key: key})
	if err != nil {
		return false, fmt.Errorf("host database has: %w", fromStatus(err))
	}
	return resp.GetFound(), nil
}

func (d *databaseClient) Put(ctx context.Context, key, value []byte) error {
	if _, err := d.c.Put(ctx, &pluginv1.PutRequest{Key: key, Value: value}); err != nil {
		return fmt.Errorf("host database put: %w", fromStatus(err))
	}
	return nil
}

func (d *databaseClient) Delete(ctx context.Context, key []byte) error {
	if _, err := d.c.Delete(ctx, &pluginv1.DeleteRequest{Key: key}); err != nil {
		return fmt.Errorf("host database delete: %w", fromStatus(err))
	}
	return nil
}

func (d *databaseClient) Write(ctx context.Context, ops []Op, sync bool) error {
	req := &pluginv1.WriteBatchRequest{Ops: opsToProto(ops), Sync: sync}
	if _, err := d.c.WriteBatch(ctx, req); err != nil {
		return fmt.Errorf("host database write %d ops: %w", len(ops), fromStatus(err))
	}
	return nil
}

func (d *databaseClient) Iterate(ctx context.Context, prefix, start []byte, fn func(key, value []byte) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := d.c.Iterate(ctx, &pluginv1.IterateRequest{Prefix: prefix, Start: start})
	if err != nil {
		return fmt.Errorf("host database iterate: %w", fromStatus(err))
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("host database iterate: %w", fromStatus(err))
		}
		for _, kv := range resp.GetPairs() {
			if err := fn(kv.GetKey(), kv.GetValue()); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
	}
}
