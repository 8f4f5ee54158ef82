package chains

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/chainhost/chainhost/sdk/host"
)

// watchBuffer is how many events a watcher may lag behind before its watch
// ends with host.ErrWatchBehind: chains start and stop rarely, so a
// watcher that far behind is stuck, and must not hold up a chain's start.
const watchBuffer = 64

// events hands chain events to the registry's watchers.
type events struct {
	mu       sync.Mutex
	watchers map[chan host.ChainEvent]struct{}
}

// subscribe returns a channel of the events from now on, and the function
// that ends the subscription. The channel is closed when the watcher fell
// behind.
func (e *events) subscribe() (<-chan host.ChainEvent, func()) {
	ch := make(chan host.ChainEvent, watchBuffer)
	e.mu.Lock()
	if e.watchers == nil {
		e.watchers = map[chan host.ChainEvent]struct{}{}
	}
	e.watchers[ch] = struct{}{}
	e.mu.Unlock()
	return ch, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if _, ok := e.watchers[ch]; ok {
			delete(e.watchers, ch)
			close(ch)
		}
	}
}

// publish hands ev to every watcher without waiting; a watcher whose
// buffer is full is dropped.
func (e *events) publish(ev host.ChainEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.watchers {
		select {
		case ch <- ev:
		default:
			delete(e.watchers, ch)
			close(ch)
		}
	}
}

// watch runs a registry Watch: a ChainCurrent event per chain, then the
// events as they come. It subscribes before it lists the chains, so no
// change is missed; one made meanwhile may follow the current state that
// already shows it.
func (m *Manager) watch(ctx context.Context, fn func(host.ChainEvent) error) error {
	ch, cancel := m.events.subscribe()
	defer cancel()
	end := func(err error) error {
		if errors.Is(err, host.ErrStop) {
			return nil
		}
		return err
	}
	for _, c := range m.chains {
		if err := fn(host.ChainEvent{Kind: host.ChainCurrent, Chain: m.info(c)}); err != nil {
			return end(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-ch:
			if !ok {
				return fmt.Errorf("watch chains: %w", host.ErrWatchBehind)
			}
			if err := fn(ev); err != nil {
				return end(err)
			}
		}
	}
}
