package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// addressList reads what every address list needs: the chain, the
// address, the list query and the page token's cursor, under a scope made
// of the endpoint, the chain, the address and the range and order.
func (s *Server) addressList(r *http.Request, endpoint string) (indexer.Chain, common.Address, store.Page, string, error) {
	c, addr, err := s.chainAddress(r)
	if err != nil {
		return c, addr, store.Page{}, "", err
	}
	q := rest.Query(r)
	lq := readList(q)
	if err := q.Err(); err != nil {
		return c, addr, lq.page, "", err
	}
	if err := lq.check(); err != nil {
		return c, addr, lq.page, "", err
	}
	scope := rest.Scope(endpoint, c.Info.ID.String(), lowerHex(addr), lq.start, lq.end, lq.order)
	cur, err := s.openToken(lq.token, scope)
	if err != nil {
		return c, addr, lq.page, "", err
	}
	lq.page.Cursor = cur.C
	return c, addr, lq.page, scope, nil
}

// TransactionsPage is one page of an address list: transactions,
// transfers or internal transactions.
type TransactionsPage[T any] struct {
	NextPageToken string `json:"nextPageToken,omitempty"`
	Transactions  []T    `json:"transactions"`
}

// The answers of .../transactions, transactions:listErc721,
// transactions:listErc1155 and transactions:listInternals.
type (
	ListTransactionDetailsResponse   = TransactionsPage[TransactionDetails]
	ListErc721TransactionsResponse   = TransactionsPage[Erc721TransferItem]
	ListErc1155TransactionsResponse  = TransactionsPage[Erc1155TransferItem]
	ListInternalTransactionsResponse = TransactionsPage[InternalTransactionItem]
)

// addressPage answers an address list endpoint (GET
// .../addresses/{address}/<endpoint>): one page of the store's list of
// the address, each row made an item by item.
func addressPage[T, I any](s *Server, endpoint string,
	list func(ctx context.Context, chain ids.ID, addr common.Address, p store.Page) ([]T, []byte, error),
	item func(r *http.Request, c indexer.Chain, row *T) I) rest.EndpointFunc {
	return func(r *http.Request) (any, error) {
		c, addr, page, scope, err := s.addressList(r, endpoint)
		if err != nil {
			return nil, err
		}
		rows, next, err := list(r.Context(), c.Info.ID, addr, page)
		if err != nil {
			return nil, storeErr(err)
		}
		out := TransactionsPage[I]{Transactions: make([]I, 0, len(rows))}
		for i := range rows {
			out.Transactions = append(out.Transactions, item(r, c, &rows[i]))
		}
		out.NextPageToken, err = s.sealToken(scope, next, nil)
		return out, err
	}
}

// txDetails is an item of .../transactions.
func (s *Server) txDetails(r *http.Request, c indexer.Chain, tx *store.Tx) TransactionDetails {
	d := TransactionDetails{NativeTransaction: nativeTx(tx, c.EVMChainID), Erc20Transfers: s.erc20Transfers(r, c, tx)}
	d.Erc721Transfers, d.Erc1155Transfers, d.InternalTransactions = nftTransfers(tx)
	return d
}

// erc20Transfers returns a transaction's ERC-20 transfers, with prices
// when there is a price source.
func (s *Server) erc20Transfers(r *http.Request, c indexer.Chain, tx *store.Tx) []Erc20Transfer {
	var out []Erc20Transfer
	for i := range tx.ERC20 {
		out = append(out, s.erc20Transfer(r, c, &tx.ERC20[i]))
	}
	return out
}

// nftTransfers returns a transaction's ERC-721 and ERC-1155 transfers and
// internal transactions.
func nftTransfers(tx *store.Tx) ([]Erc721Transfer, []Erc1155Transfer, []InternalTransaction) {
	var (
		a []Erc721Transfer
		b []Erc1155Transfer
		c []InternalTransaction
	)
	for i := range tx.ERC721 {
		a = append(a, erc721Transfer(&tx.ERC721[i]))
	}
	for i := range tx.ERC1155 {
		b = append(b, erc1155Transfer(&tx.ERC1155[i]))
	}
	for i := range tx.Internal {
		c = append(c, internalTx(&tx.Internal[i]))
	}
	return a, b, c
}

// erc721Item is an item of transactions:listErc721.
func erc721Item(_ *http.Request, _ indexer.Chain, x *store.ERC721Item) Erc721TransferItem {
	return Erc721TransferItem{place(x.Ref), erc721Transfer(&x.Transfer)}
}

// erc1155Item is an item of transactions:listErc1155.
func erc1155Item(_ *http.Request, _ indexer.Chain, x *store.ERC1155Item) Erc1155TransferItem {
	return Erc1155TransferItem{place(x.Ref), erc1155Transfer(&x.Transfer)}
}

// internalItem is an item of transactions:listInternals.
func internalItem(_ *http.Request, _ indexer.Chain, x *store.InternalItem) InternalTransactionItem {
	return InternalTransactionItem{place(x.Ref), internalTx(&x.Tx)}
}

// getTransaction answers GET /v1/chains/{chainId}/transactions/{txHash}:
// the complete transaction.
func (s *Server) getTransaction(r *http.Request) (any, error) {
	c, raw, err := s.chainParam(r, "txHash")
	if err != nil {
		return nil, err
	}
	h, err := parseHash("txHash", raw)
	if err != nil {
		return nil, err
	}
	tx, err := s.opts.Store.Tx(r.Context(), c.Info.ID, h)
	if errors.Is(err, store.ErrNotFound) {
		return nil, rest.NotFound("transaction %s not found on chain %d", hash(h), c.EVMChainID)
	}
	if err != nil {
		return nil, err
	}
	return s.transaction(r, c, &tx, "usd"), nil
}

// transaction returns the complete answer about tx, prices in currency.
func (s *Server) transaction(r *http.Request, c indexer.Chain, tx *store.Tx, currency string) GetTransactionResponse {
	full := FullNativeTransaction{
		NativeTransaction: nativeTx(tx, c.EVMChainID),
		Input:             "0x" + common.Bytes2Hex(tx.Input),
		BaseFeePerGas:     decBig(tx.BaseFee),
	}
	if tx.DynamicFee {
		full.MaxFeePerGas, full.MaxPriorityFeePerGas = decBig(tx.MaxFeePerGas), decBig(tx.MaxPriorityFeePerGas)
	}
	out := GetTransactionResponse{
		Erc20Transfers:      s.erc20Transfers(r, c, tx),
		NetworkTokenDetails: NetworkTokenDetails{NetworkToken: s.networkToken(c)},
		NativeTransaction:   full,
	}
	out.Erc721Transfers, out.Erc1155Transfers, out.InternalTransactions = nftTransfers(tx)
	out.NetworkTokenDetails.CurrentPrice = s.price(r.Context(), c, common.Address{}, currency, 0)
	out.NetworkTokenDetails.HistoricalPrice = s.price(r.Context(), c, common.Address{}, currency, tx.BlockTimestamp)
	return out
}

// getBlock answers GET /v1/chains/{chainId}/blocks/{blockId}: blockId is
// a block number (decimal) or a block hash.
func (s *Server) getBlock(r *http.Request) (any, error) {
	c, blk, err := s.block(r)
	if err != nil {
		return nil, err
	}
	return evmBlock(c, &blk), nil
}

// indexedTo says how far a chain is indexed, for a 404 message.
func indexedTo(c indexer.Chain) string {
	if !c.Indexed {
		return " (no block is indexed yet)"
	}
	return " (indexed to block " + dec(c.Height) + ")"
}

// ListContractsResponse is the answer of contracts/{address}/deployments.
type ListContractsResponse struct {
	NextPageToken string             `json:"nextPageToken,omitempty"`
	Contracts     []DeployedContract `json:"contracts"`
}

// listDeployments answers GET /v1/chains/{chainId}/contracts/{address}/deployments:
// the contracts the address deployed, by transaction or as a factory,
// oldest first.
func (s *Server) listDeployments(r *http.Request) (any, error) {
	c, addr, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	page := store.Page{Limit: q.Int("pageSize", listPageSize)}
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	scope := rest.Scope("deployments", c.Info.ID.String(), lowerHex(addr))
	cur, err := s.openToken(token, scope)
	if err != nil {
		return nil, err
	}
	page.Cursor = cur.C
	contracts, next, err := s.opts.Store.Deployments(r.Context(), c.Info.ID, addr, page)
	if err != nil {
		return nil, storeErr(err)
	}
	out := ListContractsResponse{Contracts: make([]DeployedContract, 0, len(contracts))}
	for _, k := range contracts {
		out.Contracts = append(out.Contracts, deployedContract(k))
	}
	out.NextPageToken, err = s.sealToken(scope, next, nil)
	return out, err
}
