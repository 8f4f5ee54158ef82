package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// decode decodes an RLP record into v.
func decode(b []byte, v any) error {
	if err := rlp.DecodeBytes(b, v); err != nil {
		return fmt.Errorf("pgstore: decode %T: %w", v, err)
	}
	return nil
}

// readErr wraps a read's error; no row is store.ErrNotFound.
func readErr(what string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	return fmt.Errorf("pgstore: read %s: %w", what, err)
}

// chainRecord reads the one record of chain that query selects, given
// the chain's tag as $1 and args as the rest; store.ErrNotFound for a
// chain never written.
func chainRecord[T any](ctx context.Context, s *Store, chain ids.ID, what, query string, args ...any) (T, error) {
	var v T
	t, ok, err := s.tagOf(ctx, chain)
	if err != nil {
		return v, err
	}
	if !ok {
		return v, store.ErrNotFound
	}
	var b []byte
	if err := s.pool.QueryRow(ctx, query, append([]any{t}, args...)...).Scan(&b); err != nil {
		return v, readErr(what, err)
	}
	err = decode(b, &v)
	return v, err
}

// chainState is a chain's state from the columns evm_chain_id,
// next_block and cumulative_txs of the chains table.
func chainState(evm, next, txs int64) store.ChainState {
	return store.ChainState{EVMChainID: uint64(evm), Next: uint64(next), CumulativeTxs: uint64(txs)}
}

// chainID reads a blockchain_id column.
func chainID(raw []byte) (ids.ID, error) {
	id, err := ids.FromBytes(raw)
	if err != nil {
		return id, fmt.Errorf("chain ID %x: %w", raw, err)
	}
	return id, nil
}

// Chains returns the state of every chain written.
func (s *Store) Chains(ctx context.Context) (map[ids.ID]store.ChainState, error) {
	rows, err := s.pool.Query(ctx, "SELECT blockchain_id, evm_chain_id, next_block, cumulative_txs FROM chains ORDER BY tag")
	if err != nil {
		return nil, fmt.Errorf("pgstore: read chains: %w", err)
	}
	out := map[ids.ID]store.ChainState{}
	var raw []byte
	var evm, next, txs int64
	_, err = pgx.ForEachRow(rows, []any{&raw, &evm, &next, &txs}, func() error {
		id, err := chainID(raw)
		if err != nil {
			return err
		}
		out[id] = chainState(evm, next, txs)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: read chains: %w", err)
	}
	return out, nil
}

// State returns chain's state, zero when it was never written.
func (s *Store) State(ctx context.Context, chain ids.ID) (store.ChainState, error) {
	var evm, next, txs int64
	err := s.pool.QueryRow(ctx, "SELECT evm_chain_id, next_block, cumulative_txs FROM chains WHERE blockchain_id = $1", chain[:]).Scan(&evm, &next, &txs)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ChainState{}, nil
	}
	if err != nil {
		return store.ChainState{}, fmt.Errorf("pgstore: read the state of chain %s: %w", chain, err)
	}
	return chainState(evm, next, txs), nil
}

// Block returns block n of chain.
func (s *Store) Block(ctx context.Context, chain ids.ID, n uint64) (store.Block, error) {
	return chainRecord[store.Block](ctx, s, chain, "block", "SELECT record FROM blocks WHERE chain = $1 AND number = $2", int64(n))
}

// BlockByHash returns the block of chain with hash h.
func (s *Store) BlockByHash(ctx context.Context, chain ids.ID, h common.Hash) (store.Block, error) {
	return chainRecord[store.Block](ctx, s, chain, "block", "SELECT record FROM blocks WHERE chain = $1 AND hash = $2 ORDER BY number DESC LIMIT 1", h[:])
}

// Tx returns the complete transaction of chain with hash h.
func (s *Store) Tx(ctx context.Context, chain ids.ID, h common.Hash) (store.Tx, error) {
	return chainRecord[store.Tx](ctx, s, chain, "transaction", "SELECT record FROM txs WHERE chain = $1 AND hash = $2", h[:])
}

// Token returns the recorded metadata of a token contract.
func (s *Store) Token(ctx context.Context, chain ids.ID, addr common.Address) (store.Token, error) {
	return chainRecord[store.Token](ctx, s, chain, "token", "SELECT record FROM tokens WHERE chain = $1 AND address = $2", addr[:])
}

// NFT returns the recorded metadata of one NFT.
func (s *Store) NFT(ctx context.Context, chain ids.ID, token common.Address, id *big.Int) (store.NFT, error) {
	return chainRecord[store.NFT](ctx, s, chain, "NFT", "SELECT record FROM nfts WHERE chain = $1 AND token = $2 AND token_id = $3", token[:], tokenID(id))
}

// Balance returns holder's current balance of token (id nil: ERC-20); the
// writer answers from its cache when it can.
func (s *Store) Balance(ctx context.Context, chain ids.ID, holder, token common.Address, id *big.Int) (*big.Int, error) {
	t, ok, err := s.tagOf(ctx, chain)
	if err != nil || !ok {
		return new(big.Int), err
	}
	key := holdingKey{tag: t, holding: holding{holder: holder, token: token}}
	if id != nil {
		key.id = common.BytesToHash(tokenID(id))
	}
	if s.balances != nil {
		if v, ok := s.balances.get(key); ok {
			return v, nil
		}
	}
	var text string
	if id == nil {
		err = s.pool.QueryRow(ctx, "SELECT balance::text FROM erc20_holdings WHERE chain = $1 AND holder = $2 AND token = $3",
			t, holder[:], token[:]).Scan(&text)
	} else {
		err = s.pool.QueryRow(ctx, "SELECT balance::text FROM erc1155_holdings WHERE chain = $1 AND holder = $2 AND token = $3 AND token_id = $4",
			t, holder[:], token[:], tokenID(id)).Scan(&text)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		text = "0"
	} else if err != nil {
		return nil, fmt.Errorf("pgstore: read a balance: %w", err)
	}
	bal, err := parseBalance(text)
	if err == nil && s.balances != nil {
		s.balances.put(key, bal)
	}
	return bal, err
}

// parseBalance reads a numeric balance as text.
func parseBalance(text string) (*big.Int, error) {
	b, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return nil, fmt.Errorf("pgstore: balance %q is not an integer", text)
	}
	return b, nil
}

// AddressChains returns the chains addr took part in.
func (s *Store) AddressChains(ctx context.Context, addr common.Address) ([]ids.ID, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.blockchain_id FROM address_chains a JOIN chains c ON c.tag = a.chain
		WHERE a.address = $1 ORDER BY a.chain`, addr[:])
	if err != nil {
		return nil, fmt.Errorf("pgstore: read address chains: %w", err)
	}
	out, err := pgx.AppendRows([]ids.ID(nil), rows, func(row pgx.CollectableRow) (ids.ID, error) {
		var raw []byte
		if err := row.Scan(&raw); err != nil {
			return ids.ID{}, err
		}
		return chainID(raw)
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: read address chains: %w", err)
	}
	return out, nil
}

// AddressTxs lists addr's transactions.
func (s *Store) AddressTxs(ctx context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.Tx, []byte, error) {
	return listPage[store.Tx](ctx, s, addressTxsTable, chain, addr, p)
}

// ERC721Transfers lists addr's ERC-721 transfers.
func (s *Store) ERC721Transfers(ctx context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.ERC721Item, []byte, error) {
	return listPage[store.ERC721Item](ctx, s, erc721Table, chain, addr, p)
}

// ERC1155Transfers lists addr's ERC-1155 transfers.
func (s *Store) ERC1155Transfers(ctx context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.ERC1155Item, []byte, error) {
	return listPage[store.ERC1155Item](ctx, s, erc1155Table, chain, addr, p)
}

// InternalTxs lists addr's internal transactions.
func (s *Store) InternalTxs(ctx context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.InternalItem, []byte, error) {
	return listPage[store.InternalItem](ctx, s, internalTable, chain, addr, p)
}

// Deployments lists the contracts deployer deployed.
func (s *Store) Deployments(ctx context.Context, chain ids.ID, deployer common.Address, p store.Page) ([]store.Contract, []byte, error) {
	return listPage[store.Contract](ctx, s, deploymentsTable, chain, deployer, p)
}

// cursorLen is the length of a list cursor: the block (8 bytes) and each
// position (4 bytes), big-endian, as the embedded store's key suffixes.
func (t listTable) cursorLen() int { return 8 + 4*len(t.positions) }

// page returns the statement that reads one page of t: the rows of one
// owner in the block range [$3, $4), after the cursor ($5 ...) when
// withCursor, in the order of the primary key or its reverse, $n rows.
// It is one range scan of the primary key, forwards or backwards.
func (t listTable) page(desc, withCursor bool) string {
	keys := append([]string{"block"}, t.positions...)
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT %s, record FROM %s WHERE chain = $1 AND %s = $2 AND block >= $3 AND block < $4", strings.Join(keys, ", "), t.name, t.owner)
	n := 5
	if withCursor {
		params := make([]string, len(keys))
		for i := range keys {
			params[i] = fmt.Sprintf("$%d", n)
			n++
		}
		op := ">"
		if desc {
			op = "<"
		}
		fmt.Fprintf(&b, " AND (%s) %s (%s)", strings.Join(keys, ", "), op, strings.Join(params, ", "))
	}
	order := make([]string, len(keys))
	for i, k := range keys {
		order[i] = k
		if desc {
			order[i] += " DESC"
		}
	}
	fmt.Fprintf(&b, " ORDER BY %s LIMIT $%d", strings.Join(order, ", "), n)
	return b.String()
}

// listPage reads one page of the rows of t under (chain, addr): one index
// range scan bounded by the block range and the cursor, in either
// direction, of at most Limit+1 rows (the last tells whether there is a
// next page).
func listPage[T any](ctx context.Context, s *Store, t listTable, chain ids.ID, addr common.Address, p store.Page) ([]T, []byte, error) {
	if p.Cursor != nil && len(p.Cursor) != t.cursorLen() {
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
	args := []any{tag, addr[:], int64(min(p.FromBlock, math.MaxInt64)), to}
	if p.Cursor != nil {
		args = append(args, int64(binary.BigEndian.Uint64(p.Cursor)))
		for i := range t.positions {
			args = append(args, int32(binary.BigEndian.Uint32(p.Cursor[8+4*i:])))
		}
	}
	args = append(args, limit+1)
	rows, err := s.pool.Query(ctx, t.page(p.Desc, p.Cursor != nil), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("pgstore: read %s: %w", t.name, err)
	}
	defer rows.Close()
	out := make([]T, 0, min(limit, 128))
	var next []byte
	keys := make([]int64, 1+len(t.positions))
	for rows.Next() {
		if len(out) == limit {
			next = cursorOf(keys)
			break
		}
		var block int64
		pos := make([]int32, len(t.positions))
		dest := []any{&block}
		for i := range pos {
			dest = append(dest, &pos[i])
		}
		var rec []byte
		if err := rows.Scan(append(dest, &rec)...); err != nil {
			return nil, nil, fmt.Errorf("pgstore: read %s: %w", t.name, err)
		}
		var v T
		if err := decode(rec, &v); err != nil {
			return nil, nil, err
		}
		out = append(out, v)
		keys[0] = block
		for i, x := range pos {
			keys[i+1] = int64(x)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("pgstore: read %s: %w", t.name, err)
	}
	return out, next, nil
}

// cursorOf returns the cursor of a row: its block and positions.
func cursorOf(keys []int64) []byte {
	c := binary.BigEndian.AppendUint64(nil, uint64(keys[0]))
	for _, k := range keys[1:] {
		c = binary.BigEndian.AppendUint32(c, uint32(k))
	}
	return c
}
