package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// backfillChunk is how many transactions a backfill transaction reads.
const backfillChunk = 5_000

// backfillTables are the tables the evmlists backfill fills.
var backfillTables = []string{"chain_txs", "address_native", "address_erc20"}

// backfillChainLists fills the tables of migration 0003 from the
// transactions written before it, chunk by chunk, each chunk with the
// position it reached, so that a writer stopped midway goes on where it
// was. The last step logs the rows of the blocks that have undo records
// as absent before them, so that a rollback removes them too.
func (s *Store) backfillChainLists(ctx context.Context, log hclog.Logger) error {
	var (
		position []byte
		records  int64
	)
	err := s.pool.QueryRow(ctx, "SELECT position, records FROM backfills WHERE name = 'evmlists' AND finished_at IS NULL").Scan(&position, &records)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgstore: read backfills: %w", err)
	}
	log.Info("pgstore: backfilling the chain transaction lists of transactions written by an earlier release", "done", records)
	for {
		tag, hash := int32(0), []byte{} // before every row
		if len(position) == 4+32 {
			tag, hash = int32(binary.BigEndian.Uint32(position)), position[4:]
		}
		done, next, err := s.backfillChunk(ctx, tag, hash)
		if err != nil {
			return err
		}
		if done == 0 {
			break
		}
		position, records = next, records+int64(done)
		log.Info("pgstore: backfilling the chain transaction lists", "transactions", records)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, t := range backfillTables {
			_, err := tx.Exec(ctx, fmt.Sprintf(`INSERT INTO undo_log (chain, block, tbl, existed, row_data)
				SELECT r.chain, r.block, '%[1]s'::regclass, false, to_jsonb(r) - 'record' FROM %[1]s r
				WHERE r.block >= (SELECT min(u.block) FROM undo_log u WHERE u.chain = r.chain)`, t))
			if err != nil {
				return fmt.Errorf("log %s: %w", t, err)
			}
		}
		_, err := tx.Exec(ctx, "UPDATE backfills SET finished_at = now() WHERE name = 'evmlists'")
		return err
	})
	if err != nil {
		return fmt.Errorf("pgstore: finish the backfill of the chain lists: %w", err)
	}
	log.Info("pgstore: chain transaction lists backfilled", "transactions", records)
	return nil
}

// backfillChunk writes the rows of the next transactions after (tag,
// hash), in (chain, hash) order, and records the position reached, in one
// transaction. It returns how many it did and the new position.
func (s *Store) backfillChunk(ctx context.Context, tag int32, hash []byte) (int, []byte, error) {
	var position []byte
	n := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT chain, hash, record FROM txs WHERE (chain, hash) > ($1, $2) ORDER BY chain, hash LIMIT $3",
			tag, hash, backfillChunk)
		if err != nil {
			return err
		}
		sets := map[int32]*rowSet{}
		var order []int32
		var chain int32
		var h, rec []byte
		_, err = pgx.ForEachRow(rows, []any{&chain, &h, &rec}, func() error {
			var t store.Tx
			if err := decode(rec, &t); err != nil {
				return err
			}
			r, ok := sets[chain]
			if !ok {
				r = &rowSet{}
				sets[chain], order = r, append(order, chain)
			}
			r.addChainLists(&t)
			n++
			position = append(binary.BigEndian.AppendUint32(position[:0], uint32(chain)), h...)
			return nil
		})
		if err != nil || n == 0 {
			return err
		}
		for _, c := range order {
			if err := tx.SendBatch(ctx, sets[c].queue(c, true)).Close(); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, "UPDATE backfills SET position = $1, records = records + $2 WHERE name = 'evmlists'", position, n)
		return err
	})
	if err != nil {
		return 0, nil, fmt.Errorf("pgstore: backfill the chain lists: %w", err)
	}
	return n, position, nil
}
