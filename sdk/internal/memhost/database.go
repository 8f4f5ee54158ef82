package memhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/chainhost/chainhost/sdk/host"
)

// database is the host.Database view of a Host.
type database Host

func (d *database) Get(ctx context.Context, key []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.data[string(key)]
	if !ok {
		return nil, host.ErrNotFound
	}
	return bytes.Clone(v), nil
}

func (d *database) Has(ctx context.Context, key []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.data[string(key)]
	return ok, nil
}

func (d *database) Put(ctx context.Context, key, value []byte) error {
	return d.Write(ctx, []host.Op{{Key: key, Value: value}}, false)
}

func (d *database) Delete(ctx context.Context, key []byte) error {
	return d.Write(ctx, []host.Op{{Key: key, Delete: true}}, false)
}

func (d *database) Write(ctx context.Context, ops []host.Op, _ bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, op := range ops {
		if len(op.Key) == 0 {
			return fmt.Errorf("write op %d: empty key", i)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	(*Host)(d).applyLocked(ops)
	return nil
}

func (d *database) Iterate(ctx context.Context, prefix, start []byte, fn func(key, value []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	type pair struct{ k, v []byte }
	var pairs []pair
	d.mu.Lock()
	for k, v := range d.data {
		if strings.HasPrefix(k, string(prefix)) && k >= string(start) {
			pairs = append(pairs, pair{[]byte(k), bytes.Clone(v)})
		}
	}
	d.mu.Unlock()
	sort.Slice(pairs, func(i, j int) bool { return bytes.Compare(pairs[i].k, pairs[j].k) < 0 })
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(p.k, p.v); err != nil {
			if errors.Is(err, host.ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}
