package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Page sizes of the lists.
var (
	listPageSize    = rest.IntRange{Default: 10, Min: 1, Max: 100}
	balancePageSize = rest.IntRange{Default: 10, Min: 1, Max: 500}
)

// isHex reports whether s is only hex digits.
func isHex(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// parseAddress reads an address: 0x and 40 hex digits, any case (the
// checksum of a mixed-case address is not checked).
func parseAddress(name, s string) (common.Address, error) {
	if len(s) != 42 || (s[:2] != "0x" && s[:2] != "0X") || !isHex(s[2:]) {
		return common.Address{}, rest.BadRequest("%s: must be an address, 0x and 40 hex digits, got %s", name, rest.Quote(s))
	}
	return common.HexToAddress(s), nil
}

// parseHash reads a hash: 0x and 64 hex digits, any case.
func parseHash(name, s string) (common.Hash, error) {
	if len(s) != 66 || (s[:2] != "0x" && s[:2] != "0X") || !isHex(s[2:]) {
		return common.Hash{}, rest.BadRequest("%s: must be a hash, 0x and 64 hex digits, got %s", name, rest.Quote(s))
	}
	return common.HexToHash(s), nil
}

// pathAddress reads the path parameter address.
func pathAddress(r *http.Request) (common.Address, error) {
	s, err := rest.PathParam(r, "address")
	if err != nil {
		return common.Address{}, err
	}
	return parseAddress("address", s)
}

// chainAddress resolves the chainId path value (chain) and reads the
// address one.
func (s *Server) chainAddress(r *http.Request) (indexer.Chain, common.Address, error) {
	c, err := s.chain(r)
	if err != nil {
		return c, common.Address{}, err
	}
	addr, err := pathAddress(r)
	return c, addr, err
}

// chainParam resolves the chainId path value (chain) and reads the path
// value name.
func (s *Server) chainParam(r *http.Request, name string) (indexer.Chain, string, error) {
	c, err := s.chain(r)
	if err != nil {
		return c, "", err
	}
	v, err := rest.PathParam(r, name)
	return c, v, err
}

// listQuery is the query of an address's transaction list.
type listQuery struct {
	page  store.Page
	token string
	// scope parts: the block range and the order as given
	start, end, order string
}

// readList reads pageSize, pageToken, startBlock, endBlock and sortOrder
// (default desc, newest first).
func readList(q *rest.Params) listQuery {
	var lq listQuery
	lq.page.Limit = q.Int("pageSize", listPageSize)
	lq.token = q.String("pageToken", "")
	start, hasStart := q.Uint64("startBlock")
	end, hasEnd := q.Uint64("endBlock")
	lq.order = q.Enum("sortOrder", "desc", "asc", "desc")
	lq.page.Desc = lq.order == "desc"
	if hasStart {
		lq.page.FromBlock, lq.start = start, strconv.FormatUint(start, 10)
	}
	if hasEnd {
		lq.page.ToBlock, lq.end = end, strconv.FormatUint(end, 10)
	}
	return lq
}

// check validates the block range: endBlock is exclusive and must be above
// startBlock (and above 0, or nothing is listed).
func (lq *listQuery) check() error {
	switch {
	case lq.end != "" && lq.page.ToBlock == 0:
		return rest.BadRequest("endBlock: must be above 0 (it is exclusive), got %q", lq.end)
	case lq.end != "" && lq.start != "" && lq.page.ToBlock <= lq.page.FromBlock:
		return rest.BadRequest("endBlock: must be above startBlock (%s), got %q: endBlock is exclusive", lq.start, lq.end)
	}
	return nil
}

// cursor is what a page token carries: the store's cursor and, for
// balances, the block the first page was read at.
type cursor struct {
	C []byte  `json:"c"`
	B *uint64 `json:"b,omitempty"`
}

// openToken opens a page token for scope; "" is the first page.
func (s *Server) openToken(token, scope string) (cursor, error) {
	var c cursor
	if token == "" {
		return c, nil
	}
	if err := s.opts.Tokens.Open(token, scope, &c); err != nil {
		return c, err
	}
	if c.C == nil {
		return c, rest.BadRequest("pageToken: not a valid page token for this request")
	}
	return c, nil
}

// sealToken returns the token of the next page, "" when there is none.
func (s *Server) sealToken(scope string, next []byte, block *uint64) (string, error) {
	if next == nil {
		return "", nil
	}
	return s.opts.Tokens.Seal(scope, cursor{C: next, B: block})
}

// storeErr turns a store error into the answer: a cursor the store refuses
// is a bad page token; anything else is internal.
func storeErr(err error) error {
	if errors.Is(err, store.ErrBadCursor) {
		return rest.BadRequest("pageToken: not a valid page token for this request").WithCause(err)
	}
	return err
}

// lowerHex returns an address in lower case, for scopes.
func lowerHex(a common.Address) string { return strings.ToLower(a.Hex()) }
