package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// WatchBuffer is how many events a chain watch may lag behind before it is
// ended with ErrWatchBehind: chains start and stop rarely, so a watcher
// that far behind is stuck, and must not hold up a chain's start.
const WatchBuffer = 64

// ChainEvents hands chain events to the watches of a ChainRegistry: a host
// (the node, sdk/plugintest's memory host) implements Watch with it and
// calls Publish at each change. The zero value is ready for use; it is safe
// for concurrent use.
type ChainEvents struct {
	mu       sync.Mutex
	watchers map[chan ChainEvent]struct{}
}

// Publish hands ev to every watch without waiting; a watch whose buffer is
// full is ended with ErrWatchBehind.
func (e *ChainEvents) Publish(ev ChainEvent) {
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

// Watch runs a ChainRegistry.Watch: a ChainCurrent event for each chain
// that list returns, then the published events, as the ChainRegistry
// contract says. It subscribes before it lists, so no change is missed; one
// made meanwhile may follow a current state that already shows it.
func (e *ChainEvents) Watch(ctx context.Context, list func() []ChainInfo, fn func(ChainEvent) error) error {
	ch := e.subscribe()
	defer e.unsubscribe(ch)
	end := func(err error) error {
		if errors.Is(err, ErrStop) {
			return nil
		}
		return err
	}
	for _, c := range list() {
		if err := fn(ChainEvent{Kind: ChainCurrent, Chain: c}); err != nil {
			return end(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-ch:
			if !ok {
				return fmt.Errorf("watch chains: %w", ErrWatchBehind)
			}
			if err := fn(ev); err != nil {
				return end(err)
			}
		}
	}
}

// subscribe returns a channel of the events published from now on.
func (e *ChainEvents) subscribe() chan ChainEvent {
	ch := make(chan ChainEvent, WatchBuffer)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.watchers == nil {
		e.watchers = map[chan ChainEvent]struct{}{}
	}
	e.watchers[ch] = struct{}{}
	return ch
}

// unsubscribe ends a subscription, unless Publish already dropped it.
func (e *ChainEvents) unsubscribe(ch chan ChainEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.watchers[ch]; ok {
		delete(e.watchers, ch)
		close(ch)
	}
}
