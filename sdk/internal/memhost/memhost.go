// Package memhost is an in-memory implementation of the host services, for
// the SDK's tests and for sdk/plugintest. It keeps one plugin instance's
// database namespace and index, and a fixed list of chains.
package memhost

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Options configures a Host.
type Options struct {
	// Self is the chain of the plugin instance the host serves; Feed with
	// chain "" and Accept use it.
	Self host.ChainInfo
	// Others are further chains the registry lists after Self.
	Others []host.ChainInfo
	// Now returns acceptance times; time.Now when nil.
	Now func() time.Time
	// Call answers ChainCaller calls once the chain is resolved; calls fail
	// when it is nil.
	Call func(ctx context.Context, chain host.ChainInfo, handler string, body []byte) (int, []byte, error)
}

// indexKey names one index: a chain's containers of a kind.
type indexKey struct {
	chain ids.ID
	kind  string
}

// Host holds the in-memory state behind the services.
type Host struct {
	opts Options

	mu      sync.Mutex
	self    host.ChainInfo
	data    map[string][]byte
	index   map[indexKey][]host.Container
	changed chan struct{} // closed and replaced on every accept
}

// New returns an empty Host.
func New(opts Options) *Host {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Host{
		opts:    opts,
		self:    opts.Self,
		data:    make(map[string][]byte),
		index:   make(map[indexKey][]host.Container),
		changed: make(chan struct{}),
	}
}

// Services returns the four services backed by h.
func (h *Host) Services() host.Services {
	return host.Services{DB: (*database)(h), Index: (*index)(h), Chains: (*registry)(h), Calls: (*caller)(h)}
}

// DB returns the database namespace.
func (h *Host) DB() host.Database { return (*database)(h) }

// SetSelf replaces the description of the instance's own chain, for example
// once its handlers are known.
func (h *Host) SetSelf(info host.ChainInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.self = info
}

// Containers returns a copy of the own chain's index of kind.
func (h *Host) Containers(kind string) []host.Container {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.index[indexKey{h.self.ID, kind}])
}

// applyLocked applies ops to the data; h.mu must be held.
func (h *Host) applyLocked(ops []host.Op) {
	for _, op := range ops {
		if op.Delete {
			delete(h.data, string(op.Key))
			continue
		}
		h.data[string(op.Key)] = append([]byte{}, op.Value...)
	}
}

// resolve returns the chain an ID or alias names; "" is the own chain.
func (h *Host) resolve(alias string) (host.ChainInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if alias == "" {
		return h.self, nil
	}
	for _, c := range append([]host.ChainInfo{h.self}, h.opts.Others...) {
		if c.ID.String() == alias || slices.Contains(c.Aliases, alias) {
			return c, nil
		}
	}
	return host.ChainInfo{}, fmt.Errorf("chain %q: %w", alias, host.ErrNotFound)
}

// errNoCaller is returned by calls when Options.Call is nil.
var errNoCaller = errors.New("chain calls are not configured")
