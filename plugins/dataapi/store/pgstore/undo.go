package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The undo log (docs/data-api.md, "Reorganisations"; migration 0002): a
// write with store.Batch.Undo writes its blocks one after the other, each
// with dataapi.undo_block set to its number, so that the tables' triggers
// log the rows each block changes; Rollback applies the log of the blocks
// removed, newest change first (undo_rollback), in one transaction.

// rowSets returns the rows a batch writes: one set, or with b.Undo one per
// block, in order.
func rowSets(b *store.Batch) ([]*rowSet, error) {
	if !b.Undo {
		return []*rowSet{collect(b)}, nil
	}
	parts, err := b.PerBlock()
	if err != nil {
		return nil, err
	}
	sets := make([]*rowSet, len(parts))
	for i := range parts {
		sets[i] = collect(&parts[i])
	}
	return sets, nil
}

// sqlUndoBlock names the block whose rows the triggers log; "" logs none.
const sqlUndoBlock = "SELECT set_config('dataapi.undo_block', $1, true)"

// writeRows writes the row sets of b in tx and returns the statements of
// the last set, queued but not sent, for the caller to add its own to.
// With b.Undo, each set's rows are logged under its block, from
// b.PruneUndoBelow on.
func writeRows(ctx context.Context, tx pgx.Tx, tag int32, b *store.Batch, sets []*rowSet) (*pgx.Batch, error) {
	for i, rows := range sets {
		if b.Undo {
			n := rows.blocks[0].Number
			logged := ""
			if n >= b.PruneUndoBelow {
				logged = strconv.FormatUint(n, 10)
			}
			if _, err := tx.Exec(ctx, sqlUndoBlock, logged); err != nil {
				return nil, fmt.Errorf("log block %d: %w", n, err)
			}
		}
		if err := rows.copy(ctx, tx, tag); err != nil {
			return nil, err
		}
		batch := rows.queue(tag, false)
		if i == len(sets)-1 {
			return batch, nil
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return nil, err
		}
	}
	return &pgx.Batch{}, nil
}

// Rollback removes the blocks of chain from `from` on and what they wrote,
// in one transaction, by the undo log. The commit is not cancelled with
// ctx, so that the answer says whether the rollback happened.
func (s *Store) Rollback(ctx context.Context, chain ids.ID, from uint64) (store.ChainState, error) {
	if s.readOnly {
		return store.ChainState{}, ErrReadOnly
	}
	st, err := s.State(ctx, chain)
	if err != nil {
		return st, err
	}
	tag, ok, err := s.tagOf(ctx, chain)
	if err != nil || !ok || from >= st.Next {
		return st, err
	}
	after, err := s.rollback(ctx, tag, st, from)
	if s.balances != nil {
		s.balances.rolledBack()
	}
	if err != nil {
		return st, fmt.Errorf("pgstore: roll chain %s back to block %d: %w", chain, from, err)
	}
	return after, nil
}

// rollback rolls the chain with tag back in one transaction and returns
// its new state.
func (s *Store) rollback(ctx context.Context, tag int32, st store.ChainState, from uint64) (store.ChainState, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return st, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var missing int64
	err = tx.QueryRow(ctx, `SELECT number FROM blocks b WHERE chain = $1 AND number >= $2
		AND NOT EXISTS (SELECT 1 FROM undo_log u WHERE u.chain = b.chain AND u.block = b.number) ORDER BY number LIMIT 1`,
		tag, int64(from)).Scan(&missing)
	switch {
	case err == nil:
		return st, fmt.Errorf("block %d: %w", missing, store.ErrNoUndo)
	case !errors.Is(err, pgx.ErrNoRows):
		return st, fmt.Errorf("find the undo log: %w", err)
	}
	var rec []byte
	err = tx.QueryRow(ctx, "SELECT record FROM blocks WHERE chain = $1 AND number >= $2 ORDER BY number LIMIT 1", tag, int64(from)).Scan(&rec)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read block %d: %w", from, err)
	}
	var oldest store.Block
	if err := decode(rec, &oldest); err != nil {
		return st, err
	}
	after := store.ChainState{EVMChainID: st.EVMChainID, Next: oldest.Number, CumulativeTxs: oldest.CumulativeTxs - oldest.TxCount}
	b := &pgx.Batch{}
	b.Queue("SELECT undo_rollback($1, $2)", tag, int64(from))
	b.Queue("UPDATE chains SET next_block = $2, cumulative_txs = $3 WHERE tag = $1", tag, int64(after.Next), int64(after.CumulativeTxs))
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return st, fmt.Errorf("apply the undo log: %w", err)
	}
	if err := tx.Commit(context.WithoutCancel(ctx)); err != nil {
		return st, fmt.Errorf("commit: %w", err)
	}
	return after, nil
}
