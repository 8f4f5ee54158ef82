package pgstore

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// balanceTable is a kind of balance list: its current rows and, for
// balances at a past block, its history.
type balanceTable struct {
	// current is the table of what a holder holds, by token (and token
	// ID); nonZero is the condition of the rows held now, which a partial
	// index covers ("" when every row is).
	current, nonZero string
	// history is the table of balances after each block; "" when the
	// list is of the current rows only.
	history string
	// withID says the rows are by token and token ID.
	withID bool
}

var (
	erc20Balances   = balanceTable{current: "erc20_holdings", nonZero: "balance <> 0", history: "erc20_history"}
	erc1155Balances = balanceTable{current: "erc1155_holdings", nonZero: "balance <> 0", history: "erc1155_history", withID: true}
	collectibleRows = balanceTable{current: "collectibles", withID: true}
)

// cursorLen is the length of a balance cursor: the token, and the token ID.
func (t balanceTable) cursorLen() int {
	if t.withID {
		return common.AddressLength + 32
	}
	return common.AddressLength
}

// filter is how a balance page is limited to some tokens.
type filter int

const (
	allTokens  filter = iota
	oneToken          // $k: one token, in the range scan
	someTokens        // $k: an array of tokens, one seek each
)

// page returns the statement that reads one page of a holder's balances
// ($1 chain, $2 holder), by token (and token ID). Latest balances are one
// range scan of the rows held now. Balances at block $3 scan every token
// the holder ever held and seek once per token into the history for the
// last change at or before the block, skipping those at zero there. After
// the cursor and within the filter when asked: one token narrows the
// range; several are one seek each, then sorted (at most one row per
// token listed: several tokens are only asked of ERC-20 balances). $n
// rows.
func (t balanceTable) page(atBlock, withCursor bool, f filter) string {
	keys := "h.token"
	if t.withID {
		keys += ", h.token_id"
	}
	balance := "NULL::text"
	switch {
	case atBlock:
		balance = "x.balance::text"
	case t.nonZero != "":
		balance = "h.balance::text"
	}
	n := 3
	if atBlock {
		n++
	}
	var where []string
	if !atBlock && t.nonZero != "" {
		where = append(where, "h."+t.nonZero)
	}
	if withCursor {
		if t.withID {
			where = append(where, fmt.Sprintf("(h.token, h.token_id) > ($%d, $%d)", n, n+1))
			n += 2
		} else {
			where = append(where, fmt.Sprintf("h.token > $%d", n))
			n++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT %s, %s, h.record FROM ", keys, balance)
	switch f {
	case allTokens:
		fmt.Fprintf(&b, "%s h", t.current)
	case oneToken:
		fmt.Fprintf(&b, "%s h", t.current)
		where = append(where, fmt.Sprintf("h.token = $%d", n))
		n++
	case someTokens:
		fmt.Fprintf(&b, "unnest($%d::bytea[]) AS f(token) JOIN %s h ON h.token = f.token", n, t.current)
		n++
	}
	if atBlock {
		match := "y.token = h.token"
		if t.withID {
			match += " AND y.token_id = h.token_id"
		}
		fmt.Fprintf(&b, " CROSS JOIN LATERAL (SELECT y.balance FROM %s y WHERE y.chain = h.chain AND y.holder = h.holder AND %s"+
			" AND y.block <= $3 ORDER BY y.block DESC LIMIT 1) x", t.history, match)
		where = append(where, "x.balance <> 0")
	}
	b.WriteString(" WHERE h.chain = $1 AND h.holder = $2")
	for _, w := range where {
		b.WriteString(" AND " + w)
	}
	fmt.Fprintf(&b, " ORDER BY %s LIMIT $%d", keys, n)
	return b.String()
}

// balanceItem is one row of a balance page.
type balanceItem struct {
	token   common.Address
	id      []byte
	balance *big.Int // nil for collectibles
	record  []byte
}

// balancePage reads one page of holder's balances.
func (s *Store) balancePage(ctx context.Context, t balanceTable, chain ids.ID, holder common.Address, q store.BalanceQuery) ([]balanceItem, []byte, error) {
	if q.Cursor != nil && len(q.Cursor) != t.cursorLen() {
		return nil, nil, store.ErrBadCursor
	}
	tag, ok, err := s.tagOf(ctx, chain)
	if err != nil || !ok {
		return nil, nil, err
	}
	atBlock := !q.Latest && t.history != ""
	args := []any{tag, holder[:]}
	if atBlock {
		args = append(args, int64(q.Block))
	}
	if q.Cursor != nil {
		args = append(args, q.Cursor[:common.AddressLength])
		if t.withID {
			args = append(args, q.Cursor[common.AddressLength:])
		}
	}
	f := allTokens
	if tokens := distinct(q.Tokens); len(tokens) == 1 {
		f = oneToken
		args = append(args, tokens[0])
	} else if len(tokens) > 1 {
		f = someTokens
		args = append(args, tokens)
	}
	limit := max(q.Limit, 1)
	args = append(args, limit+1)
	if f == someTokens {
		// Planned for its values each time (an unnamed statement): a
		// generic plan, not knowing how many tokens the array holds, may
		// scan all the holder's rows instead of seeking each token.
		args = append([]any{pgx.QueryExecModeExec}, args...)
	}
	rows, err := s.pool.Query(ctx, t.page(atBlock, q.Cursor != nil, f), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("pgstore: read %s: %w", t.current, err)
	}
	defer rows.Close()
	out := make([]balanceItem, 0, min(limit, 128))
	var next []byte
	for rows.Next() {
		if len(out) == limit {
			last := out[len(out)-1]
			next = append(last.token.Bytes(), last.id...)
			break
		}
		var it balanceItem
		var token []byte
		var balance *string
		dest := []any{&token}
		if t.withID {
			dest = append(dest, &it.id)
		}
		if err := rows.Scan(append(dest, &balance, &it.record)...); err != nil {
			return nil, nil, fmt.Errorf("pgstore: read %s: %w", t.current, err)
		}
		it.token = common.BytesToAddress(token)
		if balance != nil {
			if it.balance, err = parseBalance(*balance); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("pgstore: read %s: %w", t.current, err)
	}
	return out, next, nil
}

// distinct returns the tokens without repeats, as bytes.
func distinct(tokens []common.Address) [][]byte {
	seen := make(map[common.Address]bool, len(tokens))
	var out [][]byte
	for _, a := range tokens {
		if !seen[a] {
			seen[a] = true
			out = append(out, a.Bytes())
		}
	}
	return out
}

// ERC20Balances lists holder's ERC-20 balances at a block.
func (s *Store) ERC20Balances(ctx context.Context, chain ids.ID, holder common.Address, q store.BalanceQuery) ([]store.ERC20Balance, []byte, error) {
	return balances(ctx, s, erc20Balances, chain, holder, q, func(it balanceItem, b *store.ERC20Balance) error {
		b.Balance = it.balance
		return decode(it.record, &b.Token)
	})
}

// ERC1155Balances lists holder's ERC-1155 balances at a block.
func (s *Store) ERC1155Balances(ctx context.Context, chain ids.ID, holder common.Address, q store.BalanceQuery) ([]store.ERC1155Balance, []byte, error) {
	return balances(ctx, s, erc1155Balances, chain, holder, q, func(it balanceItem, b *store.ERC1155Balance) error {
		if err := decode(it.record, b); err != nil {
			return err
		}
		b.Balance = it.balance
		return nil
	})
}

// Collectibles lists what holder owns now.
func (s *Store) Collectibles(ctx context.Context, chain ids.ID, holder common.Address, q store.BalanceQuery) ([]store.Collectible, []byte, error) {
	q.Latest = true
	return balances(ctx, s, collectibleRows, chain, holder, q, func(it balanceItem, c *store.Collectible) error {
		return decode(it.record, c)
	})
}

// balances reads one page of holder's balances of t (balancePage), each
// row made an item by build.
func balances[T any](ctx context.Context, s *Store, t balanceTable, chain ids.ID, holder common.Address, q store.BalanceQuery,
	build func(it balanceItem, item *T) error) ([]T, []byte, error) {
	items, next, err := s.balancePage(ctx, t, chain, holder, q)
	if err != nil {
		return nil, nil, err
	}
	out := make([]T, len(items))
	for i, it := range items {
		if err := build(it, &out[i]); err != nil {
			return nil, nil, err
		}
	}
	return out, next, nil
}
