package api

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// allBlocksCursor is what a page token of /v1/chains/allBlocks carries:
// the next block to list of each chain not yet listed to its end, by
// blockchain ID. The first page fixes the chains: one added later is left
// out of the later pages.
type allBlocksCursor struct {
	Next map[string]uint64 `json:"n"`
}

// chainRead is what a page read of one chain: from where, the last block
// read, the next block below and whether there is one, and the lowest
// block the page kept.
type chainRead struct {
	from, last, next uint64
	more, kept       bool
	lowest           uint64
}

// chainBlock is a block of a chain, to merge the chains' blocks.
type chainBlock struct {
	chain indexer.Chain
	block store.Block
}

// listAllLatestBlocks answers GET /v1/chains/allBlocks: the indexed blocks
// of every EVM chain of the node (those the API key may use), newest first
// by timestamp; equal timestamps by EVM chain ID, then newest first. A page
// reads pageSize blocks down from each chain's next block and keeps the
// newest pageSize of them: the blocks of a chain are in timestamp order, so
// no block left unread can come before those kept.
func (s *Server) listAllLatestBlocks(r *http.Request) (any, error) {
	q := rest.Query(r)
	limit := q.Int("pageSize", listPageSize)
	token := q.String("pageToken", "")
	network := q.Enum("network", "", rest.Networks...)
	if err := q.Err(); err != nil {
		return nil, err
	}
	out := ListEvmBlocksResponse{Blocks: []Block{}}
	// The node's chains are all on its network: another one has none.
	if network != "" && !s.opts.Network.Serves(network) {
		return out, nil
	}
	scope := rest.Scope("allBlocks", network)
	var cur allBlocksCursor
	if token != "" {
		if err := s.opts.Tokens.Open(token, scope, &cur); err != nil {
			return nil, err
		}
		if cur.Next == nil {
			return nil, rest.BadRequest("pageToken: not a valid page token for this request")
		}
	}
	var merged []chainBlock
	read := map[string]*chainRead{}
	for _, c := range s.listed() {
		if !rest.Allowed(r.Context(), names(c)...) {
			continue
		}
		id := c.Info.ID.String()
		from, indexed, err := s.height(r.Context(), c)
		if err != nil {
			return nil, err
		}
		if n, ok := cur.Next[id]; ok {
			from = min(from, n)
		} else if token != "" {
			continue // listed to its end, or added after the first page
		}
		if !indexed {
			continue
		}
		cr := &chainRead{from: from}
		var blocks []store.Block
		if blocks, cr.next, cr.more, err = s.blocksDown(r.Context(), c, from, limit); err != nil {
			return nil, err
		}
		if len(blocks) == 0 {
			continue
		}
		cr.last = blocks[len(blocks)-1].Number
		read[id] = cr
		for _, b := range blocks {
			merged = append(merged, chainBlock{c, b})
		}
	}
	slices.SortFunc(merged, func(a, b chainBlock) int {
		return cmp.Or(
			cmp.Compare(b.block.Timestamp, a.block.Timestamp),
			cmp.Compare(a.chain.EVMChainID, b.chain.EVMChainID),
			cmp.Compare(b.block.Number, a.block.Number),
		)
	})
	for _, cb := range merged[:min(limit, len(merged))] {
		out.Blocks = append(out.Blocks, evmBlock(cb.chain, &cb.block))
		cr := read[cb.chain.Info.ID.String()]
		cr.kept, cr.lowest = true, cb.block.Number
	}
	// Each chain goes on below the lowest block kept, or where this page
	// started when none was kept.
	next := map[string]uint64{}
	for id, cr := range read {
		switch {
		case !cr.kept:
			next[id] = cr.from
		case cr.lowest != cr.last:
			next[id] = cr.lowest - 1
		case cr.more:
			next[id] = cr.next
		}
	}
	if len(next) == 0 {
		return out, nil
	}
	var err error
	out.NextPageToken, err = s.opts.Tokens.Seal(scope, allBlocksCursor{Next: next})
	return out, err
}
