package api

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Reindexer refetches an NFT's metadata in the background
// (docs/data-api.md, "NFT metadata").
type Reindexer interface {
	// Reindex queues the NFT; it does not wait for the fetch.
	Reindex(ctx context.Context, chain ids.ID, token store.Token, nft store.NFT) error
}

// collectionPath is the path of an NFT collection's tokens.
const collectionPath = "/v1/chains/{chainId}/nfts/collections/{address}/tokens"

// reindexSuffix ends the path of reindexNft: .../tokens/{tokenId}:reindex.
const reindexSuffix = ":reindex"

// maxTokenID is the largest token ID, 2^256-1.
var maxTokenID = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// parseTokenID reads a token ID: decimal digits, at most 2^256-1.
func parseTokenID(s string) (*big.Int, error) {
	id, ok := new(big.Int).SetString(s, 10)
	if !ok || s == "" || s[0] == '+' || s[0] == '-' || id.Cmp(maxTokenID) > 0 {
		return nil, rest.BadRequest("tokenId: must be a token ID, decimal digits up to 2^256-1, got %s", rest.Quote(s))
	}
	return id, nil
}

// nftToken returns an NFT of a collection as the API shows it.
func nftToken(tok store.Token, n store.NFT) any {
	if tok.Kind == store.KindERC1155 {
		return erc1155Token(tok, n)
	}
	return erc721Token(tok, n)
}

// collection reads the chain, the collection address and its token
// record; a contract the indexer saw no NFT of has the zero record.
func (s *Server) collection(r *http.Request) (indexer.Chain, store.Token, error) {
	c, addr, err := s.chainAddress(r)
	if err != nil {
		return c, store.Token{}, err
	}
	tok, err := s.opts.Store.Token(r.Context(), c.Info.ID, addr)
	if errors.Is(err, store.ErrNotFound) {
		return c, store.Token{Address: addr}, nil
	}
	return c, tok, err
}

// ListNftTokens is the answer of nfts/collections/{address}/tokens.
type ListNftTokens struct {
	NextPageToken string `json:"nextPageToken,omitempty"`
	Tokens        []any  `json:"tokens"`
}

// listCollectionTokens answers GET .../nfts/collections/{address}/tokens:
// the collection's tokens the indexer saw, by token ID.
func (s *Server) listCollectionTokens(r *http.Request) (any, error) {
	c, tok, err := s.collection(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	page := store.Page{Limit: q.Int("pageSize", listPageSize)}
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	scope := rest.Scope("nftTokens", c.Info.ID.String(), lowerHex(tok.Address))
	cur, err := s.openToken(token, scope)
	if err != nil {
		return nil, err
	}
	page.Cursor = cur.C
	out := ListNftTokens{Tokens: []any{}}
	if tok.Kind != store.KindERC721 && tok.Kind != store.KindERC1155 {
		return out, nil
	}
	nfts, next, err := s.opts.Store.CollectionNFTs(r.Context(), c.Info.ID, tok.Address, page)
	if err != nil {
		return nil, storeErr(err)
	}
	for _, n := range nfts {
		out.Tokens = append(out.Tokens, nftToken(tok, n))
	}
	out.NextPageToken, err = s.sealToken(scope, next, nil)
	return out, err
}

// nft reads the collection and the token ID of .../tokens/{tokenId}
// (without suffix) and the NFT; one the indexer did not see is a 404.
func (s *Server) nft(r *http.Request, suffix string) (indexer.Chain, store.Token, store.NFT, error) {
	c, tok, err := s.collection(r)
	if err != nil {
		return c, tok, store.NFT{}, err
	}
	raw, err := rest.PathParam(r, "tokenId")
	if err != nil {
		return c, tok, store.NFT{}, err
	}
	id, err := parseTokenID(strings.TrimSuffix(raw, suffix))
	if err != nil {
		return c, tok, store.NFT{}, err
	}
	n, err := s.opts.Store.NFT(r.Context(), c.Info.ID, tok.Address, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && tok.Kind != store.KindERC721 && tok.Kind != store.KindERC1155) {
		return c, tok, n, rest.NotFound("token %s of %s not found on chain %d%s", id, address(tok.Address), c.EVMChainID, indexedTo(c))
	}
	return c, tok, n, err
}

// getTokenDetails answers GET .../nfts/collections/{address}/tokens/{tokenId}:
// the NFT with its URI and metadata.
func (s *Server) getTokenDetails(r *http.Request) (any, error) {
	raw, err := rest.PathParam(r, "tokenId")
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(raw, reindexSuffix) {
		return nil, rest.Errorf(http.StatusMethodNotAllowed, "method GET not allowed: reindex is POST")
	}
	_, tok, n, err := s.nft(r, "")
	if err != nil {
		return nil, err
	}
	return nftToken(tok, n), nil
}

// reindex answers POST .../tokens/{tokenId}:reindex with 201 and no body:
// the NFT's URI and metadata are read again in the background.
func (s *Server) reindex(w http.ResponseWriter, r *http.Request) {
	begin := time.Now()
	const endpoint = collectionPath + "/{tokenId}:reindex"
	err := s.queueReindex(r)
	status := http.StatusCreated
	if err != nil {
		var re *rest.Error
		if status = http.StatusInternalServerError; errors.As(err, &re) {
			status = re.Status
		}
		rest.WriteError(w, err)
	} else {
		w.WriteHeader(status)
	}
	s.metrics.Observe(endpoint, status, time.Since(begin))
}

// queueReindex checks the request and queues the NFT.
func (s *Server) queueReindex(r *http.Request) error {
	raw, err := rest.PathParam(r, "tokenId")
	if err != nil {
		return err
	}
	if !strings.HasSuffix(raw, reindexSuffix) {
		return rest.Errorf(http.StatusMethodNotAllowed, "method POST not allowed: use GET, or POST .../tokens/{tokenId}:reindex")
	}
	c, tok, n, err := s.nft(r, reindexSuffix)
	if err != nil {
		return err
	}
	if s.opts.Reindex == nil {
		return rest.Unavailable("this instance does not index (role api): reindex on the indexer's instance")
	}
	if err := s.opts.Reindex.Reindex(r.Context(), c.Info.ID, tok, n); err != nil {
		return rest.Unavailable("token %s of %s cannot be queued: %v", n.TokenID, address(tok.Address), err)
	}
	return nil
}

// ListErc721BalancesResponse is the answer of balances:listErc721.
type ListErc721BalancesResponse struct {
	NextPageToken       string               `json:"nextPageToken,omitempty"`
	NativeTokenBalance  NativeTokenBalance   `json:"nativeTokenBalance"`
	Erc721TokenBalances []erc721TokenBalance `json:"erc721TokenBalances"`
}

// listErc721Balances answers GET .../balances:listErc721: the native
// balance and the ERC-721 tokens the address owns now, by token address
// and token ID. It reads the address's collectibles and skips its ERC-1155
// balances, a store page at a time (each page's items all taken or
// skipped, so its cursor is where the next page starts).
func (s *Server) listErc721Balances(r *http.Request) (any, error) {
	br, err := s.readBalances(r, "listErc721", false, oneContract)
	if err != nil {
		return nil, err
	}
	native, err := s.nativeBalance(r, br, "usd")
	if err != nil {
		return nil, err
	}
	out := ListErc721BalancesResponse{NativeTokenBalance: native, Erc721TokenBalances: []erc721TokenBalance{}}
	q, limit := br.query, br.query.Limit
	var next []byte
	for {
		q.Limit = limit - len(out.Erc721TokenBalances)
		rows, more, err := s.opts.Store.Collectibles(r.Context(), br.chain.Info.ID, br.holder, q)
		if err != nil {
			return nil, storeErr(err)
		}
		for _, b := range rows {
			if b.Token.Kind != store.KindERC721 {
				continue
			}
			t := erc721Token(b.Token, b.NFT)
			t.OwnerAddress = address(br.holder)
			out.Erc721TokenBalances = append(out.Erc721TokenBalances, erc721TokenBalance{Erc721Token: t, ChainID: dec(br.chain.EVMChainID)})
		}
		if next = more; more == nil || len(out.Erc721TokenBalances) == limit {
			break
		}
		q.Cursor = more
	}
	out.NextPageToken, err = s.sealToken(br.scope, next, nil)
	return out, err
}

// chainsOfAddress answers GET /v1/chains/address/{address} as GET
// /v1/address/{address}/chains. Its pattern, /v1/chains/{chainId}/{address},
// is the one ServeMux takes beside /v1/chains/{chainId}/blocks; any
// chainId but "address" is a path it does not serve.
func (s *Server) chainsOfAddress(r *http.Request) (any, error) {
	if r.PathValue("chainId") != "address" {
		return nil, rest.NoEndpoint(r)
	}
	return s.listAddressChains(r)
}

// v2Transactions answers GET /v2/chains/{chainId}/addresses/{address}/transactions
// (listTransactionsV2): the v1 list, whose items the v2 contract extends
// only by an ERC-20 token's reputation, unknown here (null).
func (s *Server) v2Transactions(r *http.Request) (any, error) {
	q := rest.Query(r)
	q.Bool("filterSpamTokens", true) // checked; no token is known to be spam
	if err := q.Err(); err != nil {
		return nil, err
	}
	return addressPage(s, "transactionsV2", s.opts.Store.AddressTxs, s.txDetailsV2)(r)
}

// TransactionDetailsV2 is an item of the v2 transaction list.
type TransactionDetailsV2 struct {
	NativeTransaction    NativeTransaction     `json:"nativeTransaction"`
	Erc20Transfers       []Erc20TransferV2     `json:"erc20Transfers,omitempty"`
	Erc721Transfers      []Erc721Transfer      `json:"erc721Transfers,omitempty"`
	Erc1155Transfers     []Erc1155Transfer     `json:"erc1155Transfers,omitempty"`
	InternalTransactions []InternalTransaction `json:"internalTransactions,omitempty"`
}

// Erc20TransferV2 is an ERC-20 transfer of the v2 list.
type Erc20TransferV2 struct {
	From       RichAddress  `json:"from"`
	To         RichAddress  `json:"to"`
	LogIndex   uint64       `json:"logIndex"`
	Value      string       `json:"value"`
	Erc20Token Erc20TokenV2 `json:"erc20Token"`
}

// Erc20TokenV2 is an ERC-20 token with its reputation.
type Erc20TokenV2 struct {
	Erc20Token
	TokenReputation *string `json:"tokenReputation"`
}

// txDetailsV2 is an item of the v2 list.
func (s *Server) txDetailsV2(r *http.Request, c indexer.Chain, tx *store.Tx) TransactionDetailsV2 {
	v1 := s.txDetails(r, c, tx)
	d := TransactionDetailsV2{NativeTransaction: v1.NativeTransaction, Erc721Transfers: v1.Erc721Transfers,
		Erc1155Transfers: v1.Erc1155Transfers, InternalTransactions: v1.InternalTransactions}
	for _, x := range v1.Erc20Transfers {
		d.Erc20Transfers = append(d.Erc20Transfers, Erc20TransferV2{From: x.From, To: x.To, LogIndex: x.LogIndex, Value: x.Value,
			Erc20Token: Erc20TokenV2{Erc20Token: x.Erc20Token}})
	}
	return d
}
