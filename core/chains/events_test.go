package chains

import (
	"testing"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestEventsDropStuckWatchers: a watcher whose buffer is full is dropped
// (its channel closed) instead of holding up the publisher; the others
// keep their events.
func TestEventsDropStuckWatchers(t *testing.T) {
	var e events
	stuck, cancelStuck := e.subscribe()
	defer cancelStuck()
	live, cancelLive := e.subscribe()
	defer cancelLive()
	for i := range watchBuffer + 1 {
		e.publish(host.ChainEvent{Kind: host.ChainStarted, Chain: host.ChainInfo{ID: ids.ID{byte(i)}}})
		if i < watchBuffer {
			<-live // the live watcher keeps up
		}
	}
	n := 0
	for range stuck {
		n++
	}
	if n != watchBuffer {
		t.Errorf("the stuck watcher got %d events before its channel closed, want %d", n, watchBuffer)
	}
	if ev, ok := <-live; !ok || ev.Chain.ID != (ids.ID{byte(watchBuffer)}) {
		t.Errorf("the live watcher's last event = %+v, %v", ev, ok)
	}
	cancelStuck() // ending a dropped subscription is harmless
}
