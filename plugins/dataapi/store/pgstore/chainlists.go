package pgstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The address list tables of migration 0003.
var (
	nativeTable = listTable{"address_native", "address", []string{"tx_index"}}
	erc20Table  = listTable{"address_erc20", "address", []string{"tx_index", "log_index"}}
)

// addChainLists adds a transaction to the chain's list, to the native
// lists of its sender and recipient, and its ERC-20 transfers to the lists
// of their senders and recipients.
func (r *rowSet) addChainLists(tx *store.Tx) {
	bare := encode(new(tx.Bare()))
	var success uint64
	if tx.Success {
		success = 1
	}
	r.chainTxs.put(pos{block: tx.BlockNumber, a: tx.Index, b: success}, bare)
	for _, a := range tx.NativeParties() {
		r.nativeTxs.put(pos{a, tx.BlockNumber, tx.Index, 0, 0}, bare)
	}
	for _, item := range tx.ERC20Items() {
		v := encode(&item)
		for _, a := range parties(item.Transfer.From, item.Transfer.To) {
			r.erc20Transfers.put(pos{a, tx.BlockNumber, tx.Index, item.Transfer.LogIndex, 0}, v)
		}
	}
}

// chainTxsColumns are the columns of chain_txs.
var chainTxsColumns = []string{"chain", "block", "tx_index", "success", "record"}

// sqlChainTxs writes rows of chain_txs, replacing existing ones.
const sqlChainTxs = `INSERT INTO chain_txs (chain, block, tx_index, success, record)
	SELECT $1::integer, * FROM unnest($2::bigint[], $3::integer[], $4::boolean[], $5::bytea[])
	ON CONFLICT (chain, block, tx_index) DO UPDATE SET success = EXCLUDED.success, record = EXCLUDED.record`

// chainTxRow returns the i-th row of rows as COPY takes it.
func chainTxRow(tag int32, rows *keyed[pos, []byte], i int) []any {
	k := rows.keys[i]
	return []any{tag, int64(k.block), int32(uint32(k.a)), k.b == 1, rows.vals[i]}
}

// chainTxsArgs returns the arguments of sqlChainTxs.
func chainTxsArgs(tag int32, rows *keyed[pos, []byte]) []any {
	n := len(rows.keys)
	blocks, indexes, success := make([]int64, n), make([]int32, n), make([]bool, n)
	for i, k := range rows.keys {
		blocks[i], indexes[i], success[i] = int64(k.block), int32(uint32(k.a)), k.b == 1
	}
	return []any{tag, blocks, indexes, success, rows.vals}
}

// ChainTxs lists chain's transactions of a status: one range scan of
// chain_txs's primary key, or of its status index.
func (s *Store) ChainTxs(ctx context.Context, chain ids.ID, status store.TxStatus, p store.Page) ([]store.Tx, []byte, error) {
	if p.Cursor != nil && len(p.Cursor) != 12 {
		return nil, nil, store.ErrBadCursor
	}
	tag, ok, err := s.tagOf(ctx, chain)
	if err != nil || !ok {
		return nil, nil, err
	}
	to := int64(math.MaxInt64)
	if p.ToBlock > 0 {
		to = int64(min(p.ToBlock, math.MaxInt64))
	}
	limit := max(p.Limit, 1)
	args := []any{tag, int64(min(p.FromBlock, math.MaxInt64)), to}
	if status != store.AnyStatus {
		args = append(args, status == store.Succeeded)
	}
	if p.Cursor != nil {
		args = append(args, int64(binary.BigEndian.Uint64(p.Cursor)), int32(binary.BigEndian.Uint32(p.Cursor[8:])))
	}
	args = append(args, limit+1)
	rows, err := s.pool.Query(ctx, chainTxsPage(status != store.AnyStatus, p.Desc, p.Cursor != nil), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("pgstore: read chain_txs: %w", err)
	}
	defer rows.Close()
	out := make([]store.Tx, 0, min(limit, 128))
	var next []byte
	var block int64
	var index int32
	for rows.Next() {
		if len(out) == limit {
			next = cursorOf([]int64{block, int64(index)})
			break
		}
		var rec []byte
		if err := rows.Scan(&block, &index, &rec); err != nil {
			return nil, nil, fmt.Errorf("pgstore: read chain_txs: %w", err)
		}
		var tx store.Tx
		if err := decode(rec, &tx); err != nil {
			return nil, nil, err
		}
		out = append(out, tx)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("pgstore: read chain_txs: %w", err)
	}
	return out, next, nil
}

// chainTxsPage returns the statement that reads one page of chain_txs:
// the rows of chain $1 in the block range [$2, $3), of status $4 when
// filtered, after the cursor (the next two) when withCursor, in either
// order, $n rows. It is one range scan of the primary key, or of the
// status index when filtered, forwards or backwards.
func chainTxsPage(filtered, desc, withCursor bool) string {
	where, n := "chain = $1 AND block >= $2 AND block < $3", 4
	if filtered {
		where += " AND success = $4"
		n++
	}
	order, op := "block, tx_index", ">"
	if desc {
		order, op = "block DESC, tx_index DESC", "<"
	}
	if withCursor {
		where += fmt.Sprintf(" AND (block, tx_index) %s ($%d, $%d)", op, n, n+1)
		n += 2
	}
	return fmt.Sprintf("SELECT block, tx_index, record FROM chain_txs WHERE %s ORDER BY %s LIMIT $%d", where, order, n)
}

// NativeTxs lists the transactions addr sent or received.
func (s *Store) NativeTxs(ctx context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.Tx, []byte, error) {
	return listPage[store.Tx](ctx, s, nativeTable, chain, addr, p)
}

// ERC20Transfers lists addr's ERC-20 transfers.
func (s *Store) ERC20Transfers(ctx context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.ERC20Item, []byte, error) {
	return listPage[store.ERC20Item](ctx, s, erc20Table, chain, addr, p)
}
