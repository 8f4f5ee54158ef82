package follow

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/sdk/host"
)

// watchRetry is the pause before the chain watch starts again.
const watchRetry = time.Second

// Chains keeps a module's view of the node's chains current from the
// host's chain registry.
type Chains struct {
	// Registry is the host's chain registry.
	Registry host.ChainRegistry
	// Logger; nil discards.
	Logger hclog.Logger

	stop context.CancelFunc
	done chan struct{} // closed when the watch has ended

	mu  sync.Mutex
	err error // why the watch is down; nil while it runs
}

// Start calls see with every chain of the registry, then, on a goroutine
// of its own until Stop, with every chain the registry reports as it
// starts, stops or changes, watching again after a failure. The context
// given to see ends at Stop.
func (c *Chains) Start(ctx context.Context, see func(context.Context, host.ChainInfo)) error {
	list, err := c.Registry.List(ctx)
	if err != nil {
		return fmt.Errorf("list chains: %w", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	for _, info := range list {
		see(runCtx, info)
	}
	c.stop, c.done = stop, make(chan struct{})
	go func() {
		defer close(c.done)
		c.watch(runCtx, see)
	}()
	return nil
}

// Stop ends the watch and the context given to see.
func (c *Chains) Stop() {
	if c.stop != nil {
		c.stop()
		<-c.done
	}
}

// watch reports the registry's chains to see until ctx ends.
func (c *Chains) watch(ctx context.Context, see func(context.Context, host.ChainInfo)) {
	log := c.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	for ctx.Err() == nil {
		err := c.Registry.Watch(ctx, func(ev host.ChainEvent) error {
			see(ctx, ev.Chain)
			c.setErr(nil)
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		c.setErr(err)
		log.Warn("chain watch ended; watching again", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(watchRetry):
		}
	}
}

func (c *Chains) setErr(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
}

// Err says why the watch is down; nil while it runs.
func (c *Chains) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return fmt.Errorf("chain watch: %w", c.err)
	}
	return nil
}
