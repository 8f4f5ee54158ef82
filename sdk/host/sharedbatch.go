package host

import "github.com/chainhost/chainhost/sdk/ids"

// SharedBatch gathers the shared-memory requests of one acceptance by peer
// chain, one SharedRequests per peer in the order the peers first come.
// The zero value is empty and ready.
type SharedBatch struct {
	byPeer   map[ids.ID]int
	requests []SharedRequests
}

// Put adds a value for peer to import.
func (b *SharedBatch) Put(peer ids.ID, e SharedElement) {
	r := b.peer(peer)
	r.Puts = append(r.Puts, e)
}

// Remove adds the key of a value peer put for this chain, which this chain
// consumes.
func (b *SharedBatch) Remove(peer ids.ID, key []byte) {
	r := b.peer(peer)
	r.Removes = append(r.Removes, key)
}

// Requests returns the requests gathered, for AcceptBatch.SharedMemory.
func (b *SharedBatch) Requests() []SharedRequests { return b.requests }

func (b *SharedBatch) peer(id ids.ID) *SharedRequests {
	i, ok := b.byPeer[id]
	if !ok {
		if b.byPeer == nil {
			b.byPeer = map[ids.ID]int{}
		}
		i = len(b.requests)
		b.byPeer[id] = i
		b.requests = append(b.requests, SharedRequests{Peer: id})
	}
	return &b.requests[i]
}
