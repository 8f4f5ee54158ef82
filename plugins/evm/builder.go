package evm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/txorder"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/hashicorp/go-hclog"
	"github.com/holiman/uint256"

	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/plugins/evm/atomicvm"
)

// finalityEpoch is how often a block is made finalized: every block whose
// number is a multiple of it, when it is built (as go-ethereum's dev mode
// does); the freezer moves the blocks below it to the ancient store.
const finalityEpoch = 32

// maxBlockSize is the most bytes of transactions a block takes: the
// protocol's limit less a margin, as go-ethereum's miner keeps.
const maxBlockSize = params.MaxBlockSize - 1_000_000

// builder builds the chain's blocks itself, the way go-ethereum's miner
// does, and inserts them: the parent's state, the pool's executable
// transactions in price and nonce order (a transaction that fails is left
// out, with the later ones of its sender), the system calls and
// withdrawals of the forks, the atomic transactions that still apply,
// then assembly. go-ethereum re-executes the block as it inserts it
// (atomicvm.Processor applies the atomic effects again), which records its
// call frames (docs/evm.md).
type builder struct {
	chain   *core.BlockChain
	pool    *txpool.TxPool
	atomic  *atomicvm.VM // nil on a chain without atomic transactions
	config  *params.ChainConfig
	gasCeil uint64       // the gas limit blocks move towards
	minTip  *uint256.Int // the least priority fee a transaction pays
	log     hclog.Logger
}

// newBuilder returns the builder of chain's blocks from pool and atomic
// (nil for none), towards a gas limit of gasCeil. A chain without a
// finalized block (a new one) gets its last epoch's, as a beacon chain
// gives one at once.
func newBuilder(chain *core.BlockChain, pool *txpool.TxPool, atomic *atomicvm.VM, gasCeil uint64, log hclog.Logger) *builder {
	if chain.CurrentFinalBlock() == nil {
		head := chain.CurrentBlock().Number.Uint64()
		if fin := chain.GetHeaderByNumber(head - head%finalityEpoch); fin != nil {
			chain.SetFinalized(fin)
		}
	}
	return &builder{chain: chain, pool: pool, atomic: atomic, config: chain.Config(), gasCeil: gasCeil,
		minTip: uint256.NewInt(minerTip), log: log}
}

// lowerMarkers makes head, a block the chain rewinds to, the safe block,
// and its last epoch's the finalized one, where they were above it (so
// that go-ethereum's rewind does not drop them).
func (b *builder) lowerMarkers(head *types.Header) {
	n := head.Number.Uint64()
	if safe := b.chain.CurrentSafeBlock(); safe != nil && safe.Number.Uint64() > n {
		b.chain.SetSafe(head)
	}
	if fin := b.chain.CurrentFinalBlock(); fin != nil && fin.Number.Uint64() > n {
		b.chain.SetFinalized(b.chain.GetHeaderByNumber(n - n%finalityEpoch))
	}
}

// blockEnv is a block under construction.
type blockEnv struct {
	header   *types.Header
	state    *state.StateDB
	evm      *vm.EVM
	signer   types.Signer
	gasPool  *core.GasPool
	txs      []*types.Transaction
	receipts []*types.Receipt
	size     uint64
	blobs    int
	bal      *bal.ConstructionBlockAccessList
}

// build builds a block on the head with timestamp ts (the parent's plus
// one when ts is not later), holding the pools' executable transactions
// unless empty, inserts it, makes it head and safe, and finalizes it when
// its number ends an epoch. It returns the block.
func (b *builder) build(ts uint64, empty bool) (*types.Block, error) {
	ctx := context.Background()
	parent := b.chain.CurrentBlock()
	env, err := b.prepare(ctx, parent, max(ts, parent.Time+1))
	if err != nil {
		return nil, err
	}
	defer env.discard()
	if !empty {
		b.fill(ctx, env)
	}
	block, atomicTxs, err := b.assemble(ctx, env, !empty)
	if err != nil {
		return nil, err
	}
	// The atomic transactions are recorded before go-ethereum has the
	// block: its insertion, and any later execution, applies them.
	if len(atomicTxs) > 0 {
		if err := b.atomic.Record(ctx, block, atomicTxs); err != nil {
			b.atomic.Failed(block, atomicTxs, err)
			return nil, err
		}
	}
	if _, err := b.chain.InsertChain(types.Blocks{block}); err != nil {
		if len(atomicTxs) > 0 {
			b.atomic.Failed(block, atomicTxs, err)
		}
		return nil, fmt.Errorf("insert block %d: %w", block.NumberU64(), err)
	}
	if head := b.chain.CurrentBlock(); head.Hash() != block.Hash() {
		return nil, fmt.Errorf("block %d %s inserted, but the head is %d %s", block.NumberU64(), block.Hash(), head.Number, head.Hash())
	}
	b.chain.SetSafe(block.Header())
	if block.NumberU64()%finalityEpoch == 0 {
		b.chain.SetFinalized(block.Header())
	}
	return block, nil
}

// prepare makes the header of the block after parent at time ts and the
// state to execute it on, and runs the system calls before transactions.
func (b *builder) prepare(ctx context.Context, parent *types.Header, ts uint64) (*blockEnv, error) {
	number := new(big.Int).Add(parent.Number, common.Big1)
	var random common.Hash
	_, _ = rand.Read(random[:]) // the randomness a beacon chain would give (PREVRANDAO)
	header := &types.Header{
		ParentHash: parent.Hash(),
		Number:     number,
		GasLimit:   core.CalcGasLimit(parent.GasLimit, b.gasCeil),
		Time:       ts,
		MixDigest:  random,
	}
	if b.config.IsLondon(number) {
		header.BaseFee = eip1559.CalcBaseFee(b.config, parent)
		if !b.config.IsLondon(parent.Number) {
			header.GasLimit = core.CalcGasLimit(parent.GasLimit*b.config.ElasticityMultiplier(), b.gasCeil)
		}
	}
	if err := b.chain.Engine().Prepare(b.chain, header); err != nil {
		return nil, fmt.Errorf("prepare block %d: %w", number, err)
	}
	if b.config.IsCancun(number, ts) {
		var excess uint64
		if b.config.IsCancun(parent.Number, parent.Time) {
			excess = eip4844.CalcExcessBlobGas(b.config, parent, ts)
		}
		header.BlobGasUsed = new(uint64)
		header.ExcessBlobGas = &excess
		header.ParentBeaconRoot = &common.Hash{}
	}
	if b.config.IsAmsterdam(number, ts) {
		header.SlotNumber = new(uint64)
	}
	st, err := b.chain.StateAtForkBoundary(parent, header)
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", parent.Number, err)
	}
	st.StartPrefetcher("builder", nil)
	var coinbase common.Address
	evm := vm.NewEVM(core.NewEVMBlockContext(header, b.chain, &coinbase), st, b.config, vm.Config{})
	evm.SetJumpDestCache(b.chain.JumpDestCache())
	evm.SetPrecompileCache(b.chain.PrecompileCache())
	env := &blockEnv{
		header:  header,
		state:   st,
		evm:     evm,
		signer:  types.MakeSigner(b.config, number, ts),
		gasPool: core.NewGasPool(header.GasLimit),
		size:    uint64(header.Size()),
		bal:     bal.NewConstructionBlockAccessList(),
	}
	env.bal.Merge(core.PreExecution(ctx, header.ParentBeaconRoot, parent, b.config, evm, number, ts))
	return env, nil
}

// discard stops what the state and the EVM run in the background.
func (env *blockEnv) discard() {
	env.state.StopPrefetcher()
	env.evm.Release()
}

// fill executes the pool's executable transactions that pay the block's
// fees, by price then nonce, while gas and space remain.
func (b *builder) fill(ctx context.Context, env *blockEnv) {
	h := env.header
	filter := txpool.PendingFilter{MinTip: b.minTip}
	if h.BaseFee != nil {
		filter.BaseFee = uint256.MustFromBig(h.BaseFee)
	}
	if h.ExcessBlobGas != nil {
		filter.BlobFee = uint256.MustFromBig(eip4844.CalcBlobFee(b.config, h))
	}
	osaka := b.config.IsOsaka(h.Number, h.Time)
	if osaka && !b.config.IsAmsterdam(h.Number, h.Time) {
		filter.GasLimitCap = params.MaxTxGas
	}
	plain, _ := b.pool.Pending(filter)
	filter.BlobTxs = true
	if osaka {
		filter.BlobVersion = types.BlobSidecarVersion1
	}
	blob, _ := b.pool.Pending(filter)
	if len(plain) == 0 && len(blob) == 0 {
		return
	}
	b.commit(ctx, env,
		txorder.NewTransactionsByPriceAndNonce(env.signer, plain, h.BaseFee),
		txorder.NewTransactionsByPriceAndNonce(env.signer, blob, h.BaseFee))
}

// commit executes transactions from the two lists, the better paying
// first, until the block is full.
func (b *builder) commit(ctx context.Context, env *blockEnv, plain, blob *txorder.TransactionsByPriceAndNonce) {
	amsterdam := b.config.IsAmsterdam(env.header.Number, env.header.Time)
	cancun := b.config.IsCancun(env.header.Number, env.header.Time)
	minGas := params.TxGas
	if amsterdam {
		minGas = params.TxBaseCost2780
	}
	maxBlobs := 0
	if cancun {
		maxBlobs = eip4844.MaxBlobsPerBlock(b.config, env.header.Time)
	}
	for env.gasPool.Available(amsterdam) >= minGas {
		if !blob.Empty() && env.blobs >= maxBlobs {
			blob.Clear()
		}
		ptx, ptip := plain.Peek()
		btx, btip := blob.Peek()
		list, ltx := plain, ptx
		if ptx == nil || (btx != nil && ptip.Lt(btip)) {
			list, ltx = blob, btx
		}
		if ltx == nil {
			return
		}
		if env.gasPool.Available(amsterdam) < ltx.Gas ||
			(cancun && maxBlobs-env.blobs < int(ltx.BlobGas/params.BlobTxBlobGasPerBlob)) {
			list.Pop()
			continue
		}
		tx := ltx.Resolve()
		if tx == nil { // evicted meanwhile
			list.Pop()
			continue
		}
		if env.size+tx.Size() >= maxBlockSize {
			return
		}
		if tx.Protected() && !b.config.IsEIP155(env.header.Number) {
			list.Pop()
			continue
		}
		err := b.apply(ctx, env, tx)
		switch {
		case err == nil || errors.Is(err, core.ErrNonceTooLow):
			list.Shift()
		default:
			// Its sender's later transactions cannot run either.
			b.log.Debug("transaction left out of the block", "hash", tx.Hash(), "err", err)
			list.Pop()
		}
	}
}

// apply executes tx on the block; on failure the state and the gas pool
// are as before.
func (b *builder) apply(ctx context.Context, env *blockEnv, tx *types.Transaction) error {
	sidecar := tx.BlobTxSidecar()
	if tx.Type() == types.BlobTxType && sidecar == nil {
		return errors.New("blob transaction without its blobs")
	}
	snap, gp := env.state.Snapshot(), env.gasPool.Snapshot()
	env.state.SetTxContext(tx.Hash(), len(env.txs), uint32(len(env.txs)+1))
	receipt, access, err := core.ApplyTransaction(ctx, env.evm, env.gasPool, env.state, env.header, tx)
	if err != nil {
		env.state.RevertToSnapshot(snap)
		env.gasPool.Set(gp)
		return err
	}
	env.header.GasUsed = env.gasPool.Used()
	if sidecar != nil {
		tx = tx.WithoutBlobTxSidecar()
		env.blobs += len(sidecar.Blobs)
		*env.header.BlobGasUsed += receipt.BlobGasUsed
	}
	env.txs = append(env.txs, tx)
	env.receipts = append(env.receipts, receipt)
	env.size += tx.Size()
	env.bal.Merge(access)
	return nil
}

// assemble runs what follows the transactions (withdrawals, the system
// calls of the forks, the engine's finalization), then, with withAtomic,
// the atomic transactions that apply, whose batch the header's extra data
// commits to; it returns the block with its state root, and the atomic
// transactions.
func (b *builder) assemble(ctx context.Context, env *blockEnv, withAtomic bool) (*types.Block, []*atx.Tx, error) {
	h := env.header
	body := types.Body{Transactions: env.txs}
	if b.config.IsShanghai(h.Number, h.Time) {
		body.Withdrawals = types.Withdrawals{}
	}
	var logs []*types.Log
	for _, r := range env.receipts {
		logs = append(logs, r.Logs...)
	}
	requests, access, err := core.PostExecution(ctx, b.config, h.Number, h.Time, logs, body.Withdrawals, env.evm, uint32(len(env.txs)+1))
	if err != nil {
		return nil, nil, fmt.Errorf("block %d: %w", h.Number, err)
	}
	if requests != nil {
		hash := types.CalcRequestsHash(requests)
		h.RequestsHash = &hash
	}
	env.bal.Merge(access)
	b.chain.Engine().Finalize(b.chain, h, env.state, &body)
	var atomicTxs []*atx.Tx
	if withAtomic && b.atomic != nil {
		if atomicTxs = b.atomic.Pick(ctx, env.state, h); len(atomicTxs) > 0 {
			h.Extra = atx.BatchHash(atx.EncodeBatch(atomicTxs)).Bytes()
		}
	}
	block := core.AssembleBlock(b.chain, h, env.state, &body, env.receipts, env.bal)
	if err := env.state.Error(); err != nil {
		return nil, nil, fmt.Errorf("state of block %d: %w", h.Number, err)
	}
	return block, atomicTxs, nil
}
