package pgstore

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// encode returns the RLP of a record; records are made of types RLP
// encodes, so an error is a bug.
func encode(v any) []byte {
	b, err := rlp.EncodeToBytes(v)
	if err != nil {
		panic(fmt.Sprintf("pgstore: encode %T: %v", v, err))
	}
	return b
}

// tokenID returns a token ID as 32 big-endian bytes, so that IDs sort by
// value.
func tokenID(id *big.Int) []byte {
	b := make([]byte, 32)
	if id != nil {
		id.FillBytes(b)
	}
	return b
}

// Write applies a batch in one transaction: its rows (with b.Undo, block
// by block, logged: undo.go), then the chain's new state, which must not
// be ahead of the batch's first block (another writer's state would be).
func (s *Store) Write(ctx context.Context, b *store.Batch) error {
	if s.readOnly {
		return ErrReadOnly
	}
	tag, err := s.ensureTag(ctx, b.Chain)
	if err != nil {
		return err
	}
	sets, err := rowSets(b)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		batch, err := writeRows(ctx, tx, tag, b, sets)
		if err != nil {
			return err
		}
		queuePChain(batch, tag, b)
		if b.PruneUndoBelow > 0 {
			batch.Queue("DELETE FROM undo_log WHERE chain = $1 AND block < $2", tag, int64(b.PruneUndoBelow))
		}
		st := b.State
		first := st.Next
		switch {
		case len(b.Blocks) > 0:
			first = b.Blocks[0].Number
		case len(b.PBlocks) > 0:
			first = b.PBlocks[0].Height
		}
		batch.Queue(`UPDATE chains SET evm_chain_id = $2, next_block = $3, cumulative_txs = $4 WHERE tag = $1 AND next_block <= $5`,
			tag, int64(st.EVMChainID), int64(st.Next), int64(st.CumulativeTxs), int64(first)).Exec(func(ct pgconn.CommandTag) error {
			if ct.RowsAffected() != 1 {
				return fmt.Errorf("chain %s is indexed past block %d already: another writer", b.Chain, first)
			}
			return nil
		})
		return tx.SendBatch(ctx, batch).Close()
	})
	if s.balances != nil {
		for _, rows := range sets {
			if err != nil {
				s.balances.failed(tag, rows)
			} else {
				s.balances.written(tag, rows)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("pgstore: write %d blocks of chain %s: %w", len(b.Blocks), b.Chain, err)
	}
	return nil
}

// keyed is a set of rows by key in first-put order, a later put replacing
// an earlier one, as in an embedded store's batch.
type keyed[K comparable, V any] struct {
	at   map[K]int
	keys []K
	vals []V
}

func (m *keyed[K, V]) put(k K, v V) {
	if i, ok := m.at[k]; ok {
		m.vals[i] = v
		return
	}
	if m.at == nil {
		m.at = map[K]int{}
	}
	m.at[k] = len(m.keys)
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
}

// pos is the key of a row of an address's list: the address, the block
// and up to three positions in it.
type pos struct {
	addr    common.Address
	block   uint64
	a, b, c uint64
}

// holding is a holder's token (and token ID, zero for ERC-20).
type holding struct {
	holder, token common.Address
	id            common.Hash
}

// atBlock is a holding's balance after a block.
type atBlock struct {
	holding
	block uint64
}

// balanceRow is a holding's current balance and its record.
type balanceRow struct {
	balance *big.Int
	record  []byte
}

// nftKey is one NFT.
type nftKey struct {
	token common.Address
	id    common.Hash
}

// rowSet is what a batch writes, table by table, collapsed by key.
type rowSet struct {
	blocks                       []store.Block
	txs                          keyed[common.Hash, []byte]
	addrTxs, erc721, erc1155     keyed[pos, []byte]
	internal, deployments        keyed[pos, []byte]
	tokenTransfers               keyed[pos, []byte]
	active                       keyed[common.Address, struct{}]
	erc20, erc1155Held           keyed[holding, balanceRow]
	erc20History, erc1155History keyed[atBlock, *big.Int]
	// collectibles holds nil for a row to delete.
	collectibles keyed[holding, []byte]
	contracts    keyed[common.Address, []byte]
	tokens       keyed[common.Address, []byte]
	nfts         keyed[nftKey, []byte]

	// The chain lists (chainlists.go); chainTxs are by block and tx index
	// (pos.a), with the status as pos.b (1: success).
	nativeTxs, erc20Transfers, chainTxs keyed[pos, []byte]
}

// collect derives a batch's rows, as the embedded store lays them out
// (docs/data-api.md, "Storage").
func collect(b *store.Batch) *rowSet {
	r := &rowSet{blocks: b.Blocks}
	for i := range b.Txs {
		r.addTx(&b.Txs[i])
	}
	for i := range b.Balances {
		r.addBalance(&b.Balances[i])
	}
	var zero common.Address
	for _, o := range b.Ownerships {
		id := common.BytesToHash(tokenID(o.NFT.TokenID))
		if o.From != zero {
			r.collectibles.put(holding{o.From, o.Token.Address, id}, nil)
		}
		if o.To != zero {
			r.collectibles.put(holding{o.To, o.Token.Address, id}, encode(&store.Collectible{Token: o.Token, NFT: o.NFT, Balance: big.NewInt(1)}))
		}
	}
	for i := range b.Contracts {
		c := &b.Contracts[i]
		v := encode(c)
		r.deployments.put(pos{c.Deployer, c.BlockNumber, c.TxIndex, c.Frame, 0}, v)
		if c.Factory != zero && c.Factory != c.Deployer {
			r.deployments.put(pos{c.Factory, c.BlockNumber, c.TxIndex, c.Frame, 0}, v)
		}
		r.contracts.put(c.Address, v)
	}
	for i := range b.Tokens {
		r.tokens.put(b.Tokens[i].Address, encode(&b.Tokens[i]))
	}
	for i := range b.NFTs {
		n := &b.NFTs[i]
		r.nfts.put(nftKey{n.Token, common.BytesToHash(tokenID(n.NFT.TokenID))}, encode(&n.NFT))
	}
	return r
}

// addTx adds a transaction by hash, in the list of every address that
// took part in it, and its transfers and internal transactions in the
// lists of their senders and recipients.
func (r *rowSet) addTx(tx *store.Tx) {
	r.txs.put(tx.Hash, encode(tx))
	r.addTokenTransfers(tx)
	for _, v := range tx.Views() {
		r.active.put(v.Address, struct{}{})
		r.addrTxs.put(pos{v.Address, tx.BlockNumber, tx.Index, 0, 0}, encode(&v.Tx))
	}
	r.addChainLists(tx)
	ref := tx.Ref()
	for _, x := range tx.ERC721 {
		v := encode(&store.ERC721Item{Ref: ref, Transfer: x})
		for _, a := range parties(x.From, x.To) {
			r.erc721.put(pos{a, tx.BlockNumber, tx.Index, x.LogIndex, 0}, v)
		}
	}
	for _, x := range tx.ERC1155 {
		v := encode(&store.ERC1155Item{Ref: ref, Transfer: x})
		for _, a := range parties(x.From, x.To) {
			r.erc1155.put(pos{a, tx.BlockNumber, tx.Index, x.LogIndex, x.BatchIndex}, v)
		}
	}
	for _, x := range tx.Internal {
		v := encode(&store.InternalItem{Ref: ref, Tx: x})
		for _, a := range parties(x.From, x.To) {
			r.internal.put(pos{a, tx.BlockNumber, tx.Index, x.Frame, 0}, v)
		}
	}
}

// parties returns from, and to unless it is from.
func parties(from, to common.Address) []common.Address {
	if from == to {
		return []common.Address{from}
	}
	return []common.Address{from, to}
}

// addBalance adds a holder's balance after a block: its history, its
// holding (the current balance, 0 kept), and for ERC-1155 its
// collectibles.
func (r *rowSet) addBalance(c *store.BalanceChange) {
	if c.NFT == nil {
		h := holding{holder: c.Holder, token: c.Token.Address}
		r.erc20.put(h, balanceRow{c.Balance, encode(&c.Token)})
		r.erc20History.put(atBlock{h, c.Block}, c.Balance)
		return
	}
	h := holding{c.Holder, c.Token.Address, common.BytesToHash(tokenID(c.NFT.TokenID))}
	r.erc1155Held.put(h, balanceRow{c.Balance, encode(&store.ERC1155Balance{Token: c.Token, NFT: *c.NFT, Balance: new(big.Int)})})
	r.erc1155History.put(atBlock{h, c.Block}, c.Balance)
	if c.Balance.Sign() == 0 {
		r.collectibles.put(h, nil)
	} else {
		r.collectibles.put(h, encode(&store.Collectible{Token: c.Token, NFT: *c.NFT, Balance: c.Balance}))
	}
}

// The statements of a write. Rows arrive as arrays, one per column, and
// are inserted by one statement per table; an existing row is replaced,
// as in the embedded store.
const (
	sqlBlocks = `INSERT INTO blocks (chain, number, hash, record)
		SELECT $1::integer, * FROM unnest($2::bigint[], $3::bytea[], $4::bytea[])
		ON CONFLICT (chain, number) DO UPDATE SET hash = EXCLUDED.hash, record = EXCLUDED.record`
	sqlTxs = `INSERT INTO txs (chain, hash, record) SELECT $1::integer, * FROM unnest($2::bytea[], $3::bytea[])
		ON CONFLICT (chain, hash) DO UPDATE SET record = EXCLUDED.record`
	sqlAddressChains = `INSERT INTO address_chains (address, chain) SELECT a, $1::integer FROM unnest($2::bytea[]) AS a
		ON CONFLICT DO NOTHING`
	sqlERC20 = `INSERT INTO erc20_holdings (chain, holder, token, balance, record)
		SELECT $1::integer, h, t, b::numeric, r FROM unnest($2::bytea[], $3::bytea[], $4::text[], $5::bytea[]) AS u(h, t, b, r)
		ON CONFLICT (chain, holder, token) DO UPDATE SET balance = EXCLUDED.balance, record = EXCLUDED.record`
	sqlERC20History = `INSERT INTO erc20_history (chain, holder, token, block, balance)
		SELECT $1::integer, h, t, n, b::numeric FROM unnest($2::bytea[], $3::bytea[], $4::bigint[], $5::text[]) AS u(h, t, n, b)
		ON CONFLICT (chain, holder, token, block) DO UPDATE SET balance = EXCLUDED.balance`
	sqlERC1155 = `INSERT INTO erc1155_holdings (chain, holder, token, token_id, balance, record)
		SELECT $1::integer, h, t, i, b::numeric, r FROM unnest($2::bytea[], $3::bytea[], $4::bytea[], $5::text[], $6::bytea[]) AS u(h, t, i, b, r)
		ON CONFLICT (chain, holder, token, token_id) DO UPDATE SET balance = EXCLUDED.balance, record = EXCLUDED.record`
	sqlERC1155History = `INSERT INTO erc1155_history (chain, holder, token, token_id, block, balance)
		SELECT $1::integer, h, t, i, n, b::numeric FROM unnest($2::bytea[], $3::bytea[], $4::bytea[], $5::bigint[], $6::text[]) AS u(h, t, i, n, b)
		ON CONFLICT (chain, holder, token, token_id, block) DO UPDATE SET balance = EXCLUDED.balance`
	sqlCollectibles = `INSERT INTO collectibles (chain, holder, token, token_id, record)
		SELECT $1::integer, * FROM unnest($2::bytea[], $3::bytea[], $4::bytea[], $5::bytea[])
		ON CONFLICT (chain, holder, token, token_id) DO UPDATE SET record = EXCLUDED.record`
	sqlCollectiblesDelete = `DELETE FROM collectibles WHERE chain = $1::integer AND (holder, token, token_id) IN
		(SELECT * FROM unnest($2::bytea[], $3::bytea[], $4::bytea[]))`
	sqlContracts = `INSERT INTO contracts (chain, address, record) SELECT $1::integer, * FROM unnest($2::bytea[], $3::bytea[])
		ON CONFLICT (chain, address) DO UPDATE SET record = EXCLUDED.record`
	sqlTokens = `INSERT INTO tokens (chain, address, record) SELECT $1::integer, * FROM unnest($2::bytea[], $3::bytea[])
		ON CONFLICT (chain, address) DO UPDATE SET record = EXCLUDED.record`
	sqlNFTs = `INSERT INTO nfts (chain, token, token_id, record) SELECT $1::integer, * FROM unnest($2::bytea[], $3::bytea[], $4::bytea[])
		ON CONFLICT (chain, token, token_id) DO UPDATE SET record = EXCLUDED.record`
)

// listTable is a table of address lists: the owner column, the position
// columns after the block, and its statement.
type listTable struct {
	name      string
	owner     string
	positions []string
}

// The list tables, as the schema names them.
var (
	addressTxsTable  = listTable{"address_txs", "address", []string{"tx_index"}}
	erc721Table      = listTable{"address_erc721", "address", []string{"tx_index", "log_index"}}
	erc1155Table     = listTable{"address_erc1155", "address", []string{"tx_index", "log_index", "batch_index"}}
	internalTable    = listTable{"address_internal", "address", []string{"tx_index", "frame"}}
	deploymentsTable = listTable{"deployments", "deployer", []string{"tx_index", "frame"}}
)

// upsert returns the statement that writes rows of t.
func (t listTable) upsert() string {
	cols, types := t.owner+", block", "$2::bytea[], $3::bigint[]"
	for i, p := range t.positions {
		cols += ", " + p
		types += fmt.Sprintf(", $%d::integer[]", i+4)
	}
	return fmt.Sprintf(`INSERT INTO %s (chain, %s, record) SELECT $1::integer, * FROM unnest(%s, $%d::bytea[])
		ON CONFLICT (chain, %s) DO UPDATE SET record = EXCLUDED.record`, t.name, cols, types, len(t.positions)+4, cols)
}

// queue queues the statements that write the rows of the tables that
// copy leaves out, one per table with rows; importing, it queues those of
// every table, each replacing what is there: an import copies records
// that several rows share, and may copy a block again.
func (r *rowSet) queue(tag int32, importing bool) *pgx.Batch {
	b := &pgx.Batch{}
	if importing {
		r.queueAppended(b, tag)
	}
	if n := len(r.active.keys); n > 0 {
		addrs := make([][]byte, n)
		for i, a := range r.active.keys {
			addrs[i] = a.Bytes()
		}
		b.Queue(sqlAddressChains, tag, addrs)
	}
	if n := len(r.erc20.keys); n > 0 {
		holders, tokens, bals := make([][]byte, n), make([][]byte, n), make([]string, n)
		recs := make([][]byte, n)
		for i, h := range r.erc20.keys {
			holders[i], tokens[i], bals[i], recs[i] = h.holder.Bytes(), h.token.Bytes(), r.erc20.vals[i].balance.String(), r.erc20.vals[i].record
		}
		b.Queue(sqlERC20, tag, holders, tokens, bals, recs)
	}
	if n := len(r.erc1155Held.keys); n > 0 {
		holders, tokens, tids, bals, recs := make([][]byte, n), make([][]byte, n), make([][]byte, n), make([]string, n), make([][]byte, n)
		for i, h := range r.erc1155Held.keys {
			v := r.erc1155Held.vals[i]
			holders[i], tokens[i], tids[i], bals[i], recs[i] = h.holder.Bytes(), h.token.Bytes(), h.id.Bytes(), v.balance.String(), v.record
		}
		b.Queue(sqlERC1155, tag, holders, tokens, tids, bals, recs)
	}
	if len(r.collectibles.keys) > 0 {
		var put, del [4][][]byte
		for i, h := range r.collectibles.keys {
			row := [4][]byte{h.holder.Bytes(), h.token.Bytes(), h.id.Bytes(), r.collectibles.vals[i]}
			target := &put
			if row[3] == nil {
				target = &del
			}
			for c := range row {
				target[c] = append(target[c], row[c])
			}
		}
		if len(del[0]) > 0 {
			b.Queue(sqlCollectiblesDelete, tag, del[0], del[1], del[2])
		}
		if len(put[0]) > 0 {
			b.Queue(sqlCollectibles, tag, put[0], put[1], put[2], put[3])
		}
	}
	for _, m := range []struct {
		sql  string
		rows *keyed[common.Address, []byte]
	}{{sqlContracts, &r.contracts}, {sqlTokens, &r.tokens}} {
		if n := len(m.rows.keys); n > 0 {
			addrs := make([][]byte, n)
			for i, a := range m.rows.keys {
				addrs[i] = a.Bytes()
			}
			b.Queue(m.sql, tag, addrs, m.rows.vals)
		}
	}
	if n := len(r.nfts.keys); n > 0 {
		tokens, tids := make([][]byte, n), make([][]byte, n)
		for i, k := range r.nfts.keys {
			tokens[i], tids[i] = k.token.Bytes(), k.id.Bytes()
		}
		b.Queue(sqlNFTs, tag, tokens, tids, r.nfts.vals)
	}
	return b
}

// queueAppended queues the statements that write the rows of the tables
// copy fills, replacing existing rows.
func (r *rowSet) queueAppended(b *pgx.Batch, tag int32) {
	if n := len(r.blocks); n > 0 {
		nums, hashes, recs := make([]int64, n), make([][]byte, n), make([][]byte, n)
		for i := range r.blocks {
			blk := &r.blocks[i]
			nums[i], hashes[i], recs[i] = int64(blk.Number), blk.Hash.Bytes(), encode(blk)
		}
		b.Queue(sqlBlocks, tag, nums, hashes, recs)
	}
	if n := len(r.txs.keys); n > 0 {
		hashes := make([][]byte, n)
		for i, h := range r.txs.keys {
			hashes[i] = h.Bytes()
		}
		b.Queue(sqlTxs, tag, hashes, r.txs.vals)
	}
	if len(r.chainTxs.keys) > 0 {
		b.Queue(sqlChainTxs, chainTxsArgs(tag, &r.chainTxs)...)
	}
	for _, l := range r.lists() {
		if len(l.rows.keys) > 0 {
			b.Queue(l.t.upsert(), listArgs(tag, len(l.t.positions), l.rows)...)
		}
	}
	if n := len(r.erc20History.keys); n > 0 {
		holders, tokens, blocks, bals := make([][]byte, n), make([][]byte, n), make([]int64, n), make([]string, n)
		for i, h := range r.erc20History.keys {
			holders[i], tokens[i], blocks[i], bals[i] = h.holder.Bytes(), h.token.Bytes(), int64(h.block), r.erc20History.vals[i].String()
		}
		b.Queue(sqlERC20History, tag, holders, tokens, blocks, bals)
	}
	if n := len(r.erc1155History.keys); n > 0 {
		holders, tokens, tids, blocks, bals := make([][]byte, n), make([][]byte, n), make([][]byte, n), make([]int64, n), make([]string, n)
		for i, h := range r.erc1155History.keys {
			holders[i], tokens[i], tids[i], blocks[i], bals[i] = h.holder.Bytes(), h.token.Bytes(), h.id.Bytes(), int64(h.block), r.erc1155History.vals[i].String()
		}
		b.Queue(sqlERC1155History, tag, holders, tokens, tids, blocks, bals)
	}
}

// listRows is a list table with its rows.
type listRows struct {
	t    listTable
	rows *keyed[pos, []byte]
}

// lists returns the list tables with their rows.
func (r *rowSet) lists() []listRows {
	return []listRows{{addressTxsTable, &r.addrTxs}, {erc721Table, &r.erc721}, {erc1155Table, &r.erc1155},
		{internalTable, &r.internal}, {deploymentsTable, &r.deployments}, {tokenTransfersTable, &r.tokenTransfers},
		{nativeTable, &r.nativeTxs}, {erc20Table, &r.erc20Transfers}}
}

// copy writes, with COPY, the rows of the tables whose rows a write only
// adds (every key holds a block of the write, which is new): blocks,
// transactions, the address lists and the balance histories.
func (r *rowSet) copy(ctx context.Context, tx pgx.Tx, tag int32) error {
	copyRows := func(table string, cols []string, n int, row func(i int) []any) error {
		if n == 0 {
			return nil
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() func() ([]any, error) {
			i := -1
			return func() ([]any, error) {
				if i++; i == n {
					return nil, nil
				}
				return row(i), nil
			}
		}()))
		if err != nil {
			return fmt.Errorf("copy into %s: %w", table, err)
		}
		return nil
	}
	err := copyRows("blocks", []string{"chain", "number", "hash", "record"}, len(r.blocks), func(i int) []any {
		blk := &r.blocks[i]
		return []any{tag, int64(blk.Number), blk.Hash.Bytes(), encode(blk)}
	})
	if err != nil {
		return err
	}
	if err := copyRows("txs", []string{"chain", "hash", "record"}, len(r.txs.keys), func(i int) []any {
		return []any{tag, r.txs.keys[i].Bytes(), r.txs.vals[i]}
	}); err != nil {
		return err
	}
	if err := copyRows("chain_txs", chainTxsColumns, len(r.chainTxs.keys), func(i int) []any {
		return chainTxRow(tag, &r.chainTxs, i)
	}); err != nil {
		return err
	}
	for _, l := range r.lists() {
		cols := append(append([]string{"chain", l.t.owner, "block"}, l.t.positions...), "record")
		err := copyRows(l.t.name, cols, len(l.rows.keys), func(i int) []any {
			k := l.rows.keys[i]
			row := []any{tag, k.addr.Bytes(), int64(k.block)}
			for _, v := range []uint64{k.a, k.b, k.c}[:len(l.t.positions)] {
				row = append(row, int32(uint32(v)))
			}
			return append(row, l.rows.vals[i])
		})
		if err != nil {
			return err
		}
	}
	if err := copyRows("erc20_history", []string{"chain", "holder", "token", "block", "balance"}, len(r.erc20History.keys), func(i int) []any {
		h := r.erc20History.keys[i]
		return []any{tag, h.holder.Bytes(), h.token.Bytes(), int64(h.block), numeric(r.erc20History.vals[i])}
	}); err != nil {
		return err
	}
	return copyRows("erc1155_history", []string{"chain", "holder", "token", "token_id", "block", "balance"}, len(r.erc1155History.keys), func(i int) []any {
		h := r.erc1155History.keys[i]
		return []any{tag, h.holder.Bytes(), h.token.Bytes(), h.id.Bytes(), int64(h.block), numeric(r.erc1155History.vals[i])}
	})
}

// numeric returns an integer as a numeric value.
func numeric(v *big.Int) pgtype.Numeric { return pgtype.Numeric{Int: v, Valid: true} }

// listArgs returns the arguments of a list table's upsert: the tag, then
// one array per column.
func listArgs(tag int32, positions int, rows *keyed[pos, []byte]) []any {
	n := len(rows.keys)
	owners, blocks := make([][]byte, n), make([]int64, n)
	cols := make([][]int32, positions)
	for c := range cols {
		cols[c] = make([]int32, n)
	}
	for i, k := range rows.keys {
		owners[i], blocks[i] = k.addr.Bytes(), int64(k.block)
		for c, v := range []uint64{k.a, k.b, k.c}[:positions] {
			cols[c][i] = int32(uint32(v))
		}
	}
	args := []any{tag, owners, blocks}
	for _, c := range cols {
		args = append(args, c)
	}
	return append(args, rows.vals)
}
