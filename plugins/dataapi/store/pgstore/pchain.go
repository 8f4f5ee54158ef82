package pgstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The statements that write the P-Chain's records (migration 0005); a
// subnet's row is replaced by its conversion.
const (
	sqlPBlocks = `INSERT INTO p_blocks (chain, height, id, record) SELECT $1::integer, * FROM unnest($2::bigint[], $3::bytea[], $4::bytea[])
		ON CONFLICT (chain, height) DO UPDATE SET id = EXCLUDED.id, record = EXCLUDED.record`
	sqlPBlockchains = `INSERT INTO p_blockchains (chain, block, tx_index, id, subnet, record)
		SELECT $1::integer, * FROM unnest($2::bigint[], $3::integer[], $4::bytea[], $5::bytea[], $6::bytea[])
		ON CONFLICT (chain, block, tx_index) DO UPDATE SET id = EXCLUDED.id, subnet = EXCLUDED.subnet, record = EXCLUDED.record`
	sqlPSubnets = `INSERT INTO p_subnets (chain, block, tx_index, id, record)
		SELECT $1::integer, * FROM unnest($2::bigint[], $3::integer[], $4::bytea[], $5::bytea[])
		ON CONFLICT (chain, block, tx_index) DO UPDATE SET id = EXCLUDED.id, record = EXCLUDED.record`
)

// queuePChain queues the statements that write a batch's P-Chain records.
func queuePChain(q *pgx.Batch, tag int32, b *store.Batch) {
	if n := len(b.PBlocks); n > 0 {
		heights, bids, recs := make([]int64, n), make([][]byte, n), make([][]byte, n)
		for i := range b.PBlocks {
			blk := &b.PBlocks[i]
			heights[i], bids[i], recs[i] = int64(blk.Height), blk.ID[:], encode(blk)
		}
		q.Queue(sqlPBlocks, tag, heights, bids, recs)
	}
	if n := len(b.Blockchains); n > 0 {
		blocks, idx, cids, subnets, recs := make([]int64, n), make([]int32, n), make([][]byte, n), make([][]byte, n), make([][]byte, n)
		for i := range b.Blockchains {
			c := &b.Blockchains[i]
			blocks[i], idx[i], cids[i], subnets[i], recs[i] = int64(c.Created.Block), int32(uint32(c.Created.TxIndex)), c.ID[:], c.SubnetID[:], encode(c)
		}
		q.Queue(sqlPBlockchains, tag, blocks, idx, cids, subnets, recs)
	}
	if n := len(b.Subnets); n > 0 {
		// The last record of a subnet wins, as in the embedded store.
		var rows keyed[ids.ID, *store.Subnet]
		for i := range b.Subnets {
			rows.put(b.Subnets[i].ID, &b.Subnets[i])
		}
		n = len(rows.keys)
		blocks, idx, sids, recs := make([]int64, n), make([]int32, n), make([][]byte, n), make([][]byte, n)
		for i, sn := range rows.vals {
			blocks[i], idx[i], sids[i], recs[i] = int64(sn.Created.Block), int32(uint32(sn.Created.TxIndex)), sn.ID[:], encode(sn)
		}
		q.Queue(sqlPSubnets, tag, blocks, idx, sids, recs)
	}
}

// PBlock returns the P-Chain block at height.
func (s *Store) PBlock(ctx context.Context, chain ids.ID, height uint64) (store.PBlock, error) {
	return chainRecord[store.PBlock](ctx, s, chain, "P-Chain block", "SELECT record FROM p_blocks WHERE chain = $1 AND height = $2",
		int64(min(height, math.MaxInt64)))
}

// PBlockByID returns the P-Chain block with ID id.
func (s *Store) PBlockByID(ctx context.Context, chain ids.ID, id ids.ID) (store.PBlock, error) {
	return chainRecord[store.PBlock](ctx, s, chain, "P-Chain block", "SELECT record FROM p_blocks WHERE chain = $1 AND id = $2", id[:])
}

// PBlocks lists the P-Chain's blocks by height.
func (s *Store) PBlocks(ctx context.Context, chain ids.ID, p store.Page) ([]store.PBlock, []byte, error) {
	return pPage[store.PBlock](ctx, s, pList{table: "p_blocks", block: "height"}, chain, nil, p)
}

// Blockchain returns the blockchain with ID id.
func (s *Store) Blockchain(ctx context.Context, chain ids.ID, id ids.ID) (store.Blockchain, error) {
	return chainRecord[store.Blockchain](ctx, s, chain, "blockchain", "SELECT record FROM p_blockchains WHERE chain = $1 AND id = $2", id[:])
}

// Blockchains lists the blockchains by creation.
func (s *Store) Blockchains(ctx context.Context, chain ids.ID, p store.Page) ([]store.Blockchain, []byte, error) {
	return pPage[store.Blockchain](ctx, s, pList{table: "p_blockchains", block: "block", index: true}, chain, nil, p)
}

// SubnetBlockchains lists a subnet's blockchains by creation.
func (s *Store) SubnetBlockchains(ctx context.Context, chain ids.ID, subnet ids.ID, p store.Page) ([]store.Blockchain, []byte, error) {
	return pPage[store.Blockchain](ctx, s, pList{table: "p_blockchains", block: "block", index: true}, chain, subnet[:], p)
}

// Subnet returns the subnet with ID id.
func (s *Store) Subnet(ctx context.Context, chain ids.ID, id ids.ID) (store.Subnet, error) {
	return chainRecord[store.Subnet](ctx, s, chain, "subnet", "SELECT record FROM p_subnets WHERE chain = $1 AND id = $2", id[:])
}

// Subnets lists the subnets by creation.
func (s *Store) Subnets(ctx context.Context, chain ids.ID, p store.Page) ([]store.Subnet, []byte, error) {
	return pPage[store.Subnet](ctx, s, pList{table: "p_subnets", block: "block", index: true}, chain, nil, p)
}

// pList is a P-Chain table read as a list: by its block column, then by
// tx_index when index is set.
type pList struct {
	table, block string
	index        bool
}

// pPage reads one page of a P-Chain list of chain (only the rows of
// subnet when it is given): one range scan of the primary key (or of the
// subnet index) bounded by the page's blocks and cursor, in either
// direction, of at most Limit+1 rows. Its cursors are the embedded
// store's key suffixes: the block, and the index.
func pPage[T any](ctx context.Context, s *Store, l pList, chain ids.ID, subnet []byte, p store.Page) ([]T, []byte, error) {
	keys := []string{l.block}
	if l.index {
		keys = append(keys, "tx_index")
	}
	if p.Cursor != nil && len(p.Cursor) != 8+4*(len(keys)-1) {
		return nil, nil, store.ErrBadCursor
	}
	tag, ok, err := s.tagOf(ctx, chain)
	if err != nil || !ok {
		return nil, nil, err
	}
	if !l.index {
		keys = append(keys, "0") // a constant second key, so that every list scans (block, index)
	}
	to := int64(math.MaxInt64)
	if p.ToBlock > 0 {
		to = int64(min(p.ToBlock, math.MaxInt64))
	}
	args := []any{tag, int64(min(p.FromBlock, math.MaxInt64)), to}
	sql := fmt.Sprintf("SELECT %s, %s, record FROM %s WHERE chain = $1 AND %s >= $2 AND %s < $3", keys[0], keys[1], l.table, keys[0], keys[0])
	if subnet != nil {
		args = append(args, subnet)
		sql += fmt.Sprintf(" AND subnet = $%d", len(args))
	}
	op, order := ">", ""
	if p.Desc {
		op, order = "<", " DESC"
	}
	if p.Cursor != nil {
		args = append(args, int64(binary.BigEndian.Uint64(p.Cursor)))
		if l.index {
			args = append(args, int32(binary.BigEndian.Uint32(p.Cursor[8:])))
			sql += fmt.Sprintf(" AND (%s, tx_index) %s ($%d, $%d)", keys[0], op, len(args)-1, len(args))
		} else {
			sql += fmt.Sprintf(" AND %s %s $%d", keys[0], op, len(args))
		}
	}
	limit := max(p.Limit, 1)
	args = append(args, limit+1)
	sql += fmt.Sprintf(" ORDER BY %s%s", keys[0], order)
	if l.index {
		sql += ", tx_index" + order
	}
	sql += fmt.Sprintf(" LIMIT $%d", len(args))
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("pgstore: read %s: %w", l.table, err)
	}
	defer rows.Close()
	out := make([]T, 0, min(limit, 128))
	var next []byte
	var block int64
	var index int32
	for rows.Next() {
		if len(out) == limit {
			next = binary.BigEndian.AppendUint64(nil, uint64(block))
			if l.index {
				next = binary.BigEndian.AppendUint32(next, uint32(index))
			}
			break
		}
		var rec []byte
		if err := rows.Scan(&block, &index, &rec); err != nil {
			return nil, nil, fmt.Errorf("pgstore: read %s: %w", l.table, err)
		}
		var v T
		if err := decode(rec, &v); err != nil {
			return nil, nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("pgstore: read %s: %w", l.table, err)
	}
	return out, next, nil
}
