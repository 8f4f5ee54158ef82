package xvm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// acceptRetries is how many times an append that failed for a reason that
// may pass (the host backfilling its index) is tried again.
const acceptRetries = 8

// build makes a block (or vertex) of the waiting transactions until none
// waits; the builder sleeps until the next one arrives.
func (vm *VM) build() time.Duration {
	for vm.buildOne() {
	}
	return utxovm.UntilWoken
}

// buildOne accepts one container of waiting transactions and reports
// whether more wait.
func (vm *VM) buildOne() bool {
	vm.Mu.Lock()
	defer vm.Mu.Unlock()
	if vm.Pool.Len() == 0 {
		return false
	}
	limit := vm.cfg.MaxBlockTxs
	if !vm.meta.Linearized {
		limit = min(limit, blocks.MaxVertexTxs)
	}
	batch := vm.Pool.Batch(limit)
	var err error
	for try := 0; ; try++ {
		if try > 0 {
			// A failed append may have happened all the same (its answer
			// lost): its transactions are stored then, and done.
			batch = vm.dropAcceptedLocked(batch)
			if len(batch) == 0 {
				return vm.Pool.Len() > 0
			}
		}
		err = vm.acceptLocked(batch)
		if err == nil || try == acceptRetries || !utxovm.Retryable(err) {
			break
		}
		vm.Mu.Unlock()
		running := vm.Sleep(time.Duration(25<<min(try, 5)) * time.Millisecond)
		vm.Mu.Lock()
		if !running {
			return false
		}
	}
	vm.Pool.Finish(batch, err)
	if err != nil {
		vm.Env.Logger.Warn("transactions failed to be accepted", "txs", len(batch), "error", err)
	}
	return vm.Pool.Len() > 0
}

// dropAcceptedLocked finishes, and takes out of the mempool and of batch,
// the transactions of batch that the stored state holds. Mu is held.
func (vm *VM) dropAcceptedLocked(batch []*pending) []*pending {
	ctx, cancel := context.WithTimeout(context.Background(), utxovm.AcceptTimeout)
	defer cancel()
	var done []*pending
	left := batch[:0]
	for _, p := range batch {
		if stored, err := vm.Store.Has(ctx, utxovm.TxKey(p.Tx.ID())); err == nil && stored {
			done = append(done, p)
		} else {
			left = append(left, p)
		}
	}
	vm.Pool.Finish(done, nil)
	return left
}

// acceptLocked builds the container of batch (a vertex before
// linearization, a block after), and has the host append it, its
// transactions, the state they change and their shared-memory requests in
// one atomic write. When the host's answer is lost, the stored state says
// whether the write happened. Mu is held.
func (vm *VM) acceptLocked(batch []*pending) error {
	if err := vm.Stopping(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), utxovm.AcceptTimeout)
	defer cancel()
	if vm.Stale {
		// The outcome of an earlier append is unknown: start from the
		// stored state.
		stored, _, err := vm.readMeta(ctx)
		if err != nil {
			return err
		}
		vm.meta, vm.Stale = stored, false
	}
	m := vm.meta.clone()
	now := vm.now()
	if !m.Linearized {
		// A vertex holds its transactions sorted by hash; they go to the
		// index in that order.
		slices.SortFunc(batch, func(a, b *pending) int {
			ha, hb := sha256.Sum256(a.Tx.Bytes()), sha256.Sum256(b.Tx.Bytes())
			return bytes.Compare(ha[:], hb[:])
		})
	}
	var (
		ops        []host.Op
		containers []host.NewContainer
		txEntries  []host.NewContainer
		shared     host.SharedBatch
	)
	container, at := byte(containerBlock), m.Height+1
	if !m.Linearized {
		container, at = containerVertex, m.VtxCount
	}
	list := make([]*txs.Tx, len(batch))
	for i, p := range batch {
		t := p.Tx
		list[i] = t
		txID := t.ID()
		for _, u := range p.Info.spends {
			ops = utxostore.Spend(ops, u, txID)
		}
		for _, id := range p.Imports {
			shared.Remove(p.Info.peer, id[:])
		}
		base := t.Unsigned.Base()
		for j, o := range base.Outs {
			ops = utxostore.Put(ops, avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: uint32(j)}, AssetID: o.AssetID, Out: o.Out})
		}
		switch u := t.Unsigned.(type) {
		case *txs.ExportTx:
			for j, o := range u.ExportedOuts {
				utxovm.Export(&shared, p.Info.peer, avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: uint32(len(base.Outs) + j)}, AssetID: o.AssetID, Out: o.Out})
			}
		case *txs.CreateAssetTx:
			for _, o := range u.UTXOs(txID, txID) {
				ops = utxostore.Put(ops, o)
			}
		}
		for asset, v := range p.Info.burned {
			m.Burned[asset] += v
		}
		rec := txRecord{Container: container, At: at, Position: m.TxCount, Bytes: t.Bytes()}
		ops = append(ops,
			host.Op{Key: utxovm.TxKey(txID), Value: rec.encode()},
			host.Op{Key: txAtKey(m.TxCount), Value: txID[:]})
		m.TxCount++
		txEntries = append(txEntries, host.NewContainer{Kind: KindTx, ID: txID, Bytes: t.Bytes()})
	}
	if m.Linearized {
		blk := blocks.NewBlock(m.LastBlockID, m.Height+1, max(uint64(now.Unix()), m.BlockTime), list)
		m.Height, m.LastBlockID, m.BlockTime = blk.Height, blk.ID(), blk.Time
		ops = append(ops, utxovm.BlockOps(blk.ID(), blk.Height, blk.Bytes())...)
		containers = append(containers, host.NewContainer{Kind: KindBlock, ID: blk.ID(), Bytes: blk.Bytes()})
	} else {
		raw := make([][]byte, len(list))
		for i, t := range list {
			raw[i] = t.Bytes()
		}
		v := blocks.NewVertex(vm.Env.ChainID, vm.nextVertexHeight(&m), vm.vertexParents(&m), raw)
		ops = vm.addVertex(ops, &m, v, now)
		containers = append(containers, host.NewContainer{Kind: KindVertex, ID: v.ID(), Bytes: v.Bytes()})
		if m.VtxCount == m.LinearizationHeight {
			// The last vertex: the stop vertex follows it in the same
			// write, then the first block, whose parent it is.
			stop := blocks.NewStopVertex(vm.Env.ChainID, m.VtxHeight+1, []ids.ID{m.LastVtxID})
			ops = vm.addVertex(ops, &m, stop, now)
			containers = append(containers, host.NewContainer{Kind: KindVertex, ID: stop.ID(), Bytes: stop.Bytes()})
			ops = vm.linearize(ops, &m, stop.ID(), uint64(now.Unix()))
		}
	}
	ops = append(ops, utxovm.JSONOp([]byte(utxovm.KeyMeta), m))
	containers = append(containers, txEntries...)
	ab := host.AcceptBatch{Containers: containers, State: ops, SharedMemory: shared.Requests()}
	err := vm.AppendLocked(ctx, ab, func(ctx context.Context) (bool, error) {
		stored, found, err := vm.readMeta(ctx)
		return found && stored.TxCount == m.TxCount && stored.LastBlockID == m.LastBlockID && stored.LastVtxID == m.LastVtxID, err
	})
	if err != nil {
		return fmt.Errorf("accept %d transactions: %w", len(batch), err)
	}
	vm.meta = m
	vm.Env.Logger.Debug("accepted", "container", string(container), "at", at, "txs", len(batch))
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
		host.Op{Key: vertexIDKey(v.ID()), Value: utxovm.U64(m.VtxCount)})
	m.VtxCount++
	m.LastVtxID, m.VtxHeight = v.ID(), v.Height
	return ops
}
