package pgstore

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// tokenTransfersTable is a token's transfers (migration 0004), a list
// owned by the token.
var tokenTransfersTable = listTable{"token_transfers", "token", []string{"tx_index", "log_index", "batch_index"}}

// addTokenTransfers adds tx's transfers to their tokens' lists.
func (r *rowSet) addTokenTransfers(tx *store.Tx) {
	for _, x := range tx.TokenTransfers() {
		token, logIndex, batch := x.Place()
		r.tokenTransfers.put(pos{token, tx.BlockNumber, tx.Index, logIndex, batch}, encode(&x))
	}
}

// Contract returns the deployment of the contract at addr.
func (s *Store) Contract(ctx context.Context, chain ids.ID, addr common.Address) (store.Contract, error) {
	return chainRecord[store.Contract](ctx, s, chain, "contract", "SELECT record FROM contracts WHERE chain = $1 AND address = $2", addr[:])
}

// TokenTransfers lists the transfers of token.
func (s *Store) TokenTransfers(ctx context.Context, chain ids.ID, token common.Address, p store.Page) ([]store.TokenTransfer, []byte, error) {
	return listPage[store.TokenTransfer](ctx, s, tokenTransfersTable, chain, token, p)
}

// CollectionNFTs lists the NFTs of token by token ID: one range scan of
// the primary key from the cursor, of at most Limit+1 rows.
func (s *Store) CollectionNFTs(ctx context.Context, chain ids.ID, token common.Address, p store.Page) ([]store.NFT, []byte, error) {
	if p.Cursor != nil && len(p.Cursor) != 32 {
		return nil, nil, store.ErrBadCursor
	}
	tag, ok, err := s.tagOf(ctx, chain)
	if err != nil || !ok {
		return nil, nil, err
	}
	limit := max(p.Limit, 1)
	after := p.Cursor
	if after == nil {
		after = []byte{} // below every 32-byte token ID
	}
	rows, err := s.pool.Query(ctx, `SELECT token_id, record FROM nfts WHERE chain = $1 AND token = $2 AND token_id > $3
		ORDER BY token_id LIMIT $4`, tag, token[:], after, limit+1)
	if err != nil {
		return nil, nil, fmt.Errorf("pgstore: read nfts: %w", err)
	}
	defer rows.Close()
	out := make([]store.NFT, 0, min(limit, 128))
	var last, next []byte
	for rows.Next() {
		if len(out) == limit {
			next = last
			break
		}
		var id, rec []byte
		if err := rows.Scan(&id, &rec); err != nil {
			return nil, nil, fmt.Errorf("pgstore: read nfts: %w", err)
		}
		var n store.NFT
		if err := decode(rec, &n); err != nil {
			return nil, nil, err
		}
		out, last = append(out, n), id
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("pgstore: read nfts: %w", err)
	}
	return out, next, nil
}

// UpdateNFTs replaces the records of NFTs already recorded; one that is
// not (rolled back meanwhile) stays unrecorded.
func (s *Store) UpdateNFTs(ctx context.Context, chain ids.ID, nfts []store.NFTRecord) error {
	if s.readOnly {
		return ErrReadOnly
	}
	tag, ok, err := s.tagOf(ctx, chain)
	if err != nil || !ok {
		return err
	}
	b := &pgx.Batch{}
	for i := range nfts {
		n := &nfts[i]
		b.Queue("UPDATE nfts SET record = $4 WHERE chain = $1 AND token = $2 AND token_id = $3", tag, n.Token[:], tokenID(n.NFT.TokenID), encode(&n.NFT))
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("pgstore: update NFTs of chain %s: %w", chain, err)
	}
	return nil
}

// backfillTokenTransfers is migration 0004's step: it lists the transfers
// of the transactions stored before it, a chunk of transactions at a time
// in key order, then logs the rows of blocks that have undo records so
// that a rollback removes them.
func backfillTokenTransfers(ctx context.Context, tx pgx.Tx) error {
	const chunk = 5000
	var (
		chain int32
		after = []byte{}
	)
	cols := []string{"chain", "token", "block", "tx_index", "log_index", "batch_index", "record"}
	for {
		rows, err := tx.Query(ctx, "SELECT chain, hash, record FROM txs WHERE (chain, hash) > ($1, $2) ORDER BY chain, hash LIMIT $3", chain, after, chunk)
		if err != nil {
			return fmt.Errorf("read transactions: %w", err)
		}
		var (
			out  [][]any
			read int
			rec  []byte
		)
		_, err = pgx.ForEachRow(rows, []any{&chain, &after, &rec}, func() error {
			read++
			var t store.Tx
			if err := decode(rec, &t); err != nil {
				return err
			}
			for _, x := range t.TokenTransfers() {
				token, logIndex, batch := x.Place()
				out = append(out, []any{chain, token.Bytes(), int64(t.BlockNumber), int32(uint32(t.Index)),
					int32(uint32(logIndex)), int32(uint32(batch)), encode(&x)})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read transactions: %w", err)
		}
		if len(out) > 0 {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{tokenTransfersTable.name}, cols, pgx.CopyFromRows(out)); err != nil {
				return fmt.Errorf("copy into %s: %w", tokenTransfersTable.name, err)
			}
		}
		if read < chunk {
			break
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO undo_log (chain, block, tbl, existed, row_data)
		SELECT t.chain, t.block, 'token_transfers'::regclass, false, to_jsonb(t) - 'record' FROM token_transfers t
		WHERE EXISTS (SELECT 1 FROM undo_log u WHERE u.chain = t.chain AND u.block = t.block)
		ORDER BY t.chain, t.block`)
	if err != nil {
		return fmt.Errorf("log the transfers of undoable blocks: %w", err)
	}
	return nil
}
