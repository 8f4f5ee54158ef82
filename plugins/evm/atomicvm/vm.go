// Package atomicvm is an EVM chain's side of atomic transactions
// (docs/evm.md, "Atomic transactions"): the imports and exports of
// plugins/evm/atomic between the chain and the node's other chains,
// through the host's shared memory. It checks the transactions issued
// (the chain-native API, api.go), keeps those waiting, gives the block
// builder those that still apply, records each block's batch (Store) so
// that every execution of the block applies them (Processor), and tells
// the index their shared-memory operations when the block is reported.
package atomicvm

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/hashicorp/go-hclog"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/chainhost/chainhost/avax"
	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Limits of the atomic mempool and of a block's atomic transactions.
const (
	maxAtomicPool      = 4096
	maxAtomicPerBlock  = 256
	maxDroppedRemember = 4096
)

// avaxAssetChain is the chain asked for the AVAX asset when the chain
// config does not name it, as avalanchego's wallets ask it.
const avaxAssetChain = "X"

// ErrRejected is matched by the error of an atomic transaction the chain
// refuses.
var ErrRejected = errors.New("atomic tx rejected")

// rejected returns an error matching ErrRejected that says why.
func rejected(id ids.ID, format string, args ...any) error {
	return fmt.Errorf("%w: tx %s: %s", ErrRejected, id, fmt.Sprintf(format, args...))
}

// errNoSharedMemory answers the atomic API on a host that offers no shared
// memory.
var errNoSharedMemory = errors.New("this node offers the chain no shared memory: atomic transactions are not available")

// Statuses of atomic transactions, coreth's.
const (
	statusAccepted   = "Accepted"
	statusProcessing = "Processing"
	statusDropped    = "Dropped"
	statusUnknown    = "Unknown"
)

// Chain is what the atomic VM reads of the EVM chain (go-ethereum's
// *core.BlockChain): its rules, its head and the head's state, and its
// blocks by number (to list a block's atomic transactions).
type Chain interface {
	Config() *params.ChainConfig
	CurrentBlock() *types.Header
	StateAt(root common.Hash, number *big.Int, time uint64) (*state.StateDB, error)
	GetBlockByNumber(number uint64) *types.Block
}

// Fee is the fee rule of atomic transactions: coreth's dynamic fee
// (Dynamic), or Fixed nAVAX per transaction.
type Fee struct {
	Dynamic bool
	Fixed   uint64
}

// Options configures a VM.
type Options struct {
	// Store keeps the atomic transactions of the chain's blocks; the
	// chain's Processor reads it too.
	Store *Store
	Chain Chain
	Fee   Fee
	// AVAXAsset is the ID of the asset atomic transactions move; zero
	// asks the chain aliased X for it when first needed.
	AVAXAsset ids.ID
	// NotProducing, on a chain that builds no block, is the error an
	// issued transaction gets; nil on a chain that builds blocks.
	NotProducing error
	// Wake tells the block producer that transactions wait.
	Wake func()
}

// VM is the chain's side of atomic transactions: it checks the
// transactions issued, keeps those waiting, gives the builder those that
// still apply to each block, and tracks them until the block that holds
// them is reported to the index with their shared-memory operations.
type VM struct {
	env    *sdk.Env
	opts   Options
	shared host.SharedMemory
	hrp    string
	log    hclog.Logger

	mu    sync.Mutex
	asset ids.ID // the AVAX asset, once known
	pool  []*atx.Tx
	// waiting holds the transactions of the pool and of the blocks built
	// but not reported, by ID: the height of their block, 0 in the pool.
	waiting map[ids.ID]uint64
	// spending maps each input of a waiting transaction to it.
	spending map[ids.ID]ids.ID
	// dropped remembers the transactions left out of a block because they
	// met a conflict after they were issued.
	dropped *lru.Cache[ids.ID, *atx.Tx]
}

// New returns the atomic side of the chain env runs; shared memory and
// batch appends are the host's (an older host offers neither: every
// atomic request then fails, saying so).
func New(env *sdk.Env, opts Options) *VM {
	dropped, _ := lru.New[ids.ID, *atx.Tx](maxDroppedRemember)
	a := &VM{env: env, opts: opts, shared: env.Host.SharedMemory,
		hrp: avax.HRP(env.NetworkID), log: env.Logger, asset: opts.AVAXAsset,
		waiting: map[ids.ID]uint64{}, spending: map[ids.ID]ids.ID{}, dropped: dropped}
	if _, ok := env.Host.Index.(host.BatchIndex); !ok {
		a.shared = nil // its shared-memory operations could not be written
	}
	return a
}

// available reports why the atomic API cannot serve, nil when it can.
func (a *VM) available() error {
	if a.shared == nil {
		return errNoSharedMemory
	}
	return nil
}

// avaxAsset returns the AVAX asset's ID: the chain config's, or the one
// the X-Chain names (avm.getAssetDescription of AVAX), asked once.
func (a *VM) avaxAsset(ctx context.Context) (ids.ID, error) {
	a.mu.Lock()
	asset := a.asset
	a.mu.Unlock()
	if asset != (ids.ID{}) {
		return asset, nil
	}
	if a.env.Host.Calls == nil {
		return ids.ID{}, errors.New("the AVAX asset is unknown: set avax-asset-id in the chain config")
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"avm.getAssetDescription","params":{"assetID":"AVAX"}}`)
	status, resp, err := a.env.Host.Calls.Call(ctx, avaxAssetChain, "", body)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d", status)
	}
	var out struct {
		Result *struct {
			AssetID ids.ID `json:"assetID"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err == nil {
		err = json.Unmarshal(resp, &out)
	}
	switch {
	case err != nil:
	case out.Error != nil:
		err = errors.New(out.Error.Message)
	case out.Result == nil:
		err = errors.New("no result")
	}
	if err != nil {
		return ids.ID{}, fmt.Errorf("the AVAX asset is unknown: ask chain %s (set avax-asset-id in the chain config instead): %w", avaxAssetChain, err)
	}
	a.mu.Lock()
	a.asset = out.Result.AssetID
	a.mu.Unlock()
	return out.Result.AssetID, nil
}

// context returns what transactions are checked against.
func (a *VM) context(asset ids.ID) atx.Context {
	return atx.Context{NetworkID: a.env.NetworkID, ChainID: a.env.ChainID, AVAXAssetID: asset}
}

// txFee returns the fee a transaction must burn in a block of base fee
// baseFee (nil before London).
func (a *VM) txFee(t *atx.Tx, baseFee *big.Int) (uint64, error) {
	if !a.opts.Fee.Dynamic {
		return a.opts.Fee.Fixed, nil
	}
	if baseFee == nil {
		baseFee = new(big.Int)
	}
	return atx.DynamicFee(atx.GasUsed(t), baseFee)
}

// nextBaseFee returns the base fee of the block after the head, the one a
// transaction issued now pays (eth_baseFee).
func (a *VM) nextBaseFee() *big.Int {
	head := a.opts.Chain.CurrentBlock()
	cfg := a.opts.Chain.Config()
	if !cfg.IsLondon(new(big.Int).Add(head.Number, common.Big1)) {
		return nil
	}
	return eip1559.CalcBaseFee(cfg, head)
}

// issue checks a transaction and adds it to the pool; the block producer
// takes it into the next block. A transaction waiting already is not an
// error.
func (a *VM) issue(ctx context.Context, t *atx.Tx) error {
	if err := a.available(); err != nil {
		return err
	}
	if a.opts.NotProducing != nil {
		return a.opts.NotProducing
	}
	id := t.ID()
	if height, _, found, err := a.opts.Store.accepted(ctx, id); err != nil {
		return err
	} else if found {
		return rejected(id, "it is accepted already (block %d)", height)
	}
	asset, err := a.avaxAsset(ctx)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.waiting[id]; ok {
		return nil
	}
	if len(a.pool) >= maxAtomicPool {
		return fmt.Errorf("the atomic mempool is full (%d transactions); try again", maxAtomicPool)
	}
	fee, err := a.txFee(t, a.nextBaseFee())
	if err != nil {
		return rejected(id, "%v", err)
	}
	if err := atx.Verify(t, a.context(asset), fee); err != nil {
		return rejected(id, "%v", err)
	}
	if err := a.checkPeer(ctx, t); err != nil {
		return rejected(id, "%v", err)
	}
	if err := a.checkConflicts(t); err != nil {
		return rejected(id, "%v", err)
	}
	switch t.Unsigned.(type) {
	case *atx.ImportTx:
		if err := a.checkImport(ctx, t, uint64(time.Now().Unix())); err != nil {
			return rejected(id, "%v", err)
		}
	case *atx.ExportTx:
		if err := atx.VerifyExportSigners(t); err != nil {
			return rejected(id, "%v", err)
		}
		head := a.opts.Chain.CurrentBlock()
		st, err := a.opts.Chain.StateAt(head.Root, head.Number, head.Time)
		if err != nil {
			return fmt.Errorf("state of the head: %w", err)
		}
		if err := apply(st, []*atx.Tx{t}); err != nil {
			return rejected(id, "%v", err)
		}
	}
	a.pool = append(a.pool, t)
	a.waiting[id] = 0
	for _, in := range t.InputIDs() {
		a.spending[in] = id
	}
	a.opts.Wake()
	return nil
}

// checkPeer checks that the transaction's source or destination is
// another chain of the node.
func (a *VM) checkPeer(ctx context.Context, t *atx.Tx) error {
	var peer ids.ID
	switch tx := t.Unsigned.(type) {
	case *atx.ImportTx:
		peer = tx.SourceChain
	case *atx.ExportTx:
		peer = tx.DestinationChain
	}
	if _, err := a.env.Host.Chains.Resolve(ctx, peer.String()); errors.Is(err, host.ErrNotFound) {
		return fmt.Errorf("chain %s is not a chain of this node", peer)
	} else if err != nil {
		return fmt.Errorf("resolve chain %s: %w", peer, err)
	}
	return nil
}

// checkConflicts checks that no waiting transaction consumes what t does.
func (a *VM) checkConflicts(t *atx.Tx) error {
	for _, in := range t.InputIDs() {
		other, ok := a.spending[in]
		if !ok {
			continue
		}
		where := "waits in the mempool"
		if h := a.waiting[other]; h != 0 {
			where = fmt.Sprintf("is in block %d", h)
		}
		if _, imp := t.Unsigned.(*atx.ImportTx); imp {
			return fmt.Errorf("UTXO %s is consumed by tx %s, which %s", in, other, where)
		}
		return fmt.Errorf("the account nonce it spends is spent by tx %s, which %s", other, where)
	}
	return nil
}

// checkImport checks that each imported input spends a UTXO its source
// chain put in shared memory for this chain, of its asset and amount,
// unlocked at now, signed by its owners.
func (a *VM) checkImport(ctx context.Context, t *atx.Tx, now uint64) error {
	tx := t.Unsigned.(*atx.ImportTx)
	values, err := a.importedUTXOs(ctx, tx)
	if err != nil {
		return err
	}
	hash := sha256.Sum256(t.UnsignedBytes())
	for i := range tx.ImportedIns {
		in := &tx.ImportedIns[i]
		utxo, err := avax.ParseUTXO(values[i])
		if err != nil {
			return fmt.Errorf("imported input %d: UTXO %s in shared memory: %w", i, in.UTXOID, err)
		}
		if utxo.AssetID != in.AssetID {
			return fmt.Errorf("imported input %d: UTXO %s is of asset %s, the input says %s", i, in.UTXOID, utxo.AssetID, in.AssetID)
		}
		if err := avax.VerifySpend(hash[:], &in.In, &t.Creds[i], &utxo.Out, now); err != nil {
			return fmt.Errorf("imported input %d (UTXO %s): %w", i, in.UTXOID, err)
		}
	}
	return nil
}

// importedUTXOs returns the bytes of the UTXOs an import spends, from
// shared memory; a missing one is an error that says whether it was
// imported already, and by which transaction.
func (a *VM) importedUTXOs(ctx context.Context, tx *atx.ImportTx) ([][]byte, error) {
	keys := make([][]byte, len(tx.ImportedIns))
	for i := range tx.ImportedIns {
		id := tx.ImportedIns[i].InputID()
		keys[i] = id[:]
	}
	values, err := a.shared.Get(ctx, tx.SourceChain, keys)
	if err == nil {
		return values, nil
	}
	if !errors.Is(err, host.ErrNotFound) {
		return nil, fmt.Errorf("read shared memory from %s: %w", tx.SourceChain, err)
	}
	for i := range tx.ImportedIns {
		in := &tx.ImportedIns[i]
		if _, err := a.shared.Get(ctx, tx.SourceChain, keys[i:i+1]); !errors.Is(err, host.ErrNotFound) {
			continue
		}
		by, found, err := a.opts.Store.consumedBy(ctx, in.InputID())
		if err != nil {
			return nil, err
		}
		if found {
			return nil, fmt.Errorf("imported input %d: UTXO %s (ID %s) was imported already, by tx %s", i, in.UTXOID, in.InputID(), by)
		}
		return nil, fmt.Errorf("imported input %d: UTXO %s (ID %s) is not in shared memory: chain %s never exported it to this chain",
			i, in.UTXOID, in.InputID(), tx.SourceChain)
	}
	return nil, fmt.Errorf("read shared memory from %s: %w", tx.SourceChain, err)
}

// Pending returns how many transactions wait in the pool.
func (a *VM) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pool)
}

// Pick chooses the block's atomic transactions, in the order they were
// issued, among those that still apply: their fee at the block's base
// fee, their UTXOs still in shared memory, their accounts' balances and
// nonces after the block's EVM transactions. It applies their effects to
// st. Those that no longer apply are dropped.
func (a *VM) Pick(ctx context.Context, st *state.StateDB, h *types.Header) []*atx.Tx {
	a.mu.Lock()
	defer a.mu.Unlock()
	var picked []*atx.Tx
	for _, t := range slices.Clone(a.pool) {
		if len(picked) == maxAtomicPerBlock {
			break
		}
		if err := a.recheck(ctx, t, h); err != nil {
			a.drop(t, err)
			continue
		}
		snap := st.Snapshot()
		if err := apply(st, []*atx.Tx{t}); err != nil {
			st.RevertToSnapshot(snap)
			a.drop(t, err)
			continue
		}
		picked = append(picked, t)
	}
	return picked
}

// recheck checks what may have changed since a transaction was issued:
// its fee at the block's base fee, and an import's UTXOs.
func (a *VM) recheck(ctx context.Context, t *atx.Tx, h *types.Header) error {
	fee, err := a.txFee(t, h.BaseFee)
	if err != nil {
		return err
	}
	burned, err := atx.Burned(t)
	if err != nil {
		return err
	}
	if burned < fee {
		return fmt.Errorf("it burns %d nAVAX, the fee in block %d is %d", burned, h.Number, fee)
	}
	if tx, ok := t.Unsigned.(*atx.ImportTx); ok {
		if _, err := a.importedUTXOs(ctx, tx); err != nil {
			return err
		}
	}
	return nil
}

// drop removes a pool transaction, remembering why; a.mu is held.
func (a *VM) drop(t *atx.Tx, why error) {
	id := t.ID()
	a.log.Info("atomic transaction dropped", "tx", id, "reason", why)
	a.pool = slices.DeleteFunc(a.pool, func(p *atx.Tx) bool { return p.ID() == id })
	a.forgetLocked(t)
	a.dropped.Add(id, t)
}

// forgetLocked stops tracking a transaction; a.mu is held.
func (a *VM) forgetLocked(t *atx.Tx) {
	id := t.ID()
	delete(a.waiting, id)
	for _, in := range t.InputIDs() {
		if a.spending[in] == id {
			delete(a.spending, in)
		}
	}
}

// Record records the atomic transactions of a block about to be inserted
// and moves them from the pool to the block.
func (a *VM) Record(ctx context.Context, blk *types.Block, txs []*atx.Tx) error {
	if err := a.opts.Store.put(ctx, blk.Hash(), txs); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range txs {
		id := t.ID()
		a.pool = slices.DeleteFunc(a.pool, func(p *atx.Tx) bool { return p.ID() == id })
		a.waiting[id] = blk.NumberU64()
	}
	return nil
}

// Failed drops the atomic transactions of a block that could not be
// recorded or inserted.
func (a *VM) Failed(blk *types.Block, txs []*atx.Tx, err error) {
	a.opts.Store.forget(blk.Hash())
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range txs {
		a.drop(t, fmt.Errorf("block %d was not built: %w", blk.NumberU64(), err))
	}
}

// Reported stops tracking the atomic transactions of a block reported to
// the index: they are accepted.
func (a *VM) Reported(blk *types.Block, txs []*atx.Tx) {
	a.opts.Store.forget(blk.Hash())
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range txs {
		a.forgetLocked(t)
	}
}

// txStatus is what the chain knows of an atomic transaction.
type txStatus struct {
	status string
	height *uint64 // of an accepted transaction
	tx     *atx.Tx // nil when unknown
}

// status returns a transaction's status: Accepted once the block that
// holds it is reported to the index (its shared-memory operations done),
// Processing while it waits in the pool or in a block not yet reported,
// Dropped when it met a conflict after it was issued, Unknown otherwise
// (never issued, refused, or lost from the pool in a restart).
func (a *VM) status(ctx context.Context, id ids.ID) (txStatus, error) {
	// The pool first: a transaction leaves it (reported) only after its
	// accepted record is written, so one that is no longer waiting here is
	// found accepted below, never Unknown in between.
	a.mu.Lock()
	var waiting *atx.Tx
	_, isWaiting := a.waiting[id]
	if isWaiting {
		waiting = a.waitingTx(id)
	}
	dropped, isDropped := a.dropped.Get(id)
	a.mu.Unlock()
	height, hash, found, err := a.opts.Store.accepted(ctx, id)
	if err != nil {
		return txStatus{}, err
	}
	switch {
	case found:
		txs, err := a.opts.Store.batch(ctx, hash)
		if err != nil {
			return txStatus{}, err
		}
		for _, t := range txs {
			if t.ID() == id {
				return txStatus{status: statusAccepted, height: &height, tx: t}, nil
			}
		}
		return txStatus{}, fmt.Errorf("atomic tx %s: not in the record of its block %d %s", id, height, hash)
	case isWaiting:
		return txStatus{status: statusProcessing, tx: waiting}, nil
	case isDropped:
		return txStatus{status: statusDropped, tx: dropped}, nil
	}
	return txStatus{status: statusUnknown}, nil
}

// waitingTx returns a waiting transaction; a.mu is held.
func (a *VM) waitingTx(id ids.ID) *atx.Tx {
	for _, t := range a.pool {
		if t.ID() == id {
			return t
		}
	}
	return a.opts.Store.recentTx(id)
}
