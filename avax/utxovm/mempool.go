package utxovm

import (
	"slices"

	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Pending is a transaction waiting in the mempool, with what the VM's check
// found (Info, for the block), and the wait of whoever issued it.
type Pending[U signedtx.Unsigned, I any] struct {
	Tx *signedtx.Tx[U]
	// Spends are the IDs of the UTXOs it spends, and Imports those of the
	// shared-memory UTXOs it imports: no other pending transaction may.
	Spends, Imports []ids.ID
	Info            I

	done chan struct{}
	err  error // set before done is closed
}

// Finish ends the wait of whoever issued the transaction: nil once it is
// accepted, else why it is not.
func (p *Pending[U, I]) Finish(err error) {
	p.err = err
	close(p.done)
}

// Mempool is the transactions waiting for a block, in arrival order, and
// the UTXOs they spend and import.
type Mempool[U signedtx.Unsigned, I any] struct {
	order    []*Pending[U, I]
	byID     map[ids.ID]*Pending[U, I]
	spent    map[ids.ID]ids.ID // UTXO ID -> the pending tx spending it
	imported map[ids.ID]ids.ID // shared-memory UTXO ID -> the pending tx importing it
}

// NewMempool returns an empty mempool.
func NewMempool[U signedtx.Unsigned, I any]() *Mempool[U, I] {
	return &Mempool[U, I]{byID: map[ids.ID]*Pending[U, I]{}, spent: map[ids.ID]ids.ID{}, imported: map[ids.ID]ids.ID{}}
}

// Len is how many transactions wait.
func (mp *Mempool[U, I]) Len() int { return len(mp.order) }

// Get returns the pending transaction of an ID.
func (mp *Mempool[U, I]) Get(id ids.ID) (*Pending[U, I], bool) {
	p, ok := mp.byID[id]
	return p, ok
}

// SpentBy returns the pending transaction that spends a UTXO.
func (mp *Mempool[U, I]) SpentBy(utxoID ids.ID) (ids.ID, bool) {
	id, ok := mp.spent[utxoID]
	return id, ok
}

// ImportedBy returns the pending transaction that imports a shared-memory
// UTXO.
func (mp *Mempool[U, I]) ImportedBy(utxoID ids.ID) (ids.ID, bool) {
	id, ok := mp.imported[utxoID]
	return id, ok
}

// Batch returns the oldest transactions, at most limit of them.
func (mp *Mempool[U, I]) Batch(limit int) []*Pending[U, I] {
	return slices.Clone(mp.order[:min(limit, len(mp.order))])
}

func (mp *Mempool[U, I]) add(p *Pending[U, I]) {
	p.done = make(chan struct{})
	mp.order = append(mp.order, p)
	mp.byID[p.Tx.ID()] = p
	for _, u := range p.Spends {
		mp.spent[u] = p.Tx.ID()
	}
	for _, u := range p.Imports {
		mp.imported[u] = p.Tx.ID()
	}
}

// Remove takes transactions out of the mempool (list is a Batch, not the
// mempool's own order).
func (mp *Mempool[U, I]) Remove(list []*Pending[U, I]) {
	gone := map[ids.ID]bool{}
	for _, p := range list {
		id := p.Tx.ID()
		gone[id] = true
		delete(mp.byID, id)
		for _, u := range p.Spends {
			delete(mp.spent, u)
		}
		for _, u := range p.Imports {
			delete(mp.imported, u)
		}
	}
	mp.order = slices.DeleteFunc(mp.order, func(p *Pending[U, I]) bool { return gone[p.Tx.ID()] })
}

// Finish takes transactions out of the mempool and ends their waits with
// err.
func (mp *Mempool[U, I]) Finish(list []*Pending[U, I], err error) {
	mp.Remove(list)
	for _, p := range list {
		p.Finish(err)
	}
}
