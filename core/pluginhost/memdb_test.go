package pluginhost

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/chainhost/chainhost/sdk/host"
)

// memDB is a minimal in-memory host.Database for the tests; it lives on the
// host side, so it survives plugin restarts like the real database.
type memDB struct {
	mu sync.Mutex
	kv map[string][]byte
}

func newMemDB() *memDB { return &memDB{kv: make(map[string][]byte)} }

func (m *memDB) Get(_ context.Context, key []byte) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.kv[string(key)]
	if !ok {
		return nil, fmt.Errorf("key %q: %w", key, host.ErrNotFound)
	}
	return slices.Clone(v), nil
}

func (m *memDB) Has(_ context.Context, key []byte) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.kv[string(key)]
	return ok, nil
}

func (m *memDB) Put(_ context.Context, key, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.kv[string(key)] = slices.Clone(value)
	return nil
}

func (m *memDB) Delete(_ context.Context, key []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.kv, string(key))
	return nil
}

func (m *memDB) Write(_ context.Context, ops []host.Op, _ bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, op := range ops {
		if op.Delete {
			delete(m.kv, string(op.Key))
		} else {
			m.kv[string(op.Key)] = slices.Clone(op.Value)
		}
	}
	return nil
}

func (m *memDB) Iterate(_ context.Context, prefix, start []byte, fn func(key, value []byte) error) error {
	m.mu.Lock()
	var keys []string
	for k := range m.kv {
		if strings.HasPrefix(k, string(prefix)) && bytes.Compare([]byte(k), start) >= 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	pairs := make([][2][]byte, len(keys))
	for n, k := range keys {
		pairs[n] = [2][]byte{[]byte(k), slices.Clone(m.kv[k])}
	}
	m.mu.Unlock()
	for _, kv := range pairs {
		if err := fn(kv[0], kv[1]); err != nil {
			if err == host.ErrStop {
				return nil
			}
			return err
		}
	}
	return nil
}
