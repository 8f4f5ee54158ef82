// Package memhost is an in-memory implementation of the host services, for
// the SDK's tests and for sdk/plugintest. It keeps one plugin instance's
// database namespace, the indexes of its own chain and of other chains, the
// shared memory between the chains, and a list of chains whose changes it
// reports to watchers.
package memhost

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/host/hosttest"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Options configures a Host.
type Options struct {
	// Self is the chain of the plugin instance the host serves; Feed with
	// chain "" and Accept use it. A zero ID means the instance is a module:
	// it has no chain and Accept answers host.ErrReadOnly.
	Self host.ChainInfo
	// Others are further chains the registry lists after Self.
	Others []host.ChainInfo
	// Now returns acceptance times; time.Now when nil.
	Now func() time.Time
	// Call answers ChainCaller calls once the chain is resolved, with the
	// handler path as the caller gave it; calls fail when it is nil.
	Call func(ctx context.Context, chain host.ChainInfo, handlerPath string, body []byte) (int, []byte, error)
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
	others  []host.ChainInfo
	db      *hosttest.Database
	index   map[indexKey][]host.Container
	changed chan struct{} // closed and replaced on every accept
	events  host.ChainEvents
	shared  map[sharedKey]*sharedSpace
}

// New returns an empty Host.
func New(opts Options) *Host {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Host{
		opts:    opts,
		self:    opts.Self,
		others:  slices.Clone(opts.Others),
		db:      hosttest.NewDatabase(),
		index:   make(map[indexKey][]host.Container),
		changed: make(chan struct{}),
		shared:  make(map[sharedKey]*sharedSpace),
	}
}

// Services returns the services backed by h. A module (no chain of its
// own) gets no shared memory, as on the node.
func (h *Host) Services() host.Services {
	svc := host.Services{DB: h.db, Index: (*index)(h), Chains: (*registry)(h), Calls: (*caller)(h)}
	if !h.opts.Self.ID.IsZero() {
		svc.SharedMemory = (*sharedMemory)(h)
	}
	return svc
}

// DB returns the database namespace.
func (h *Host) DB() host.Database { return h.db }

// SetSelf replaces the description of the instance's own chain, for example
// once its handlers are known.
func (h *Host) SetSelf(info host.ChainInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.self = info
}

// SetChain adds another chain, or replaces the one with its ID, and tells
// watchers when it started (new and running, or now running) or stopped.
func (h *Host) SetChain(info host.ChainInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	wasRunning := false
	if i := slices.IndexFunc(h.others, func(c host.ChainInfo) bool { return c.ID == info.ID }); i >= 0 {
		wasRunning = h.others[i].Running
		h.others[i] = info
	} else {
		h.others = append(h.others, info)
	}
	switch {
	case info.Running && !wasRunning:
		h.events.Publish(host.ChainEvent{Kind: host.ChainStarted, Chain: info})
	case !info.Running && wasRunning:
		h.events.Publish(host.ChainEvent{Kind: host.ChainStopped, Chain: info})
	}
}

// chainsLocked lists the own chain, if any, then the others; h.mu is held.
func (h *Host) chainsLocked() []host.ChainInfo {
	var out []host.ChainInfo
	if !h.self.ID.IsZero() {
		out = append(out, h.self)
	}
	return append(out, h.others...)
}

// AppendContainer appends a container to a chain's index of kind, as that
// chain's VM would, and wakes the feeds that follow it.
func (h *Host) AppendContainer(chain ids.ID, kind string, id ids.ID, b []byte) host.Container {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.appendLocked(indexKey{chain, kind}, id, b)
}

// appendLocked appends to an index and wakes the feeds; h.mu is held.
func (h *Host) appendLocked(key indexKey, id ids.ID, b []byte) host.Container {
	c := host.Container{ID: id, Bytes: slices.Clone(b), Index: uint64(len(h.index[key])), Timestamp: h.opts.Now().UTC()}
	h.index[key] = append(h.index[key], c)
	close(h.changed)
	h.changed = make(chan struct{})
	return c
}

// Containers returns a copy of the own chain's index of kind.
func (h *Host) Containers(kind string) []host.Container {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.index[indexKey{h.self.ID, kind}])
}

// applyLocked applies ops to the database; h.mu must be held, so that the
// state lands with the containers it belongs to. The callers have checked
// the keys, and a Background context is never done: Write cannot fail.
func (h *Host) applyLocked(ops []host.Op) {
	_ = h.db.Write(context.Background(), ops, false)
}

// resolve returns the chain an ID or alias names; "" is the own chain.
func (h *Host) resolve(alias string) (host.ChainInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if alias == "" {
		if h.self.ID.IsZero() {
			return host.ChainInfo{}, fmt.Errorf("a module has no chain of its own: name one: %w", host.ErrNotFound)
		}
		return h.self, nil
	}
	for _, c := range h.chainsLocked() {
		if c.ID.String() == alias || slices.Contains(c.Aliases, alias) {
			return c, nil
		}
	}
	return host.ChainInfo{}, fmt.Errorf("chain %q: %w", alias, host.ErrNotFound)
}

// errNoCaller is returned by calls when Options.Call is nil.
var errNoCaller = errors.New("chain calls are not configured")
