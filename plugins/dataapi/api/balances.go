package api

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/evmrpc"
	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/price"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// currencies are the values of the currency parameter.
var currencies = []string{"usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd"}

// maxContractFilter is the most addresses contractAddresses may list.
const maxContractFilter = 500

// historicalAge is how old a transaction must be for a historical price.
const historicalAge = 24 * time.Hour

// price returns the price of a token (zero address: the native token) in
// currency, at a Unix time (0: now); nil without a price source or price.
func (s *Server) price(ctx context.Context, c indexer.Chain, token common.Address, currency string, at uint64) *Money {
	if s.opts.Prices == nil {
		return nil
	}
	q := price.Query{EVMChainID: c.EVMChainID, Token: token, Currency: currency}
	if at > 0 {
		q.At = time.Unix(int64(at), 0)
		if time.Since(q.At) < historicalAge {
			return nil
		}
	}
	v, ok, err := s.opts.Prices.Price(ctx, q)
	if err != nil {
		s.log.Warn("price source failed", "token", token, "currency", currency, "error", err)
		return nil
	}
	if !ok {
		return nil
	}
	return &Money{CurrencyCode: currency, Value: v}
}

// worth returns the value of balance base units of a token with decimals
// at price p; nil without a price.
func worth(balance *big.Int, decimals uint64, p *Money) *Money {
	if p == nil {
		return nil
	}
	v := new(big.Float).SetInt(balance)
	v.Quo(v, new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), new(big.Int).SetUint64(decimals), nil)))
	v.Mul(v, big.NewFloat(p.Value))
	f, _ := v.Float64()
	return &Money{CurrencyCode: p.CurrencyCode, Value: f}
}

// balanceRequest is what the balance lists read before the store.
type balanceRequest struct {
	chain  indexer.Chain
	holder common.Address
	query  store.BalanceQuery
	block  *uint64 // the block read; nil when the chain has none indexed
	scope  string
	// explicit is set when the client named the block.
	explicit bool
}

// readBalances reads the chain, the holder, blockNumber (when withBlock),
// pageSize, pageToken and the contract filter under the scope made of the
// endpoint and extra, and settles the block: the one named, or for the
// first page the chain's indexed height, which later pages keep.
func (s *Server) readBalances(r *http.Request, endpoint string, withBlock bool, read func(q *rest.Params) ([]common.Address, []string, error)) (*balanceRequest, error) {
	c, holder, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	var blockRaw string
	if withBlock {
		blockRaw = q.String("blockNumber", "")
	}
	br := &balanceRequest{chain: c, holder: holder}
	br.query.Limit = q.Int("pageSize", balancePageSize)
	token := q.String("pageToken", "")
	filter, extra, filterErr := read(q)
	if err := q.Err(); err != nil {
		return nil, err
	}
	if filterErr != nil {
		return nil, filterErr
	}
	br.query.Tokens = filter
	var named uint64
	if blockRaw != "" {
		if named, err = strconv.ParseUint(blockRaw, 10, 64); err != nil {
			return nil, rest.BadRequest("blockNumber: must be a block number (decimal digits), got %s", rest.Quote(blockRaw))
		}
		br.explicit = true
	}
	br.scope = rest.Scope(append([]string{endpoint, c.Info.ID.String(), lowerHex(holder), blockRaw}, extra...)...)
	cur, err := s.openToken(token, br.scope)
	if err != nil {
		return nil, err
	}
	br.query.Cursor = cur.C
	st, err := s.opts.Store.State(r.Context(), c.Info.ID)
	if err != nil {
		return nil, err
	}
	height, indexed := st.Height()
	switch {
	case br.explicit:
		if !indexed || named > height {
			return nil, rest.NotFound("block %d is not indexed on chain %d%s", named, c.EVMChainID, indexedTo(indexer.Chain{Indexed: indexed, Height: height}))
		}
		br.block = &named
	case cur.B != nil:
		br.block = cur.B
	case indexed:
		br.block = &height
	}
	// The current balances are one scan; a block the client named is read
	// from the history even at the height, which may move under the scan.
	switch {
	case br.block == nil:
		br.query.Latest = true // nothing indexed: the current tables are empty
	case *br.block == height && !br.explicit:
		br.query.Latest = true
	default:
		br.query.Block = *br.block
	}
	return br, nil
}

// contractFilter reads a contract address filter parameter: a list
// (contractAddresses) or one address (contractAddress). It returns the
// addresses and their scope part.
func contractFilter(q *rest.Params, name string, list bool) ([]common.Address, []string, error) {
	var raw []string
	if list {
		raw = q.List(name)
	} else if v := q.String(name, ""); v != "" {
		raw = []string{v}
	}
	if len(raw) > maxContractFilter {
		return nil, nil, rest.BadRequest("%s: at most %d addresses, got %d", name, maxContractFilter, len(raw))
	}
	out := make([]common.Address, 0, len(raw))
	scope := make([]string, 0, len(raw))
	for _, a := range raw {
		addr, err := parseAddress(name, a)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, addr)
		scope = append(scope, lowerHex(addr))
	}
	slices.Sort(scope)
	return out, []string{strings.Join(slices.Compact(scope), ",")}, nil
}

// oneContract reads the filter of one contract, contractAddress.
func oneContract(q *rest.Params) ([]common.Address, []string, error) {
	return contractFilter(q, "contractAddress", false)
}

// nativeBalance returns the holder's native balance at the request's
// block. A block the chain no longer has the state of is a 404 when the
// client named it; the indexed height falls back to the latest state.
func (s *Server) nativeBalance(r *http.Request, br *balanceRequest, currency string) (NativeTokenBalance, error) {
	c := br.chain
	calls := s.opts.Host.Calls
	if c.Calls != nil {
		calls = c.Calls
	}
	rpc := evmrpc.New(calls, c.Info.ID.String())
	bal, err := rpc.Balance(r.Context(), br.holder, br.block)
	var rpcErr *evmrpc.Error
	if err != nil && errors.As(err, &rpcErr) && !br.explicit {
		bal, err = rpc.Balance(r.Context(), br.holder, nil)
	}
	switch {
	case err != nil && errors.As(err, &rpcErr) && br.explicit:
		return NativeTokenBalance{}, rest.NotFound("the state of chain %d at block %d is not available: %s", c.EVMChainID, *br.block, rpcErr.Message)
	case err != nil:
		return NativeTokenBalance{}, rest.Unavailable("chain %d does not answer: the native balance cannot be read", c.EVMChainID).WithCause(err)
	}
	tok := s.networkToken(c)
	p := s.price(r.Context(), c, common.Address{}, currency, 0)
	return NativeTokenBalance{
		Name: tok.Name, Symbol: tok.Symbol, Decimals: tok.Decimals, LogoURI: tok.LogoURI, ChainID: dec(c.EVMChainID),
		Price: p, Balance: bal.String(), BalanceValue: worth(bal, tok.Decimals, p),
	}, nil
}

// ListErc20BalancesResponse is the answer of balances:listErc20.
type ListErc20BalancesResponse struct {
	NextPageToken      string              `json:"nextPageToken,omitempty"`
	NativeTokenBalance NativeTokenBalance  `json:"nativeTokenBalance"`
	Erc20TokenBalances []Erc20TokenBalance `json:"erc20TokenBalances"`
}

// listErc20Balances answers GET .../balances:listErc20: the native
// balance and the non-zero ERC-20 balances at blockNumber (default: the
// indexed height), by token address.
func (s *Server) listErc20Balances(r *http.Request) (any, error) {
	var currency string
	br, err := s.readBalances(r, "listErc20", true, func(q *rest.Params) ([]common.Address, []string, error) {
		spam := q.Bool("filterSpamTokens", true)
		currency = q.Enum("currency", "usd", currencies...)
		filter, scope, err := contractFilter(q, "contractAddresses", true)
		return filter, append(scope, strconv.FormatBool(spam)), err
	})
	if err != nil {
		return nil, err
	}
	native, err := s.nativeBalance(r, br, currency)
	if err != nil {
		return nil, err
	}
	rows, next, err := s.opts.Store.ERC20Balances(r.Context(), br.chain.Info.ID, br.holder, br.query)
	if err != nil {
		return nil, storeErr(err)
	}
	out := ListErc20BalancesResponse{NativeTokenBalance: native, Erc20TokenBalances: make([]Erc20TokenBalance, 0, len(rows))}
	for _, b := range rows {
		p := s.price(r.Context(), br.chain, b.Token.Address, currency, 0)
		out.Erc20TokenBalances = append(out.Erc20TokenBalances, Erc20TokenBalance{
			Erc20Token: erc20Token(b.Token, p), ChainID: dec(br.chain.EVMChainID), Balance: decBig(b.Balance),
			BalanceValue: worth(b.Balance, b.Token.Decimals, p),
		})
	}
	out.NextPageToken, err = s.sealToken(br.scope, next, br.block)
	return out, err
}

// ListErc1155BalancesResponse is the answer of balances:listErc1155.
type ListErc1155BalancesResponse struct {
	NextPageToken        string                `json:"nextPageToken,omitempty"`
	NativeTokenBalance   NativeTokenBalance    `json:"nativeTokenBalance"`
	Erc1155TokenBalances []Erc1155TokenBalance `json:"erc1155TokenBalances"`
}

// listErc1155Balances answers GET .../balances:listErc1155: the native
// balance and the non-zero ERC-1155 balances at blockNumber (default: the
// indexed height), by token address and token ID.
func (s *Server) listErc1155Balances(r *http.Request) (any, error) {
	br, err := s.readBalances(r, "listErc1155", true, oneContract)
	if err != nil {
		return nil, err
	}
	native, err := s.nativeBalance(r, br, "usd")
	if err != nil {
		return nil, err
	}
	rows, next, err := s.opts.Store.ERC1155Balances(r.Context(), br.chain.Info.ID, br.holder, br.query)
	if err != nil {
		return nil, storeErr(err)
	}
	out := ListErc1155BalancesResponse{NativeTokenBalance: native, Erc1155TokenBalances: make([]Erc1155TokenBalance, 0, len(rows))}
	for _, b := range rows {
		out.Erc1155TokenBalances = append(out.Erc1155TokenBalances, erc1155Balance(br.chain, b.Token, b.NFT, b.Balance))
	}
	out.NextPageToken, err = s.sealToken(br.scope, next, br.block)
	return out, err
}

// erc1155Balance returns an ERC-1155 balance item.
func erc1155Balance(c indexer.Chain, tok store.Token, nft store.NFT, bal *big.Int) Erc1155TokenBalance {
	return Erc1155TokenBalance{Erc1155Token: erc1155Token(tok, nft), ChainID: dec(c.EVMChainID), Balance: decBig(bal)}
}

// listCollectibleBalancesResponse is the answer of
// balances:listCollectibles.
type listCollectibleBalancesResponse struct {
	NextPageToken       string `json:"nextPageToken,omitempty"`
	CollectibleBalances []any  `json:"collectibleBalances"`
}

// listCollectibles answers GET .../balances:listCollectibles: the ERC-721
// tokens the address owns and its non-zero ERC-1155 balances, now, by
// token address and token ID.
func (s *Server) listCollectibles(r *http.Request) (any, error) {
	br, err := s.readBalances(r, "listCollectibles", false, oneContract)
	if err != nil {
		return nil, err
	}
	rows, next, err := s.opts.Store.Collectibles(r.Context(), br.chain.Info.ID, br.holder, br.query)
	if err != nil {
		return nil, storeErr(err)
	}
	out := listCollectibleBalancesResponse{CollectibleBalances: make([]any, 0, len(rows))}
	for _, b := range rows {
		if b.Token.Kind == store.KindERC1155 {
			out.CollectibleBalances = append(out.CollectibleBalances, erc1155Balance(br.chain, b.Token, b.NFT, b.Balance))
			continue
		}
		t := erc721Token(b.Token, b.NFT)
		t.OwnerAddress = address(br.holder)
		out.CollectibleBalances = append(out.CollectibleBalances, erc721TokenBalance{Erc721Token: t, ChainID: dec(br.chain.EVMChainID)})
	}
	out.NextPageToken, err = s.sealToken(br.scope, next, nil)
	return out, err
}
