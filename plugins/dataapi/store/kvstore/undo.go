package kvstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The undo log (docs/data-api.md, "Reorganisations"): a write with
// store.Batch.Undo writes its blocks one after the other and records, per
// block, under tUndo, every key that block's records put or delete with
// the value it had before (or its absence). Rolling back applies the
// records of the blocks removed, newest first, in one engine write: each
// key ends with the value it had before the oldest of them.

// undoEntry is a key a block changed and what it held before.
type undoEntry struct {
	Key  []byte
	Prev []byte
	Had  bool // false: the key did not exist
}

// undoKey is the key of block n's undo record.
func undoKey(t tag, n uint64) key { return newKey(tUndo, t, 8).u64(n) }

// prior is a key's value as this write left it so far.
type prior struct {
	value []byte
	had   bool
}

// undoWriter passes writes on to a batch, noting the value each key had
// before the current block first changed it: as an earlier block of the
// same write left it, else as the engine holds it.
type undoWriter struct {
	wb      writeBatch
	r       reader
	written map[string]prior    // every key this write changed
	touched map[string]struct{} // the keys the current block changed
	entries []undoEntry
	err     error
}

// ownTables are the tables whose keys hold the number of the block that
// writes them: rolling that block back removes such a key whatever it
// held, so what it held is not read.
var ownTables = [256]bool{tBlock: true, tAddrTx: true, tAddr721: true, tAddr1155: true, tAddrInt: true,
	tHist20: true, tHist1155: true, tDeploy: true, tTokenXfer: true, tChainTx: true, tTxStatus: true, tAddrNat: true, tAddr20: true}

func (u *undoWriter) note(k []byte) {
	if _, ok := u.touched[string(k)]; ok {
		return
	}
	u.touched[string(k)] = struct{}{}
	e := undoEntry{Key: append([]byte(nil), k...)}
	if p, ok := u.written[string(k)]; ok {
		e.Prev, e.Had = p.value, p.had
	} else if !ownTables[k[0]] {
		v, err := u.r.get(k)
		switch {
		case err == nil:
			e.Prev, e.Had = v, true
		case !errors.Is(err, errMissing):
			u.err = errors.Join(u.err, err)
		}
	}
	u.entries = append(u.entries, e)
}

func (u *undoWriter) put(k, v []byte) {
	u.note(k)
	u.written[string(k)] = prior{value: v, had: true}
	u.wb.put(k, v)
}

func (u *undoWriter) del(k []byte) {
	u.note(k)
	u.written[string(k)] = prior{}
	u.wb.del(k)
}

// writeUndoable writes the records of b block by block into wb, with the
// undo record of each block from b.PruneUndoBelow on.
func (s *Store) writeUndoable(wb writeBatch, t tag, b *store.Batch) error {
	parts, err := b.PerBlock()
	if err != nil {
		return err
	}
	u := &undoWriter{wb: wb, r: s.eng, written: map[string]prior{}}
	for i := range parts {
		n := parts[i].Blocks[0].Number
		u.touched, u.entries = map[string]struct{}{}, nil
		writeRecords(u, t, &parts[i])
		if u.err != nil {
			return fmt.Errorf("store: read what block %d changes: %w", n, u.err)
		}
		if n >= b.PruneUndoBelow {
			wb.put(undoKey(t, n), encode(u.entries))
		}
	}
	return u.err
}

// pruneUndo deletes the undo records of the blocks below n.
func (s *Store) pruneUndo(wb writeBatch, t tag, n uint64) error {
	it := s.eng.iter(undoKey(t, 0), undoKey(t, n))
	for ok := it.First(); ok; ok = it.Next() {
		wb.del(append([]byte(nil), it.Key()...))
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("store: prune undo records: %w", err)
	}
	return nil
}

// Rollback removes the blocks of chain from `from` on and what they wrote,
// in one engine write, by their undo records.
func (s *Store) Rollback(ctx context.Context, chain ids.ID, from uint64) (store.ChainState, error) {
	st, err := s.State(ctx, chain)
	if err != nil {
		return st, err
	}
	t, ok := s.tagOf(chain)
	if !ok || from >= st.Next {
		return st, nil
	}
	// The blocks removed, oldest first, each with its undo record.
	var (
		oldest  *store.Block
		numbers []uint64
		records [][]undoEntry
	)
	blocks := newKey(tBlock, t, 0)
	it := s.eng.iter(slices.Clone(blocks).u64(from), successor(blocks))
	for ok := it.First(); ok; ok = it.Next() {
		if err = ctx.Err(); err != nil {
			break
		}
		n := binary.BigEndian.Uint64(it.Key()[len(blocks):])
		if oldest == nil {
			oldest = new(store.Block)
			if err = decode(it.Value(), oldest); err != nil {
				break
			}
		}
		var rec []byte
		rec, err = s.eng.get(undoKey(t, n))
		if errors.Is(err, errMissing) {
			err = fmt.Errorf("block %d: %w", n, store.ErrNoUndo)
		}
		if err != nil {
			break
		}
		var entries []undoEntry
		if err = decode(rec, &entries); err != nil {
			break
		}
		numbers, records = append(numbers, n), append(records, entries)
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return st, fmt.Errorf("store: roll chain %s back to block %d: %w", chain, from, err)
	}
	if oldest == nil {
		return st, nil
	}
	wb := s.eng.newBatch()
	for i := len(records) - 1; i >= 0; i-- {
		for _, e := range records[i] {
			if e.Had {
				wb.put(e.Key, e.Prev)
			} else {
				wb.del(e.Key)
			}
		}
		wb.del(undoKey(t, numbers[i]))
	}
	after := store.ChainState{EVMChainID: st.EVMChainID, Next: oldest.Number, CumulativeTxs: oldest.CumulativeTxs - oldest.TxCount}
	wb.put(newKey(tState, t, 0), encode(&after))
	if err := wb.commit(); err != nil {
		return st, fmt.Errorf("store: roll chain %s back to block %d: %w", chain, from, err)
	}
	return after, nil
}
