package api

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The transaction lists of a chain, of a block and of every chain, an
// address's native transactions and ERC-20 transfers, and its native
// balance (docs/data-api.md, endpoints 28 to 35).

// handleChainLists routes the endpoints of this file; addr is the path of
// an address's endpoints.
func (s *Server) handleChainLists(mux *rest.Mux, addr string) {
	for path, h := range map[string]rest.EndpointFunc{
		"/v1/blocks":                                         s.listAllLatestBlocks("latestBlocksAllChains"),
		"/v1/chains/allTransactions":                         s.listAllLatestTransactions("allTransactions"),
		"/v1/transactions":                                   s.listAllLatestTransactions("latestTransactionsAllChains"),
		"/v1/chains/{chainId}/transactions":                  s.listLatestTransactions,
		"/v1/chains/{chainId}/blocks/{blockId}/transactions": s.listBlockTransactions,
		addr + "transactions:listNative":                     addressPage(s, "listNative", s.opts.Store.NativeTxs, nativeItem),
		addr + "transactions:listErc20":                      addressPage(s, "listErc20", s.opts.Store.ERC20Transfers, s.erc20Item),
		addr + "balances:getNative":                          s.getNativeBalance,
	} {
		mux.Handle(path, h)
	}
}

// ListNativeTransactionsResponse is the answer of the chain, block and
// every-chain transaction lists and of transactions:listNative.
type ListNativeTransactionsResponse = TransactionsPage[NativeTransaction]

// Erc20TransferItem is an ERC-20 transfer with its place: an item of
// transactions:listErc20 and of a token's transfers.
type Erc20TransferItem struct {
	ItemPlace
	Erc20Transfer
}

// ListErc20TransactionsResponse is the answer of transactions:listErc20.
type ListErc20TransactionsResponse = TransactionsPage[Erc20TransferItem]

// GetNativeBalanceResponse is the answer of balances:getNative.
type GetNativeBalanceResponse struct {
	NativeTokenBalance NativeTokenBalance `json:"nativeTokenBalance"`
}

// blockTxsPageSize is the page size of a block's transactions: the
// contract's default is 0, which lists the whole block in one page (the
// SDK reads this list as one answer); a block's gas limit bounds it.
var blockTxsPageSize = rest.IntRange{Default: 0, Min: 0, Max: listPageSize.Max}

// txStatuses are the values of the status filter, by name.
var txStatuses = map[string]store.TxStatus{"": store.AnyStatus, "success": store.Succeeded, "failed": store.Failed}

// readStatus reads the status filter.
func readStatus(q *rest.Params) (string, store.TxStatus) {
	name := q.Enum("status", "", "failed", "success")
	return name, txStatuses[name]
}

// nativeItem is an item of a transaction list.
func nativeItem(_ *http.Request, c indexer.Chain, tx *store.Tx) NativeTransaction {
	return nativeTx(tx, c.EVMChainID)
}

// erc20Item is an item of transactions:listErc20.
func (s *Server) erc20Item(r *http.Request, c indexer.Chain, x *store.ERC20Item) Erc20TransferItem {
	return Erc20TransferItem{place(x.Ref), s.erc20Transfer(r, c, &x.Transfer)}
}

// txsPage answers one page of a chain's transaction list read by list
// under scope, from the page token.
func (s *Server) txsPage(r *http.Request, c indexer.Chain, token, scope string,
	list func(ctx context.Context, p store.Page) ([]store.Tx, []byte, error), p store.Page) (any, error) {
	cur, err := s.openToken(token, scope)
	if err != nil {
		return nil, err
	}
	p.Cursor = cur.C
	txs, next, err := list(r.Context(), p)
	if err != nil {
		return nil, storeErr(err)
	}
	out := ListNativeTransactionsResponse{Transactions: make([]NativeTransaction, 0, len(txs))}
	for i := range txs {
		out.Transactions = append(out.Transactions, nativeItem(r, c, &txs[i]))
	}
	out.NextPageToken, err = s.sealToken(scope, next, nil)
	return out, err
}

// listLatestTransactions answers GET /v1/chains/{chainId}/transactions:
// the chain's transactions, newest first, of the status asked.
func (s *Server) listLatestTransactions(r *http.Request) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	p := store.Page{Limit: q.Int("pageSize", listPageSize), Desc: true}
	token := q.String("pageToken", "")
	name, status := readStatus(q)
	if err := q.Err(); err != nil {
		return nil, err
	}
	return s.txsPage(r, c, token, rest.Scope("chainTransactions", c.Info.ID.String(), name), func(ctx context.Context, p store.Page) ([]store.Tx, []byte, error) {
		return s.opts.Store.ChainTxs(ctx, c.Info.ID, status, p)
	}, p)
}

// listBlockTransactions answers GET
// /v1/chains/{chainId}/blocks/{blockId}/transactions: the block's
// transactions in their order, all of them unless pageSize is given. A
// page token is bound to the block's hash.
func (s *Server) listBlockTransactions(r *http.Request) (any, error) {
	c, blk, err := s.block(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	limit := q.Int("pageSize", blockTxsPageSize)
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = max(int(blk.TxCount), 1)
	}
	p := store.Page{Limit: limit, FromBlock: blk.Number, ToBlock: blk.Number + 1}
	return s.txsPage(r, c, token, rest.Scope("blockTransactions", c.Info.ID.String(), hash(blk.Hash)), func(ctx context.Context, p store.Page) ([]store.Tx, []byte, error) {
		return s.opts.Store.ChainTxs(ctx, c.Info.ID, store.AnyStatus, p)
	}, p)
}

// latestTxs is the source of the lists of every chain's transactions of a
// status: a cursor is the store's, and the first page starts below the
// block after the chain's indexed height.
func (s *Server) latestTxs(status store.TxStatus) latestSource[store.Tx, NativeTransaction] {
	return latestSource[store.Tx, NativeTransaction]{
		read: func(ctx context.Context, c indexer.Chain, cursor []byte, limit int) (chainPage[store.Tx], error) {
			var page chainPage[store.Tx]
			if cursor == nil {
				height, indexed, err := s.height(ctx, c)
				if err != nil || !indexed {
					return page, err
				}
				cursor = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, height+1), 0)
			}
			page.start = cursor
			txs, next, err := s.opts.Store.ChainTxs(ctx, c.Info.ID, status, store.Page{Limit: limit, Desc: true, Cursor: cursor})
			if err != nil {
				return page, storeErr(err)
			}
			page.items, page.more = txs, next != nil
			for _, tx := range txs {
				page.after = append(page.after, binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, tx.BlockNumber), uint32(tx.Index)))
			}
			return page, nil
		},
		time: func(tx *store.Tx) uint64 { return tx.BlockTimestamp },
		item: nativeItem,
	}
}

// listAllLatestTransactions answers GET /v1/chains/allTransactions and
// GET /v1/transactions (endpoint, the token's scope): the transactions of
// every EVM chain of the node, newest first, of the status asked.
func (s *Server) listAllLatestTransactions(endpoint string) rest.EndpointFunc {
	return func(r *http.Request) (any, error) {
		q := rest.Query(r)
		name, status := readStatus(q)
		txs, next, err := listAllLatest(s, r, q, s.latestTxs(status), endpoint, name)
		return ListNativeTransactionsResponse{NextPageToken: next, Transactions: txs}, err
	}
}

// getNativeBalance answers GET .../balances:getNative: the native balance
// at blockNumber (default: the chain's latest block), read from the
// chain, with its price in currency when there is a price source.
func (s *Server) getNativeBalance(r *http.Request) (any, error) {
	c, holder, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	raw := q.String("blockNumber", "")
	currency := q.Enum("currency", "usd", currencies...)
	if err := q.Err(); err != nil {
		return nil, err
	}
	br := &balanceRequest{chain: c, holder: holder}
	if raw != "" {
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil {
			return nil, rest.BadRequest("blockNumber: must be a block number (decimal digits), got %s", rest.Quote(raw))
		}
		br.block, br.explicit = &n, true
	}
	native, err := s.nativeBalance(r, br, currency)
	return GetNativeBalanceResponse{NativeTokenBalance: native}, err
}

// block resolves the chainId and blockId path values: blockId is a block
// number (decimal) or a block hash.
func (s *Server) block(r *http.Request) (indexer.Chain, store.Block, error) {
	c, id, err := s.chainParam(r, "blockId")
	if err != nil {
		return c, store.Block{}, err
	}
	bad := rest.BadRequest("blockId: must be a block number or a block hash (0x and 64 hex digits), got %s", rest.Quote(id))
	var blk store.Block
	if strings.HasPrefix(id, "0x") || strings.HasPrefix(id, "0X") {
		h, err := parseHash("blockId", id)
		if err != nil {
			return c, blk, bad
		}
		blk, err = s.opts.Store.BlockByHash(r.Context(), c.Info.ID, h)
		if errors.Is(err, store.ErrNotFound) {
			return c, blk, rest.NotFound("block %s not found on chain %d", hash(h), c.EVMChainID)
		}
		return c, blk, err
	}
	n, perr := strconv.ParseUint(id, 10, 64)
	if perr != nil {
		return c, blk, bad
	}
	blk, err = s.opts.Store.Block(r.Context(), c.Info.ID, n)
	if errors.Is(err, store.ErrNotFound) {
		return c, blk, rest.NotFound("block %d not found on chain %d%s", n, c.EVMChainID, indexedTo(c))
	}
	return c, blk, err
}

// erc20Transfer returns an ERC-20 transfer, with the token's price when
// there is a price source.
func (s *Server) erc20Transfer(r *http.Request, c indexer.Chain, x *store.ERC20Transfer) Erc20Transfer {
	return Erc20Transfer{
		From: rich(x.From), To: rich(x.To), LogIndex: x.LogIndex, Value: decBig(x.Value),
		Erc20Token: erc20Token(x.Token, s.price(r.Context(), c, x.Token.Address, "usd", 0)),
	}
}
