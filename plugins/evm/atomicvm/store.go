package atomicvm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Key prefixes of the atomic state in the chain's host database namespace
// (docs/evm.md, Atomic transactions).
const (
	// prefixBatch + block hash: the batch of the block's atomic
	// transactions, written before go-ethereum has the block.
	prefixBatch = 'a'
	// prefixAccepted + tx ID: the height (8 bytes) and hash of the block
	// that accepted it, written with the block's index entry.
	prefixAccepted = 't'
	// prefixConsumed + UTXO ID: the ID of the import that consumed it,
	// likewise.
	prefixConsumed = 'u'
)

func key(prefix byte, b []byte) []byte { return append([]byte{prefix}, b...) }

// Store keeps the atomic transactions of the chain's blocks: each
// block's batch, written before the block is inserted so that every
// execution of the block (its insertion, a re-import after a crash, a
// state regenerated for a trace) applies the same effects; and, once the
// block is reported to the index, which block accepted each transaction
// and which import consumed each UTXO.
type Store struct {
	db host.Database

	mu sync.Mutex
	// recent holds the transactions of the blocks built and not yet
	// reported, so that their insertion and report read no database.
	recent map[common.Hash][]*atx.Tx
}

// NewStore returns the store of the chain whose host database is db.
func NewStore(db host.Database) *Store {
	return &Store{db: db, recent: map[common.Hash][]*atx.Tx{}}
}

// put records the atomic transactions of a block about to be inserted.
func (s *Store) put(ctx context.Context, hash common.Hash, txs []*atx.Tx) error {
	if err := s.db.Put(ctx, key(prefixBatch, hash[:]), atx.EncodeBatch(txs)); err != nil {
		return fmt.Errorf("record the atomic transactions of block %s: %w", hash, err)
	}
	s.mu.Lock()
	s.recent[hash] = txs
	s.mu.Unlock()
	return nil
}

// forget drops the cached transactions of a block reported (or never
// inserted).
func (s *Store) forget(hash common.Hash) {
	s.mu.Lock()
	delete(s.recent, hash)
	s.mu.Unlock()
}

// HasTxs reports whether a block built by this chain holds atomic
// transactions: its header commits to their batch.
func HasTxs(blk *types.Block) bool { return len(blk.Extra()) == common.HashLength }

// BlockTxs returns the atomic transactions of a block, nil when it has
// none. A block with atomic transactions commits to their batch in its
// header's extra data (atx.BatchHash); a record that does not match it is
// an error.
func (s *Store) BlockTxs(ctx context.Context, blk *types.Block) ([]*atx.Tx, error) {
	if !HasTxs(blk) {
		return nil, nil
	}
	hash := blk.Hash()
	if txs := s.cached(hash); txs != nil {
		return txs, nil
	}
	batch, found, err := s.get(ctx, key(prefixBatch, hash[:]))
	if err != nil {
		return nil, fmt.Errorf("read the atomic transactions of block %d %s: %w", blk.NumberU64(), hash, err)
	}
	if !found {
		return nil, nil // a block of another chain's history whose extra data is 32 bytes
	}
	if atx.BatchHash(batch) != common.BytesToHash(blk.Extra()) {
		return nil, fmt.Errorf("block %d %s: its recorded atomic transactions do not match its header", blk.NumberU64(), hash)
	}
	txs, err := atx.ParseBatch(batch)
	if err != nil {
		return nil, fmt.Errorf("block %d %s: %w", blk.NumberU64(), hash, err)
	}
	return txs, nil
}

// batch returns the atomic transactions recorded for a block hash.
func (s *Store) batch(ctx context.Context, hash common.Hash) ([]*atx.Tx, error) {
	if txs := s.cached(hash); txs != nil {
		return txs, nil
	}
	batch, err := s.db.Get(ctx, key(prefixBatch, hash[:]))
	if err != nil {
		return nil, fmt.Errorf("read the atomic transactions of block %s: %w", hash, err)
	}
	txs, err := atx.ParseBatch(batch)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", hash, err)
	}
	return txs, nil
}

// cached returns the transactions of a block built and not yet reported.
func (s *Store) cached(hash common.Hash) []*atx.Tx {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recent[hash]
}

// recentTx returns a transaction of a block built and not yet reported.
func (s *Store) recentTx(id ids.ID) *atx.Tx {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, txs := range s.recent {
		for _, t := range txs {
			if t.ID() == id {
				return t
			}
		}
	}
	return nil
}

// accepted returns the height and hash of the block that accepted a
// transaction, as reported to the index.
func (s *Store) accepted(ctx context.Context, id ids.ID) (height uint64, block common.Hash, found bool, err error) {
	v, found, err := s.get(ctx, key(prefixAccepted, id[:]))
	if err != nil {
		return 0, common.Hash{}, false, fmt.Errorf("read atomic tx %s: %w", id, err)
	}
	if !found {
		return 0, common.Hash{}, false, nil
	}
	if len(v) != 8+common.HashLength {
		return 0, common.Hash{}, false, fmt.Errorf("atomic tx %s: record of %d bytes", id, len(v))
	}
	return binary.BigEndian.Uint64(v), common.BytesToHash(v[8:]), true, nil
}

// consumedBy returns the import that consumed a UTXO.
func (s *Store) consumedBy(ctx context.Context, utxo ids.ID) (ids.ID, bool, error) {
	v, found, err := s.get(ctx, key(prefixConsumed, utxo[:]))
	if err != nil {
		return ids.ID{}, false, fmt.Errorf("read UTXO %s: %w", utxo, err)
	}
	if !found {
		return ids.ID{}, false, nil
	}
	id, err := ids.FromBytes(v)
	return id, err == nil, err
}

// get reads a key of the store: a missing one is not found, not an error.
func (s *Store) get(ctx context.Context, k []byte) ([]byte, bool, error) {
	v, err := s.db.Get(ctx, k)
	if errors.Is(err, host.ErrNotFound) {
		return nil, false, nil
	}
	return v, err == nil, err
}

// AcceptOps returns what the report of a block with atomic transactions
// writes with its index entry: where each transaction was accepted and
// which UTXOs its imports consumed, and the shared-memory requests: the
// imports' removes from their source chains, the exports' puts for their
// destinations.
func AcceptOps(blk *types.Block, txs []*atx.Tx) ([]host.Op, []host.SharedRequests) {
	var ops []host.Op
	var shared host.SharedBatch
	hash := blk.Hash()
	where := binary.BigEndian.AppendUint64(nil, blk.NumberU64())
	where = append(where, hash[:]...)
	for _, t := range txs {
		id := t.ID()
		ops = append(ops, host.Op{Key: key(prefixAccepted, id[:]), Value: where})
		switch tx := t.Unsigned.(type) {
		case *atx.ImportTx:
			for i := range tx.ImportedIns {
				utxo := tx.ImportedIns[i].InputID()
				ops = append(ops, host.Op{Key: key(prefixConsumed, utxo[:]), Value: id[:]})
				shared.Remove(tx.SourceChain, utxo[:])
			}
		case *atx.ExportTx:
			for _, u := range t.ExportedUTXOs() {
				utxo := u.InputID()
				traits := make([][]byte, len(u.Out.Addrs))
				for i, a := range u.Out.Addrs {
					traits[i] = a[:]
				}
				shared.Put(tx.DestinationChain, host.SharedElement{Key: utxo[:], Value: u.Bytes(), Traits: traits})
			}
		}
	}
	return ops, shared.Requests()
}

// apply applies the effects of atomic transactions to a block's
// state after its EVM transactions, as coreth does: an import credits its
// outputs (nAVAX × atx.X2CRate wei); an export debits each input from an
// account that holds it and is at the input's nonce, then advances the
// nonce. On an error the state is partly changed: the caller reverts it.
func apply(st vm.StateDB, txs []*atx.Tx) error {
	rate := uint256.NewInt(atx.X2CRate)
	for _, t := range txs {
		switch tx := t.Unsigned.(type) {
		case *atx.ImportTx:
			for _, o := range tx.Outs {
				st.AddBalance(o.Address, new(uint256.Int).Mul(uint256.NewInt(o.Amount), rate), tracing.BalanceChangeUnspecified)
			}
		case *atx.ExportTx:
			for _, in := range tx.Ins {
				amount := new(uint256.Int).Mul(uint256.NewInt(in.Amount), rate)
				if bal := st.GetBalance(in.Address); bal.Cmp(amount) < 0 {
					return fmt.Errorf("export %s: account %s holds %s wei, the input takes %s: %w",
						t.ID(), in.Address, bal, amount, atx.ErrInsufficientFunds)
				}
				if nonce := st.GetNonce(in.Address); nonce != in.Nonce {
					return fmt.Errorf("export %s: account %s is at nonce %d, the input is for nonce %d", t.ID(), in.Address, nonce, in.Nonce)
				}
				st.SubBalance(in.Address, amount, tracing.BalanceChangeUnspecified)
				st.SetNonce(in.Address, in.Nonce+1, tracing.NonceChangeUnspecified)
			}
		}
	}
	return nil
}

// Processor is go-ethereum's block processor with the atomic
// effects: after the block's transactions (and its withdrawals and system
// calls) it applies the block's atomic transactions, so that go-ethereum's
// validation, which follows, checks the state root with them. It is the
// one path of every execution of a block: insertion of a block built,
// re-import after a crash, regeneration of a historical state.
type Processor struct {
	core.Processor
	Store *Store
}

// Process runs the block, then its atomic transactions.
func (p *Processor) Process(ctx context.Context, blk *types.Block, st *state.StateDB, jd vm.JumpDestCache, pc *vm.PrecompileCache, cfg vm.Config, execIndex *atomic.Int64) (*core.ProcessResult, error) {
	res, err := p.Processor.Process(ctx, blk, st, jd, pc, cfg, execIndex)
	if err != nil {
		return res, err
	}
	txs, err := p.Store.BlockTxs(ctx, blk)
	if err != nil {
		return nil, err
	}
	if len(txs) == 0 {
		return res, nil
	}
	if err := apply(st, txs); err != nil {
		return nil, fmt.Errorf("block %d: atomic transactions: %w", blk.NumberU64(), err)
	}
	return res, nil
}
