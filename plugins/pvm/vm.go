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
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// VMName is the name the P-Chain VM describes itself with.
const VMName = pvmapi.VMName

// kindBlock is the one index kind the VM reports: its blocks.
const kindBlock = "block"

// VM is the P-Chain VM.
type VM struct {
	env     *sdk.Env
	cfg     config
	db      db
	index   host.BatchIndex
	hrp     string
	txCtx   txs.Context
	genesis *genesisState
	// wall is the wall clock; tests replace it.
	wall func() time.Time

	// mu guards what follows and serialises verification with
	// acceptance. state is replaced, never changed, so a reader may keep
	// the pointer it read under mu.
	mu         sync.Mutex
	state      *chainState
	stale      bool // state may be behind the database: load it again
	clock      clockState
	pool       *mempool
	nodeChains []ids.ID // chains of the node met so far (the source of Warp messages)

	wake chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
}

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
	bi, ok := env.Host.Index.(host.BatchIndex)
	if !ok {
		return errors.New("pvm needs a host with atomic batches")
	}
	vm.env, vm.cfg, vm.db, vm.index, vm.genesis = env, cfg, db{env.Host.DB}, bi, g
	vm.hrp = avax.HRP(env.NetworkID)
	// Wallets name avalanchego's P-Chain ID (the zero ID) in their
	// transactions; those that ask the node name this chain's ID.
	vm.txCtx = txs.Context{NetworkID: env.NetworkID, ChainIDs: []ids.ID{{}, env.ChainID}, AVAXAssetID: g.assetID}
	vm.pool = newMempool()

	s, found, err := loadState(ctx, vm.db)
	if err != nil {
		return err
	}
	if !found {
		if s, err = vm.writeGenesis(ctx); err != nil {
			return err
		}
	}
	vm.state = s
	if _, err := readJSON(ctx, vm.db, []byte(keyClock), &vm.clock); err != nil {
		return fmt.Errorf("read the clock: %w", err)
	}
	vm.wake = make(chan struct{}, 1)
	vm.stop = make(chan struct{})
	vm.wg.Add(1)
	go vm.buildLoop()
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
		ops = append(ops, jsonOp(stakerKey(st.TxID), st),
			host.Op{Key: txKey(t.ID()), Value: txRecord{Height: genesisHeight, Bytes: t.Bytes()}.encode()})
	}
	ops = append(ops,
		host.Op{Key: blockKey(0), Value: blk.Bytes()},
		host.Op{Key: blockIDKey(blk.ID()), Value: u64(0)},
		jsonOp(totalsKey(0), s.totals()),
		jsonOp([]byte(keyMeta), s.meta))
	if err := vm.db.Write(ctx, ops, true); err != nil {
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

// Shutdown stops the builder; transactions still waiting fail.
func (vm *VM) Shutdown(context.Context) error {
	if vm.stop == nil {
		return nil
	}
	close(vm.stop)
	vm.wg.Wait()
	vm.mu.Lock()
	defer vm.mu.Unlock()
	for _, p := range vm.pool.order {
		p.finish(errors.New("the chain is shutting down; issue the transaction again"))
	}
	vm.pool = newMempool()
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
	m, _, err := readMeta(ctx, vm.db)
	return m.Height, err
}

// GetAccepted returns the block at height position+1 (the genesis block,
// height 0, is not indexed).
func (vm *VM) GetAccepted(ctx context.Context, kind string, pos uint64) (host.Container, error) {
	if kind != kindBlock {
		return host.Container{}, fmt.Errorf("pvm has no index kind %q: %w", kind, host.ErrNotFound)
	}
	b, err := vm.db.block(ctx, pos+1)
	if err != nil {
		return host.Container{}, err
	}
	return host.Container{ID: b.ID(), Bytes: b.Bytes()}, nil
}

// HealthDetails reports the chain's progress in the node's health report.
func (vm *VM) HealthDetails(context.Context) map[string]any {
	vm.mu.Lock()
	defer vm.mu.Unlock()
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
		"mempool":            len(vm.pool.order),
		"stakers":            len(vm.state.stakers),
		"activeL1Validators": active,
	}
}

// pending is a transaction waiting in the mempool.
type pending struct {
	tx     *txs.Tx
	spends []ids.ID // the UTXOs it spends
	done   chan struct{}
	err    error // set before done is closed
}

func (p *pending) finish(err error) {
	p.err = err
	close(p.done)
}

// mempool is the transactions waiting for a block, in arrival order, and
// the UTXOs they spend.
type mempool struct {
	order []*pending
	byID  map[ids.ID]*pending
	spent map[ids.ID]ids.ID // UTXO ID -> the pending tx spending it
}

func newMempool() *mempool {
	return &mempool{byID: map[ids.ID]*pending{}, spent: map[ids.ID]ids.ID{}}
}

func (mp *mempool) add(p *pending) {
	mp.order = append(mp.order, p)
	mp.byID[p.tx.ID()] = p
	for _, u := range p.spends {
		mp.spent[u] = p.tx.ID()
	}
}

func (mp *mempool) remove(list []*pending) {
	gone := map[ids.ID]bool{}
	for _, p := range list {
		gone[p.tx.ID()] = true
		delete(mp.byID, p.tx.ID())
		for _, u := range p.spends {
			delete(mp.spent, u)
		}
	}
	mp.order = slices.DeleteFunc(mp.order, func(p *pending) bool { return gone[p.tx.ID()] })
}
