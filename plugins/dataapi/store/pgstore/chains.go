package pgstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/sdk/host"
)

// PublishChains records the chains the indexer follows, in its order, as
// its node's registry describes them, in place of those recorded before:
// API-only instances run no chains and learn them here.
func (s *Store) PublishChains(ctx context.Context, chains []host.ChainInfo) error {
	if s.readOnly {
		return ErrReadOnly
	}
	b := &pgx.Batch{}
	b.Queue("DELETE FROM chain_info")
	for i, c := range chains {
		info, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("pgstore: publish chain %s: %w", c.ID, err)
		}
		b.Queue("INSERT INTO chain_info (blockchain_id, position, info) VALUES ($1, $2, $3)", c.ID[:], i, info)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	if err != nil {
		return fmt.Errorf("pgstore: publish chains: %w", err)
	}
	return nil
}

// PublishedChains returns the chains the indexer published, in its
// order.
func (s *Store) PublishedChains(ctx context.Context) ([]host.ChainInfo, error) {
	rows, err := s.pool.Query(ctx, "SELECT info FROM chain_info ORDER BY position")
	if err != nil {
		return nil, fmt.Errorf("pgstore: read published chains: %w", err)
	}
	out, err := pgx.AppendRows([]host.ChainInfo(nil), rows, func(row pgx.CollectableRow) (host.ChainInfo, error) {
		var raw []byte
		var c host.ChainInfo
		if err := row.Scan(&raw); err != nil {
			return c, err
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return c, fmt.Errorf("published chain %s: %w", raw, err)
		}
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: read published chains: %w", err)
	}
	return out, nil
}
