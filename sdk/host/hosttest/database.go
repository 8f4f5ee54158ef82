// Package hosttest holds in-memory host services for tests of plugins and
// of the host's plugin machinery, where a real goleveldb is not the point.
package hosttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/chainhost/chainhost/sdk/host"
)

// Database is an in-memory host.Database: one namespace, safe for
// concurrent use. Values are copied in and out, as over the wire.
type Database struct {
	mu   sync.Mutex
	data map[string][]byte
}

var _ host.Database = (*Database)(nil)

// NewDatabase returns an empty Database.
func NewDatabase() *Database { return &Database{data: make(map[string][]byte)} }

// Get returns the value of key, or host.ErrNotFound.
func (d *Database) Get(ctx context.Context, key []byte) ([]byte, error) {
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

// Has reports whether key is set.
func (d *Database) Has(ctx context.Context, key []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.data[string(key)]
	return ok, nil
}

// Put sets key to value.
func (d *Database) Put(ctx context.Context, key, value []byte) error {
	return d.Write(ctx, []host.Op{{Key: key, Value: value}}, false)
}

// Delete removes key.
func (d *Database) Delete(ctx context.Context, key []byte) error {
	return d.Write(ctx, []host.Op{{Key: key, Delete: true}}, false)
}

// Write applies ops atomically; an empty key fails the whole batch, as on
// the host.
func (d *Database) Write(ctx context.Context, ops []host.Op, _ bool) error {
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
	for _, op := range ops {
		if op.Delete {
			delete(d.data, string(op.Key))
			continue
		}
		d.data[string(op.Key)] = bytes.Clone(op.Value)
	}
	return nil
}

// Iterate calls fn for each key with prefix at or after start, in key
// order, on a snapshot taken when it starts; host.ErrStop from fn ends it
// without an error.
func (d *Database) Iterate(ctx context.Context, prefix, start []byte, fn func(key, value []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	var keys []string
	for k := range d.data {
		if strings.HasPrefix(k, string(prefix)) && k >= string(start) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	values := make([][]byte, len(keys))
	for i, k := range keys {
		values[i] = bytes.Clone(d.data[k])
	}
	d.mu.Unlock()
	for i, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn([]byte(k), values[i]); err != nil {
			if errors.Is(err, host.ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}
