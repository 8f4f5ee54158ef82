package api

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"strconv"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// getChain answers GET /v1/chains/{chainId}: the chain as /v1/chains
// lists it. A segment that is neither digits nor a CB58 ID is no chain ID
// but a path under /v1/chains the module does not serve: the answer is
// the router's.
func (s *Server) getChain(r *http.Request) (any, error) {
	id := r.PathValue("chainId")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		if _, err := ids.FromString(id); err != nil {
			return nil, rest.NoEndpoint(r)
		}
	}
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	return s.chainInfo(c, s.baseURL(r)), nil
}

// ListEvmBlocksResponse is the answer of /v1/chains/{chainId}/blocks.
type ListEvmBlocksResponse struct {
	NextPageToken string  `json:"nextPageToken,omitempty"`
	Blocks        []Block `json:"blocks"`
}

// evmBlock returns an indexed block of chain c as the API shows it.
func evmBlock(c indexer.Chain, blk *store.Block) Block {
	return Block{
		ChainID: dec(c.EVMChainID), BlockNumber: dec(blk.Number), BlockTimestamp: blk.Timestamp, BlockHash: hash(blk.Hash),
		TxCount: blk.TxCount, BaseFee: decBig(blk.BaseFee), GasUsed: dec(blk.GasUsed), GasLimit: dec(blk.GasLimit),
		GasCost: "0", ParentHash: hash(blk.ParentHash), FeesSpent: decBig(blk.FeesSpent),
		CumulativeTransactions: dec(blk.CumulativeTxs),
	}
}

// listLatestBlocks answers GET /v1/chains/{chainId}/blocks: the indexed
// blocks, newest first. A page token carries the number of the next block
// to list, so that later pages go on below the first page's height however
// far the chain moves meanwhile; each page is pageSize point reads.
func (s *Server) listLatestBlocks(r *http.Request) (any, error) {
	c, err := s.chain(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	limit := q.Int("pageSize", listPageSize)
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	scope := rest.Scope("blocks", c.Info.ID.String())
	cur, err := s.openToken(token, scope)
	if err != nil {
		return nil, err
	}
	out := ListEvmBlocksResponse{Blocks: []Block{}}
	from, indexed, err := s.height(r.Context(), c)
	if err != nil || !indexed {
		return out, err
	}
	if cur.C != nil {
		if len(cur.C) != 8 {
			return nil, rest.BadRequest("pageToken: not a valid page token for this request")
		}
		from = min(from, binary.BigEndian.Uint64(cur.C))
	}
	blocks, next, more, err := s.blocksDown(r.Context(), c, from, limit)
	if err != nil {
		return nil, err
	}
	for i := range blocks {
		out.Blocks = append(out.Blocks, evmBlock(c, &blocks[i]))
	}
	if more {
		out.NextPageToken, err = s.sealToken(scope, binary.BigEndian.AppendUint64(nil, next), nil)
	}
	return out, err
}

// height returns the number of the last block of c indexed, and whether
// there is one.
func (s *Server) height(ctx context.Context, c indexer.Chain) (uint64, bool, error) {
	st, err := s.opts.Store.State(ctx, c.Info.ID)
	if err != nil {
		return 0, false, err
	}
	n, ok := st.Height()
	return n, ok, nil
}

// blocksDown reads at most limit indexed blocks of c from block from down,
// one point read each. It returns the number of the next block to read and
// whether one is left. A block missing was rolled back since the height
// was read (the list goes on from the new height) or is below the first
// block indexed (start-block: the list ends).
func (s *Server) blocksDown(ctx context.Context, c indexer.Chain, from uint64, limit int) ([]store.Block, uint64, bool, error) {
	var out []store.Block
	for n := from; len(out) < limit; n-- {
		blk, err := s.opts.Store.Block(ctx, c.Info.ID, n)
		if errors.Is(err, store.ErrNotFound) {
			height, indexed, herr := s.height(ctx, c)
			if herr != nil {
				return nil, 0, false, herr
			}
			if !indexed || height >= n {
				return out, 0, false, nil
			}
			n = height + 1 // the loop's n-- reads the new height
			continue
		}
		if err != nil {
			return nil, 0, false, err
		}
		out = append(out, blk)
		if n == 0 {
			return out, 0, false, nil
		}
	}
	return out, out[len(out)-1].Number - 1, true, nil
}
