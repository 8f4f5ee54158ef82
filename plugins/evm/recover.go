package evm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/sdk/host"
)

// reimportBatch is how many blocks one InsertChain call re-imports.
const reimportBatch = 256

// reimportLogEvery spaces the progress lines of a long re-import.
const reimportLogEvery = 8 * time.Second

// errIndexingDisabled marks a host without an index: there is no durable
// record of the accepted blocks to re-import from.
var errIndexingDisabled = errors.New("the node runs without an index (--index-enabled=false)")

// recoverAccepted brings go-ethereum's head back to every block the chain
// accepted, before the chain serves or builds anything. A pruning chain
// keeps recent state in memory, so after a crash go-ethereum rewinds its
// head to the last state it flushed, below blocks already accepted. The
// host index is the durable record of what was accepted: its blocks above
// the head are re-executed, each checked against its container ID, and
// then the rescued blocks (see rescueUnreported) above them. Any mismatch
// fails: building on a different history would fork the chain silently.
// reported is the height of the last block reported to the index.
func recoverAccepted(ctx context.Context, chain *core.BlockChain, idx host.Index, reported uint64, rescued types.Blocks, log hclog.Logger) error {
	if head := chain.CurrentBlock().Number.Uint64(); reported > head {
		log.Warn("go-ethereum's head is below the last block the index holds (its state was not flushed before a crash): re-importing from the index",
			"head", head, "indexed", reported)
		err := reimportFromIndex(ctx, chain, idx, reported, log)
		if errors.Is(err, errIndexingDisabled) {
			log.Warn("the node keeps no index: only the blocks go-ethereum's own database holds are re-imported")
		} else if err != nil {
			return err
		}
	}
	return reinsertRescued(chain, rescued, log)
}

// reimporter inserts blocks in batches on the chain's head and logs its
// progress.
type reimporter struct {
	chain  *core.BlockChain
	log    hclog.Logger
	source string

	batch    types.Blocks
	from     uint64 // height of the first block re-imported
	done     int
	started  time.Time
	lastShow time.Time
}

func newReimporter(chain *core.BlockChain, log hclog.Logger, source string) *reimporter {
	now := time.Now()
	return &reimporter{chain: chain, log: log, source: source, started: now, lastShow: now}
}

// add queues blk, inserting the queue when it is full.
func (r *reimporter) add(blk *types.Block) error {
	if r.done == 0 && len(r.batch) == 0 {
		r.from = blk.NumberU64()
	}
	r.batch = append(r.batch, blk)
	if len(r.batch) < reimportBatch {
		return nil
	}
	return r.flush()
}

// flush inserts the queued blocks: the first must extend the head, and the
// head must be the last one afterwards.
func (r *reimporter) flush() error {
	if len(r.batch) == 0 {
		return nil
	}
	head := r.chain.CurrentBlock()
	first, last := r.batch[0], r.batch[len(r.batch)-1]
	if first.ParentHash() != head.Hash() {
		return fmt.Errorf("%s block %d %s does not extend go-ethereum's head %d %s: refusing to fork",
			r.source, first.NumberU64(), first.Hash(), head.Number, head.Hash())
	}
	if n, err := r.chain.InsertChain(r.batch); err != nil {
		return fmt.Errorf("re-import %s block %d %s: %w", r.source, r.batch[n].NumberU64(), r.batch[n].Hash(), err)
	}
	if now := r.chain.CurrentBlock(); now.Hash() != last.Hash() {
		return fmt.Errorf("re-import %s blocks up to %d %s: go-ethereum's head is %d %s afterwards",
			r.source, last.NumberU64(), last.Hash(), now.Number, now.Hash())
	}
	r.done += len(r.batch)
	r.batch = r.batch[:0]
	if time.Since(r.lastShow) >= reimportLogEvery {
		r.lastShow = time.Now()
		r.log.Info("re-importing accepted blocks", "source", r.source, "blocks", r.done, "from", r.from, "head", last.NumberU64())
	}
	return nil
}

// finish inserts what is queued and logs the result.
func (r *reimporter) finish() error {
	if err := r.flush(); err != nil {
		return err
	}
	if r.done > 0 {
		r.log.Info("re-imported accepted blocks", "source", r.source, "blocks", r.done, "from", r.from,
			"head", r.chain.CurrentBlock().Number, "elapsed", time.Since(r.started).Round(time.Millisecond).String())
	}
	return nil
}

// reimportFromIndex re-executes the blocks of the chain's own index above
// go-ethereum's head: position p holds block p+1. The index's block at the
// head's height must be the head itself.
func reimportFromIndex(ctx context.Context, chain *core.BlockChain, idx host.Index, reported uint64, log hclog.Logger) error {
	head := chain.CurrentBlock()
	h := head.Number.Uint64()
	start := h // position of block h+1
	if h > 0 {
		start = h - 1 // the head itself, to check that the index agrees
	}
	r := newReimporter(chain, log, "index")
	last := h
	err := idx.Feed(ctx, "", Kind, start, false, func(c host.Container) error {
		n := c.Index + 1
		if n <= h {
			if common.Hash(c.ID) != head.Hash() {
				return fmt.Errorf("the index's block %d is %s, go-ethereum's is %s: "+
					"the chain's directory holds another history than the one accepted; refusing to fork",
					n, common.Hash(c.ID), head.Hash())
			}
			return nil
		}
		blk, err := decodeContainer(c)
		if err != nil {
			return err
		}
		last = n
		return r.add(blk)
	})
	if err != nil {
		if isIndexingDisabled(err) {
			return errIndexingDisabled
		}
		return fmt.Errorf("re-import accepted blocks from the index: %w", err)
	}
	if err := r.finish(); err != nil {
		return fmt.Errorf("re-import accepted blocks from the index: %w", err)
	}
	if last < reported {
		return fmt.Errorf("the index ends at block %d, but block %d was reported to it", last, reported)
	}
	return nil
}

// decodeContainer decodes an index container as the block it holds and
// checks its ID and position against it.
func decodeContainer(c host.Container) (*types.Block, error) {
	n := c.Index + 1
	blk := new(types.Block)
	if err := rlp.DecodeBytes(c.Bytes, blk); err != nil {
		return nil, fmt.Errorf("decode the index's block %d (%s): %w", n, c.ID, err)
	}
	if blk.Hash() != common.Hash(c.ID) {
		return nil, fmt.Errorf("the index's block %d: container ID %s, but its bytes hash to %s",
			n, common.Hash(c.ID), blk.Hash())
	}
	if blk.NumberU64() != n {
		return nil, fmt.Errorf("the index's position %d (%s) holds block %d, want %d", c.Index, c.ID, blk.NumberU64(), n)
	}
	return blk, nil
}

// rescueUnreported reads, before go-ethereum opens the chain, the canonical
// blocks above the last one reported to the index: they were made head, so
// their receipts may have been served, but a crash came before the index
// had them. They must be read first because go-ethereum's repair after a
// crash deletes every block above the state it rewinds to once that is
// below the frozen (ancient) blocks. The reporter keeps them few: it
// follows the head.
func rescueUnreported(stack *node.Node, reported uint64) (types.Blocks, error) {
	if _, err := os.Stat(stack.ResolvePath(chainDB)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // a new chain
	}
	// The same open as go-ethereum's next: it repairs a torn freezer tail,
	// and leaves the head alone.
	db, err := stack.OpenDatabaseWithOptions(chainDB, node.DatabaseOptions{Cache: 16, Handles: 64})
	if err != nil {
		return nil, fmt.Errorf("open the chain database to rescue unreported blocks: %w", err)
	}
	defer db.Close()
	head, ok := rawdb.ReadHeaderNumber(db, rawdb.ReadHeadBlockHash(db))
	if !ok {
		return nil, nil
	}
	var out types.Blocks
	for n := reported + 1; n <= head; n++ {
		blk := rawdb.ReadBlock(db, rawdb.ReadCanonicalHash(db, n), n)
		if blk == nil || (len(out) > 0 && blk.ParentHash() != out[len(out)-1].Hash()) {
			break // the torn end of a crashed write
		}
		out = append(out, blk)
	}
	return out, nil
}

// reinsertRescued re-executes the rescued blocks that extend the head; those
// at or below it must be the chain's own.
func reinsertRescued(chain *core.BlockChain, rescued types.Blocks, log hclog.Logger) error {
	r := newReimporter(chain, log, "go-ethereum's database")
	head := chain.CurrentBlock().Number.Uint64()
	for _, blk := range rescued {
		if n := blk.NumberU64(); n <= head {
			if have := chain.GetCanonicalHash(n); have != blk.Hash() {
				return fmt.Errorf("block %d: go-ethereum wrote %s before the crash, but the chain recovered %s: refusing to fork",
					n, blk.Hash(), have)
			}
			continue
		}
		if err := r.add(blk); err != nil {
			return err
		}
	}
	return r.finish()
}

// isIndexingDisabled matches the host's answer to a feed when it keeps no
// index.
func isIndexingDisabled(err error) bool { return errors.Is(err, host.ErrNoIndex) }
