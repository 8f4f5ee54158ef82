// Package xvm is the X-Chain VM (docs/xvm.md): a UTXO chain whose
// transactions, UTXOs, blocks and vertices are avalanchego's bytes, so that
// avalanchego's and avalanchejs's wallets work with it unchanged. It keeps
// its state in the host's database and commits every block (or vertex)
// with its transactions, its index entries and its shared-memory puts and
// removes in one atomic host write.
package xvm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// VMName is the name the X-Chain VM describes itself with.
const VMName = xvmapi.VMName

// The index kinds the VM reports.
const (
	KindTx     = "tx"
	KindBlock  = utxovm.BlockKind
	KindVertex = "vtx"
)

// VM is the X-Chain VM: the UTXO VMs' core, and the X-Chain's assets,
// vertices and atomic transactions.
type VM struct {
	utxovm.Core[txs.Unsigned, checked]
	cfg    config
	shared host.SharedMemory
	txCtx  txs.Context
	// assets are the genesis assets; the first pays the fees. The assets
	// CreateAssetTxs made are read from their stored transactions
	// (vm.asset).
	assets       []asset
	assetByID    map[ids.ID]*asset
	assetByAlias map[string]ids.ID
	now          func() time.Time

	// Guarded by Mu.
	meta   meta
	chains map[ids.ID]bool // peer chains found in the registry
}

// pending is a transaction waiting in the mempool.
type pending = utxovm.Pending[txs.Unsigned, checked]

// New returns an uninitialized VM.
func New() *VM { return &VM{now: time.Now} }

// Initialize reads the config and genesis, writes the genesis state on a
// new chain, and starts the block builder.
func (vm *VM) Initialize(ctx context.Context, env *sdk.Env) error {
	cfg, err := parseConfig(env.Config)
	if err != nil {
		return err
	}
	_, assets, err := parseGenesis(env.Genesis, env.NetworkID)
	if err != nil {
		return err
	}
	if env.Host.SharedMemory == nil {
		return errors.New("xvm needs a host with shared memory (docs/shared-memory.md)")
	}
	// A host built before shared memory answers ErrUnsupported: say so now
	// rather than at the first block.
	if _, err := env.Host.SharedMemory.Get(ctx, env.ChainID, nil); errors.Is(err, host.ErrUnsupported) {
		return fmt.Errorf("xvm needs a host with shared memory (docs/shared-memory.md): %w", err)
	}
	err = vm.Init(VMName, env, cfg.Config, blocks.Format, utxovm.Rules[txs.Unsigned, checked]{
		ParseTx: txs.Parse, Check: vm.checkLocked, Build: vm.build, StoredTx: vm.storedTx,
		LastHeight: vm.lastHeight, AcceptedCount: vm.AcceptedCount, SourceChain: vm.NodeChain, Accepted: "Accepted",
		TxJSON:    func(t *txs.Tx) any { return vm.txJSON(t) },
		BlockJSON: func(b *blocks.Block) any { return vm.blockJSON(b) },
	})
	if err != nil {
		return err
	}
	vm.cfg, vm.shared = cfg, env.Host.SharedMemory
	vm.assets = assets
	vm.assetByID = map[ids.ID]*asset{}
	vm.assetByAlias = map[string]ids.ID{}
	for i := range vm.assets {
		a := &vm.assets[i]
		vm.assetByID[a.ID()] = a
		vm.assetByAlias[a.alias] = a.ID()
	}
	vm.txCtx = txs.Context{NetworkID: env.NetworkID, ChainID: env.ChainID, FeeAssetID: assets[0].ID(),
		TxFee: uint64(cfg.TxFee), CreateAssetTxFee: uint64(cfg.CreateAssetTxFee)}
	vm.chains = map[ids.ID]bool{}

	m, found, err := vm.readMeta(ctx)
	if err != nil {
		return err
	}
	if !found {
		if m, err = vm.writeGenesis(ctx, env.Genesis); err != nil {
			return err
		}
	} else if m.LinearizationHeight != uint64(cfg.LinearizationHeight) {
		return fmt.Errorf("xvm chain config: linearization-height is %d, but the chain was started with %d; it cannot change",
			cfg.LinearizationHeight, m.LinearizationHeight)
	}
	vm.meta = m
	vm.Start()
	env.Logger.Info("X-Chain VM ready", "chain", env.ChainID, "feeAsset", vm.txCtx.FeeAssetID,
		"linearized", m.Linearized, "height", m.Height, "vertices", m.VtxCount, "txs", m.TxCount)
	return nil
}

// writeGenesis stores the genesis assets, their UTXOs and, on a chain
// without a vertex phase, the first block (height 0), in one write.
func (vm *VM) writeGenesis(ctx context.Context, raw []byte) (meta, error) {
	g, _, err := parseGenesis(raw, vm.Env.NetworkID)
	if err != nil {
		return meta{}, err
	}
	m := meta{LinearizationHeight: uint64(vm.cfg.LinearizationHeight), Burned: map[ids.ID]uint64{}}
	var ops []host.Op
	for _, a := range vm.assets {
		rec := txRecord{Container: containerGenesis, Position: noTxPosition, Bytes: a.tx.Bytes()}
		ops = append(ops, host.Op{Key: utxovm.TxKey(a.ID()), Value: rec.encode()})
		for _, u := range genesisUTXOs(a) {
			ops = utxostore.Put(ops, u)
		}
	}
	if m.LinearizationHeight == 0 {
		ops = vm.linearize(ops, &m, ids.ID{}, uint64(g.Timestamp))
	}
	ops = append(ops, utxovm.JSONOp([]byte(utxovm.KeyMeta), m))
	if err := vm.Store.Write(ctx, ops, true); err != nil {
		return meta{}, fmt.Errorf("write genesis state: %w", err)
	}
	return m, nil
}

// linearize adds the chain's first block (height 0, no transactions, the
// stop vertex or nothing as its parent) to ops and m.
func (vm *VM) linearize(ops []host.Op, m *meta, parent ids.ID, time uint64) []host.Op {
	blk := blocks.NewBlock(parent, 0, time, nil)
	m.Linearized = true
	m.Height, m.LastBlockID, m.BlockTime = 0, blk.ID(), time
	return append(ops, utxovm.BlockOps(blk.ID(), 0, blk.Bytes())...)
}

// Handlers serves the API at /ext/bc/<chain> (the handler named ""), and
// the same methods at /ext/bc/<chain>/native and /ext/bc/<chain>/avax.
func (vm *VM) Handlers() map[string]http.Handler {
	s := vm.newServer()
	return map[string]http.Handler{"": s, "native": s, "avax": s}
}

// InternalHandlers serves the indexer methods other plugins call (the data
// API's vertices), never public.
func (vm *VM) InternalHandlers() map[string]http.Handler {
	return map[string]http.Handler{xvmapi.IndexerHandler: vm.newIndexerServer()}
}

// IndexKinds are the kinds the VM reports: transactions and blocks, and
// vertices when the chain has a vertex phase.
func (vm *VM) IndexKinds() []string {
	if vm.cfg.LinearizationHeight > 0 {
		return []string{KindTx, KindVertex, KindBlock}
	}
	return []string{KindTx, KindBlock}
}

// AcceptedCount reads the count of kind from the stored state, without the
// VM's lock (the host calls it while the VM may wait on an append).
func (vm *VM) AcceptedCount(ctx context.Context, kind string) (uint64, error) {
	m, _, err := vm.readMeta(ctx)
	if err != nil {
		return 0, err
	}
	switch kind {
	case KindTx:
		return m.TxCount, nil
	case KindVertex:
		return m.VtxCount, nil
	case KindBlock:
		if !m.Linearized {
			return 0, nil
		}
		return m.Height, nil
	}
	return 0, fmt.Errorf("xvm has no index kind %q", kind)
}

// GetAccepted returns the container of kind at a position: the
// transaction, the vertex, or the block at height position+1 (the first
// block, height 0, is not indexed).
func (vm *VM) GetAccepted(ctx context.Context, kind string, pos uint64) (host.Container, error) {
	switch kind {
	case KindTx:
		id, err := vm.txAt(ctx, pos)
		if err != nil {
			return host.Container{}, err
		}
		r, found, err := vm.txRecord(ctx, id)
		if err != nil {
			return host.Container{}, err
		}
		if !found {
			return host.Container{}, fmt.Errorf("tx %s at %d: %w", id, pos, host.ErrNotFound)
		}
		return host.Container{ID: id, Bytes: r.Bytes}, nil
	case KindVertex:
		v, _, err := vm.vertex(ctx, pos)
		if err != nil {
			return host.Container{}, err
		}
		return host.Container{ID: v.ID(), Bytes: v.Bytes()}, nil
	case KindBlock:
		return vm.AcceptedBlock(ctx, pos)
	}
	return host.Container{}, fmt.Errorf("xvm has no index kind %q: %w", kind, host.ErrNotFound)
}

// HealthDetails reports the chain's progress in the node's health report.
func (vm *VM) HealthDetails(context.Context) map[string]any {
	vm.Mu.Lock()
	defer vm.Mu.Unlock()
	d := map[string]any{
		"linearized":   vm.meta.Linearized,
		"transactions": vm.meta.TxCount,
		"mempool":      vm.Pool.Len(),
	}
	if vm.meta.Linearized {
		d["height"] = vm.meta.Height
	}
	if vm.meta.VtxCount > 0 {
		d["vertices"] = vm.meta.VtxCount
	}
	return d
}
