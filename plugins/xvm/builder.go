package xvm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// acceptTimeout bounds one host append.
const acceptTimeout = time.Minute

// acceptRetries is how many times an append that failed for a reason that
// may pass (the host backfilling its index) is tried again.
const acceptRetries = 8

// signal wakes the builder.
func (vm *VM) signal() {
	select {
	case vm.wake <- struct{}{}:
	default:
	}
}

// buildLoop makes a block (or vertex) of the waiting transactions each
// time it is woken, until the VM stops.
func (vm *VM) buildLoop() {
	defer vm.wg.Done()
	for {
		select {
		case <-vm.stop:
			return
		case <-vm.wake:
		}
		for vm.buildOne() {
		}
	}
}

// buildOne accepts one container of waiting transactions and reports
// whether more wait.
func (vm *VM) buildOne() bool {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if len(vm.pool.order) == 0 {
		return false
	}
	limit := vm.cfg.MaxBlockTxs
	if !vm.meta.Linearized {
		limit = min(limit, blocks.MaxVertexTxs)
	}
	batch := slices.Clone(vm.pool.order[:min(limit, len(vm.pool.order))])
	var err error
	for try := 0; ; try++ {
		if try > 0 {
			// A failed append may have happened all the same (its answer
			// lost): its transactions are stored then, and done.
			batch = vm.dropAcceptedLocked(batch)
			if len(batch) == 0 {
				return len(vm.pool.order) > 0
			}
		}
		err = vm.acceptLocked(batch)
		if err == nil || try == acceptRetries || !retryable(err) {
			break
		}
		vm.mu.Unlock()
		select {
		case <-vm.stop:
			vm.mu.Lock()
			return false
		case <-time.After(time.Duration(25<<min(try, 5)) * time.Millisecond):
		}
		vm.mu.Lock()
	}
	vm.pool.remove(batch)
	for _, p := range batch {
		p.finish(err)
	}
	if err != nil {
		vm.env.Logger.Warn("transactions failed to be accepted", "txs", len(batch), "error", err)
	}
	return len(vm.pool.order) > 0
}

// dropAcceptedLocked finishes, and takes out of the mempool and of batch,
// the transactions of batch that the stored state holds. vm.mu is held.
func (vm *VM) dropAcceptedLocked(batch []*pending) []*pending {
	ctx, cancel := context.WithTimeout(context.Background(), acceptTimeout)
	defer cancel()
	var done []*pending
	left := batch[:0]
	for _, p := range batch {
		if _, stored, err := vm.st.tx(ctx, p.tx.ID()); err == nil && stored {
			done = append(done, p)
		} else {
			left = append(left, p)
		}
	}
	vm.pool.remove(done)
	for _, p := range done {
		p.finish(nil)
	}
	return left
}

// retryable reports whether an append may succeed if tried again: not a
// refusal of what it holds.
func retryable(err error) bool {
	return !errors.Is(err, host.ErrSharedMemoryConflict) && !errors.Is(err, host.ErrAlreadyIndexed) &&
		!errors.Is(err, host.ErrUnsupported) && !errors.Is(err, errShuttingDown)
}

var errShuttingDown = errors.New("the chain is shutting down")

// acceptLocked builds the container of batch (a vertex before
// linearization, a block after), and has the host append it, its
// transactions, the state they change and their shared-memory requests in
// one atomic write. When the host's answer is lost, the stored state says
// whether the write happened. vm.mu is held.
func (vm *VM) acceptLocked(batch []*pending) error {
	select {
	case <-vm.stop:
		return errShuttingDown
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), acceptTimeout)
	defer cancel()
	if vm.stale {
		// The outcome of an earlier append is unknown: start from the
		// stored state.
		stored, _, err := readMeta(ctx, vm.db)
		if err != nil {
			return err
		}
		vm.meta, vm.stale = stored, false
	}
	m := vm.meta.clone()
	now := vm.now()
	if !m.Linearized {
		// A vertex holds its transactions sorted by hash; they go to the
		// index in that order.
		slices.SortFunc(batch, func(a, b *pending) int {
			ha, hb := sha256.Sum256(a.tx.Bytes()), sha256.Sum256(b.tx.Bytes())
			return bytes.Compare(ha[:], hb[:])
		})
	}
	var (
		ops        []host.Op
		containers []host.NewContainer
		txEntries  []host.NewContainer
		shared     = map[ids.ID]*host.SharedRequests{}
		peers      []ids.ID
	)
	requests := func(peer ids.ID) *host.SharedRequests {
		r, ok := shared[peer]
		if !ok {
			r = &host.SharedRequests{Peer: peer}
			shared[peer] = r
			peers = append(peers, peer)
		}
		return r
	}
	container, at := byte(containerBlock), m.Height+1
	if !m.Linearized {
		container, at = containerVertex, m.VtxCount
	}
	list := make([]*txs.Tx, len(batch))
	for i, p := range batch {
		t := p.tx
		list[i] = t
		txID := t.ID()
		for _, u := range p.spends {
			ops = utxostore.Spend(ops, u, txID)
		}
		for _, u := range p.imports {
			id := u.InputID()
			r := requests(p.peer)
			r.Removes = append(r.Removes, id[:])
		}
		base := t.Unsigned.Base()
		for j, o := range base.Outs {
			ops = utxostore.Put(ops, avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: uint32(j)}, AssetID: o.AssetID, Out: o.Out})
		}
		if e, ok := t.Unsigned.(*txs.ExportTx); ok {
			r := requests(p.peer)
			for j, o := range e.ExportedOuts {
				u := avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: uint32(len(base.Outs) + j)}, AssetID: o.AssetID, Out: o.Out}
				id := u.InputID()
				traits := make([][]byte, len(o.Out.Addrs))
				for k, a := range o.Out.Addrs {
					traits[k] = append([]byte{}, a[:]...)
				}
				r.Puts = append(r.Puts, host.SharedElement{Key: id[:], Value: u.Bytes(), Traits: traits})
			}
		}
		for asset, v := range p.burned {
			m.Burned[asset] += v
		}
		rec := txRecord{Container: container, At: at, Position: m.TxCount, Bytes: t.Bytes()}
		ops = append(ops,
			host.Op{Key: txKey(txID), Value: rec.encode()},
			host.Op{Key: txAtKey(m.TxCount), Value: txID[:]})
		m.TxCount++
		txEntries = append(txEntries, host.NewContainer{Kind: KindTx, ID: txID, Bytes: t.Bytes()})
	}
	if m.Linearized {
		blk := blocks.NewBlock(m.LastBlockID, m.Height+1, max(uint64(now.Unix()), m.BlockTime), list)
		m.Height, m.LastBlockID, m.BlockTime = blk.Height, blk.ID(), blk.Time
		ops = append(ops,
			host.Op{Key: blockKey(blk.Height), Value: blk.Bytes()},
			host.Op{Key: blockIDKey(blk.ID()), Value: u64(blk.Height)})
		containers = append(containers, host.NewContainer{Kind: KindBlock, ID: blk.ID(), Bytes: blk.Bytes()})
	} else {
		raw := make([][]byte, len(list))
		for i, t := range list {
			raw[i] = t.Bytes()
		}
		v := blocks.NewVertex(vm.env.ChainID, vm.nextVertexHeight(&m), vm.vertexParents(&m), raw)
		ops = vm.addVertex(ops, &m, v, now)
		containers = append(containers, host.NewContainer{Kind: KindVertex, ID: v.ID(), Bytes: v.Bytes()})
		if m.VtxCount == m.LinearizationHeight {
			// The last vertex: the stop vertex follows it in the same
			// write, then the first block, whose parent it is.
			stop := blocks.NewStopVertex(vm.env.ChainID, m.VtxHeight+1, []ids.ID{m.LastVtxID})
			ops = vm.addVertex(ops, &m, stop, now)
			containers = append(containers, host.NewContainer{Kind: KindVertex, ID: stop.ID(), Bytes: stop.Bytes()})
			ops = vm.linearize(ops, &m, stop.ID(), uint64(now.Unix()))
		}
	}
	ops = append(ops, m.op())
	containers = append(containers, txEntries...)
	ab := host.AcceptBatch{Containers: containers, State: ops}
	for _, peer := range peers {
		ab.SharedMemory = append(ab.SharedMemory, *shared[peer])
	}
	_, err := vm.index.AcceptBatch(ctx, ab)
	if err != nil {
		// The write may have happened with its answer lost: the stored
		// state says.
		stored, found, rerr := readMeta(ctx, vm.db)
		if rerr != nil || !found {
			vm.stale = true // read it again before the next append
			return fmt.Errorf("accept %d transactions: %w", len(batch), err)
		}
		if stored.TxCount != m.TxCount || stored.LastBlockID != m.LastBlockID || stored.LastVtxID != m.LastVtxID {
			return fmt.Errorf("accept %d transactions: %w", len(batch), err)
		}
		vm.env.Logger.Info("the host's answer to an append was lost, but the append happened", "error", err)
	}
	vm.meta = m
	vm.env.Logger.Debug("accepted", "container", string(container), "at", at, "txs", len(batch))
	return nil
}

// nextVertexHeight is the height of the next vertex: 0 for the first,
// else one more than the last.
func (vm *VM) nextVertexHeight(m *meta) uint64 {
	if m.VtxCount == 0 {
		return 0
	}
	return m.VtxHeight + 1
}

// vertexParents are the parents of the next vertex: the last one (a
// single node's DAG is a line), none for the first.
func (vm *VM) vertexParents(m *meta) []ids.ID {
	if m.VtxCount == 0 {
		return nil
	}
	return []ids.ID{m.LastVtxID}
}

// addVertex adds the writes of an accepted vertex to ops and m.
func (vm *VM) addVertex(ops []host.Op, m *meta, v *blocks.Vertex, now time.Time) []host.Op {
	rec := vertexRecord{Time: now.UnixNano(), Bytes: v.Bytes()}
	ops = append(ops,
		host.Op{Key: vertexKey(m.VtxCount), Value: rec.encode()},
		host.Op{Key: vertexIDKey(v.ID()), Value: u64(m.VtxCount)})
	m.VtxCount++
	m.LastVtxID, m.VtxHeight = v.ID(), v.Height
	return ops
}
