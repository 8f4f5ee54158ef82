package api

import (
	"cmp"
	"context"
	"encoding/binary"
	"net/http"
	"slices"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The lists of every chain (/v1/chains/allBlocks, /v1/blocks,
// /v1/chains/allTransactions, /v1/transactions) merge the newest items of
// each EVM chain of the node (those the API key may use), newest first by
// timestamp; equal timestamps by EVM chain ID, then in the chain's order.
// A page reads pageSize items down from each chain's cursor and keeps the
// newest pageSize of them: the items of a chain are in timestamp order,
// so no item left unread can come before those kept.

// allCursor is what a page token of a list of every chain carries: the
// cursor of each chain not yet listed to its end, by blockchain ID. The
// first page fixes the chains: one added later is left out of the later
// pages.
type allCursor struct {
	Next map[string][]byte `json:"n"`
}

// chainPage is what a read of one chain gives: its items, newest first,
// each with the cursor of the items below it (nil: none), whether any is
// left below the last, and the cursor the read started at.
type chainPage[T any] struct {
	items []T
	after [][]byte
	more  bool
	start []byte
}

// latestSource is one kind of item a list of every chain merges.
type latestSource[T, I any] struct {
	// read reads at most limit items of c from cursor down (nil: from
	// the newest); a chain with nothing indexed has none.
	read func(ctx context.Context, c indexer.Chain, cursor []byte, limit int) (chainPage[T], error)
	// time is an item's timestamp.
	time func(*T) uint64
	// item is the answer's item.
	item func(r *http.Request, c indexer.Chain, x *T) I
}

// chainItem is an item of a chain, to merge the chains' items.
type chainItem[T any] struct {
	chain indexer.Chain
	at    int // its position in its chain's page
	x     T
}

// listAllLatest reads one page of a list of every chain: pageSize,
// pageToken and network from q (which the caller may have read its own
// parameters from), under the scope of scope. It returns the items and
// the next page's token.
func listAllLatest[T, I any](s *Server, r *http.Request, q *rest.Params, src latestSource[T, I], scope ...string) ([]I, string, error) {
	limit := q.Int("pageSize", listPageSize)
	token := q.String("pageToken", "")
	network := q.Enum("network", "", rest.Networks...)
	if err := q.Err(); err != nil {
		return nil, "", err
	}
	out := []I{}
	// The node's chains are all on its network: another one has none.
	if network != "" && !s.opts.Network.Serves(network) {
		return out, "", nil
	}
	sc := rest.Scope(append(scope, network)...)
	var cur allCursor
	if token != "" {
		if err := s.opts.Tokens.Open(token, sc, &cur); err != nil {
			return nil, "", err
		}
		if cur.Next == nil {
			return nil, "", rest.BadRequest("pageToken: not a valid page token for this request")
		}
	}
	var merged []chainItem[T]
	read := map[string]*chainPage[T]{}
	for _, c := range s.listed() {
		if !rest.Allowed(r.Context(), names(c)...) {
			continue
		}
		id := c.Info.ID.String()
		from, ok := cur.Next[id]
		if !ok && token != "" {
			continue // listed to its end, or added after the first page
		}
		page, err := src.read(r.Context(), c, from, limit)
		if err != nil {
			return nil, "", err
		}
		if len(page.items) == 0 {
			continue
		}
		read[id] = &page
		for i, x := range page.items {
			merged = append(merged, chainItem[T]{c, i, x})
		}
	}
	slices.SortFunc(merged, func(a, b chainItem[T]) int {
		return cmp.Or(
			cmp.Compare(src.time(&b.x), src.time(&a.x)),
			cmp.Compare(a.chain.EVMChainID, b.chain.EVMChainID),
			cmp.Compare(a.at, b.at),
		)
	})
	// Each chain goes on below the lowest item kept, or where this page
	// started when none was kept.
	lowest := map[string]int{}
	for _, ci := range merged[:min(limit, len(merged))] {
		out = append(out, src.item(r, ci.chain, &ci.x))
		lowest[ci.chain.Info.ID.String()] = ci.at
	}
	next := map[string][]byte{}
	for id, page := range read {
		at, kept := lowest[id]
		switch {
		case !kept:
			next[id] = page.start
		case at < len(page.items)-1 || page.more:
			next[id] = page.after[at]
		}
	}
	if len(next) == 0 {
		return out, "", nil
	}
	t, err := s.opts.Tokens.Seal(sc, allCursor{Next: next})
	return out, t, err
}

// latestBlocks is the source of the lists of every chain's blocks: a
// cursor is the number of the next block to list, 8 bytes big-endian.
func (s *Server) latestBlocks() latestSource[store.Block, Block] {
	return latestSource[store.Block, Block]{
		read: func(ctx context.Context, c indexer.Chain, cursor []byte, limit int) (chainPage[store.Block], error) {
			var page chainPage[store.Block]
			from, indexed, err := s.height(ctx, c)
			if err != nil || !indexed {
				return page, err
			}
			if cursor != nil {
				if len(cursor) != 8 {
					return page, rest.BadRequest("pageToken: not a valid page token for this request")
				}
				from = min(from, binary.BigEndian.Uint64(cursor))
			}
			page.start = binary.BigEndian.AppendUint64(nil, from)
			if page.items, _, page.more, err = s.blocksDown(ctx, c, from, limit); err != nil {
				return page, err
			}
			for _, b := range page.items {
				var after []byte
				if b.Number > 0 {
					after = binary.BigEndian.AppendUint64(nil, b.Number-1)
				}
				page.after = append(page.after, after)
			}
			return page, nil
		},
		time: func(b *store.Block) uint64 { return b.Timestamp },
		item: func(_ *http.Request, c indexer.Chain, b *store.Block) Block { return evmBlock(c, b) },
	}
}

// listAllLatestBlocks answers GET /v1/chains/allBlocks and GET /v1/blocks
// (endpoint, the token's scope): the indexed blocks of every EVM chain of
// the node, newest first, each as /v1/chains/{chainId}/blocks/{blockId}
// answers it.
func (s *Server) listAllLatestBlocks(endpoint string) rest.EndpointFunc {
	return func(r *http.Request) (any, error) {
		blocks, next, err := listAllLatest(s, r, rest.Query(r), s.latestBlocks(), endpoint)
		return ListEvmBlocksResponse{NextPageToken: next, Blocks: blocks}, err
	}
}
