// Package pvm is the P-Chain VM (docs/pchain.md): avalanchego's platform
// chain for a one-node network. Its transactions and blocks are
// avalanchego's bytes; it keeps the primary network's validators and
// delegators, subnets and L1 validators with their continuous fee, moves
// its clock with wall time (or a dev method), and makes a block whenever a
// transaction waits or the validator set changes by itself. It keeps its
// state in the host's database and commits every block with its index
// entry in one atomic host write.
package pvm

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// VMName is the name the P-Chain VM describes itself with.
const VMName = pvmapi.VMName

// kindBlock is the one index kind the VM reports: its blocks.
const kindBlock = utxovm.BlockKind

// VM is the P-Chain VM: the UTXO VMs' core, and the P-Chain's stakers,
// subnets, L1 validators and clock.
type VM struct {
	utxovm.Core[txs.Unsigned, struct{}]
	cfg     config
	txCtx   txs.Context
	genesis *genesisState
	// wall is the wall clock; tests replace it.
	wall func() time.Time

	// Guarded by Mu. state is replaced, never changed, so a reader may
	// keep the pointer it read under Mu.
	state      *chainState
	clock      clockState
	nodeChains []ids.ID // chains of the node met so far (the source of Warp messages)
}

// pending is a transaction waiting in the mempool.
type pending = utxovm.Pending[txs.Unsigned, struct{}]

// New returns an uninitialized VM.
func New() *VM { return &VM{wall: time.Now} }

// Initialize reads the config and genesis, writes the genesis state on a
// new chain, and starts the block builder.
func (vm *VM) Initialize(ctx context.Context, env *sdk.Env) error {
	cfg, err := parseConfig(env.Config)
	if err != nil {
		return err
	}
	g, err := parseGenesis(env.Genesis, env.NetworkID)
	if err != nil {
		return err
	}
	err = vm.Init(VMName, env, cfg.Config, blocks.Format, utxovm.Rules[txs.Unsigned, struct{}]{
		ParseTx: txs.Parse, Check: vm.checkLocked, Build: vm.build, StoredTx: vm.storedTx,
		LastHeight: vm.lastHeight, AcceptedCount: vm.AcceptedCount, SourceChain: vm.NodeChain, Accepted: "Committed",
		TxJSON:    func(t *txs.Tx) any { return vm.txJSON(t) },
		BlockJSON: func(b *blocks.Block) any { return vm.blockJSON(b) },
	})
	if err != nil {
		return err
	}
	vm.cfg, vm.genesis = cfg, g
	vm.txCtx = txs.Context{NetworkID: env.NetworkID, ChainID: env.ChainID, AVAXAssetID: g.assetID}

	s, found, err := loadState(ctx, vm.Store)
	if err != nil {
		return err
	}
	if !found {
		if s, err = vm.writeGenesis(ctx); err != nil {
			return err
		}
	}
	vm.state = s
	if _, err := vm.Store.ReadJSON(ctx, []byte(keyClock), &vm.clock); err != nil {
		return fmt.Errorf("read the clock: %w", err)
	}
	vm.Start()
	env.Logger.Info("P-Chain VM ready", "chain", env.ChainID, "height", s.Height, "time", time.Unix(int64(s.Time), 0).UTC(),
		"clock", cfg.Clock, "stakers", len(s.stakers), "l1Validators", len(s.l1))
	return nil
}

// writeGenesis stores the genesis UTXOs, the genesis validators and their
// transactions, and the genesis block (height 0, not indexed), in one
// write.
func (vm *VM) writeGenesis(ctx context.Context) (*chainState, error) {
	g := vm.genesis
	blk := blocks.New(g.time, g.blockParent, 0, nil)
	s := newChainState(meta{LastBlockID: blk.ID(), Time: g.time, GenesisTime: g.time})
	var ops []host.Op
	for _, u := range g.utxos {
		ops = utxostore.Put(ops, u)
	}
	for _, t := range g.validators {
		var (
			v     txs.Validator
			stake []avax.TransferableOutput
			pk    []byte
		)
		switch u := t.Unsigned.(type) {
		case *txs.AddValidatorTx:
			v, stake = u.Validator, u.StakeOuts
		case *txs.AddPermissionlessValidatorTx:
			v, stake, pk = u.Validator, u.StakeOuts, u.Signer.PublicKey[:]
		}
		st := &staker{TxID: t.ID(), NodeID: v.NodeID, Start: v.Start, End: v.End, Weight: v.Weight, Current: true, PublicKey: pk}
		for i, o := range stake {
			u := avax.UTXO{UTXOID: avax.UTXOID{TxID: t.ID(), OutputIndex: uint32(i)}, AssetID: o.AssetID, Out: o.Out}
			st.Stake = append(st.Stake, u.Bytes())
		}
		s.stakers[st.TxID] = st
		ops = append(ops, utxovm.JSONOp(stakerKey(st.TxID), st),
			host.Op{Key: utxovm.TxKey(t.ID()), Value: txRecord{Height: genesisHeight, Bytes: t.Bytes()}.encode()})
	}
	ops = append(append(ops, utxovm.BlockOps(blk.ID(), 0, blk.Bytes())...),
		utxovm.JSONOp(totalsKey(0), s.totals()),
		utxovm.JSONOp([]byte(utxovm.KeyMeta), s.meta))
	if err := vm.Store.Write(ctx, ops, true); err != nil {
		return nil, fmt.Errorf("write genesis state: %w", err)
	}
	return s, nil
}

// Handlers serves the API at /ext/bc/<chain> (the handler named "") and
// the same methods at /ext/bc/<chain>/platform.
func (vm *VM) Handlers() map[string]http.Handler {
	s := vm.newServer()
	return map[string]http.Handler{"": s, "platform": s}
}

// InternalHandlers serves the read methods other plugins call (the
// metrics module's staking and fee series), never public over HTTP.
func (vm *VM) InternalHandlers() map[string]http.Handler {
	return map[string]http.Handler{pvmapi.IndexerHandler: vm.newIndexerServer()}
}

// UnsafeAPIs declares the dev methods that move the clock
// (pvm.increaseTime, pvm.setTime) unsafe in public when the chain config
// turns them on: the node serves them beyond loopback only with the
// operator's leave.
func (vm *VM) UnsafeAPIs() []string {
	if vm.cfg.DevAPIEnabled {
		return []string{sdk.UnsafeAPIDev}
	}
	return nil
}

// IndexKinds are the kinds the VM reports: its blocks.
func (vm *VM) IndexKinds() []string { return []string{kindBlock} }

// AcceptedCount reads the count of blocks (from height 1) from the stored
// state, without the VM's lock (the host calls it while the VM may wait
// on an append).
func (vm *VM) AcceptedCount(ctx context.Context, kind string) (uint64, error) {
	if kind != kindBlock {
		return 0, fmt.Errorf("pvm has no index kind %q", kind)
	}
	var m meta
	_, err := vm.Store.ReadMeta(ctx, &m)
	return m.Height, err
}

// GetAccepted returns the block at height position+1 (the genesis block,
// height 0, is not indexed).
func (vm *VM) GetAccepted(ctx context.Context, kind string, pos uint64) (host.Container, error) {
	if kind != kindBlock {
		return host.Container{}, fmt.Errorf("pvm has no index kind %q: %w", kind, host.ErrNotFound)
	}
	return vm.AcceptedBlock(ctx, pos)
}

// HealthDetails reports the chain's progress in the node's health report.
func (vm *VM) HealthDetails(context.Context) map[string]any {
	vm.Mu.Lock()
	defer vm.Mu.Unlock()
	active := 0
	for _, v := range vm.state.l1 {
		if v.Active {
			active++
		}
	}
	return map[string]any{
		"height":             vm.state.Height,
		"time":               vm.state.Time,
		"transactions":       vm.state.TxCount,
		"burned":             vm.state.Burned,
		"l1FeesPaid":         vm.state.L1FeesPaid,
		"mempool":            vm.Pool.Len(),
		"stakers":            len(vm.state.stakers),
		"activeL1Validators": active,
	}
}
