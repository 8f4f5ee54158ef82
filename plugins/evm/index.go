package evm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/hashicorp/go-hclog"

	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/plugins/evm/atomicvm"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Kind is the one index kind the EVM reports: accepted blocks.
const Kind = "block"

// keyReported holds, in the chain's host database namespace, the height of
// the last block reported to the index; it is written in the same atomic
// batch as the index entry, so the two never disagree.
var keyReported = []byte("reported")

// reporter appends every accepted block to the host's index, in height
// order: container ID = block hash, bytes = the block's RLP. Position p of
// the index holds block p+1; the genesis block is not indexed, as it is
// never accepted. Blocks go-ethereum committed but the index lacks (a crash
// in between) are reported when the chain starts.
type reporter struct {
	chain  *core.BlockChain
	hs     host.Services
	log    hclog.Logger
	atomic *atomicvm.Store
	// accepted is told the atomic transactions of each block reported.
	accepted func(*types.Block, []*atx.Tx)

	mu       sync.Mutex // serialises report
	reported uint64
	// height is reported, readable without waiting for a report in
	// progress (the indexer handler reads it).
	height atomic.Uint64

	signal chan struct{}
	stop   chan struct{}
	wg     sync.WaitGroup
}

// newReporter reads how far the index got. The atomic transactions of the
// blocks it reports are read from store and then given to accepted.
func newReporter(ctx context.Context, chain *core.BlockChain, hs host.Services, store *atomicvm.Store, accepted func(*types.Block, []*atx.Tx), log hclog.Logger) (*reporter, error) {
	r := &reporter{chain: chain, hs: hs, log: log, atomic: store, accepted: accepted,
		signal: make(chan struct{}, 1), stop: make(chan struct{})}
	n, err := readReported(ctx, hs.DB)
	if err != nil {
		return nil, err
	}
	if head := chain.CurrentBlock().Number.Uint64(); head < n {
		// recoverAccepted re-imports the indexed blocks, so this is a node
		// without an index whose chain lost state in a crash: the blocks
		// built from here on are reported in their place.
		log.Error("blocks reported as accepted are lost: go-ethereum's head is below them and the node keeps no index to re-import them from",
			"reported", n, "head", head)
		if err := hs.DB.Put(ctx, keyReported, binary.BigEndian.AppendUint64(nil, head)); err != nil {
			return nil, fmt.Errorf("lower the reported height to %d: %w", head, err)
		}
		n = head
	}
	r.reported = n
	r.height.Store(n)
	return r, nil
}

func readReported(ctx context.Context, db host.Database) (uint64, error) {
	b, err := db.Get(ctx, keyReported)
	if errors.Is(err, host.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read reported height: %w", err)
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("reported height: %d bytes, want 8", len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// start follows the chain's head events: one goroutine drains the event
// channel (go-ethereum's feed waits for every subscriber), another reports.
func (r *reporter) start() {
	ch := make(chan core.ChainHeadEvent, 64)
	sub := r.chain.SubscribeChainHeadEvent(ch)
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		defer sub.Unsubscribe()
		for {
			select {
			case <-ch:
				select {
				case r.signal <- struct{}{}:
				default:
				}
			case <-sub.Err():
				return
			case <-r.stop:
				return
			}
		}
	}()
	go func() {
		defer r.wg.Done()
		for {
			select {
			case <-r.signal:
				r.reportWithRetry()
			case <-r.stop:
				return
			}
		}
	}()
	// Catch up with blocks accepted before the subscription.
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// reportWithRetry reports until caught up, retrying while the host is
// unreachable.
func (r *reporter) reportWithRetry() {
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := r.report(ctx)
		cancel()
		if err == nil {
			return
		}
		r.log.Warn("report accepted blocks to the index", "err", err, "retry in", delay)
		select {
		case <-time.After(delay):
		case <-r.stop:
			return
		}
	}
}

// report appends the blocks after the last reported one up to the head.
func (r *reporter) report(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	head := r.chain.CurrentBlock().Number.Uint64()
	for r.reported < head {
		n := r.reported + 1
		blk := r.chain.GetBlockByNumber(n)
		if blk == nil {
			return fmt.Errorf("block %d missing below head %d", n, head)
		}
		txs, err := r.atomic.BlockTxs(ctx, blk)
		if err != nil {
			return err
		}
		if err := r.reportBlock(ctx, blk, txs); err != nil {
			return fmt.Errorf("index block %d: %w", n, err)
		}
		r.reported = n
		r.height.Store(n)
		if len(txs) > 0 {
			r.accepted(blk, txs)
		}
	}
	return nil
}

// rewind lowers the reported height to target, in the database first,
// then runs setHead, which rewinds the chain to it; no report runs in
// between, so every block built afterwards above target is reported. A
// crash in between leaves the old head with a height below it, whose
// blocks are then reported again (debug_setHead runs only where no index
// takes them).
func (r *reporter) rewind(ctx context.Context, target uint64, setHead func() error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if target < r.reported {
		if err := r.hs.DB.Put(ctx, keyReported, binary.BigEndian.AppendUint64(nil, target)); err != nil {
			return fmt.Errorf("lower the reported height to %d: %w", target, err)
		}
		r.reported = target
		r.height.Store(target)
	}
	return setHead()
}

// reportBlock appends one block to the index, with the reported height
// and, for a block with atomic transactions, their state and
// shared-memory operations, in one atomic write.
func (r *reporter) reportBlock(ctx context.Context, blk *types.Block, txs []*atx.Tx) error {
	n := blk.NumberU64()
	raw, err := rlp.EncodeToBytes(blk)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	state := []host.Op{{Key: keyReported, Value: binary.BigEndian.AppendUint64(nil, n)}}
	if len(txs) == 0 {
		_, err = r.hs.Index.Accept(ctx, Kind, ids.ID(blk.Hash()), raw, state)
		if err != nil && isAlreadyIndexed(err) {
			// The host backfilled it (from GetAccepted) first.
			err = r.hs.DB.Put(ctx, keyReported, state[0].Value)
		}
		return err
	}
	bi, ok := r.hs.Index.(host.BatchIndex)
	if !ok {
		return errors.New("it has atomic transactions, and the host cannot append them with their shared-memory operations")
	}
	ops, shared := atomicvm.AcceptOps(blk, txs)
	_, err = bi.AcceptBatch(ctx, host.AcceptBatch{
		Containers:   []host.NewContainer{{Kind: Kind, ID: ids.ID(blk.Hash()), Bytes: raw}},
		State:        append(state, ops...),
		SharedMemory: shared,
	})
	if err == nil {
		return nil
	}
	// An answer lost with the host's process may hide a write that
	// happened: the reported height says.
	if done, rerr := readReported(ctx, r.hs.DB); rerr == nil && done >= n {
		return nil
	}
	return err
}

// isAlreadyIndexed matches the host's refusal of a container it holds.
func isAlreadyIndexed(err error) bool { return errors.Is(err, host.ErrAlreadyIndexed) }

// Stop ends the goroutines.
func (r *reporter) Stop() {
	close(r.stop)
	r.wg.Wait()
}

// count is the number of blocks reported.
func (r *reporter) count() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reported
}

// reportedHeight is the height of the last block reported, without waiting
// for a report in progress.
func (r *reporter) reportedHeight() uint64 { return r.height.Load() }

// container returns the indexed form of the block at position pos.
func containerAt(chain *core.BlockChain, pos uint64) (host.Container, error) {
	blk := chain.GetBlockByNumber(pos + 1)
	if blk == nil {
		return host.Container{}, fmt.Errorf("block %d: %w", pos+1, host.ErrNotFound)
	}
	raw, err := rlp.EncodeToBytes(blk)
	if err != nil {
		return host.Container{}, fmt.Errorf("encode block %d: %w", pos+1, err)
	}
	return host.Container{ID: ids.ID(blk.Hash()), Bytes: raw}, nil
}
