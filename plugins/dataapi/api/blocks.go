package api

import (
	"encoding/binary"
	"errors"
	"net/http"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// getChain answers GET /v1/chains/{chainId}: the chain as /v1/chains
// lists it.
func (s *Server) getChain(r *http.Request) (any, error) {
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
	st, err := s.opts.Store.State(r.Context(), c.Info.ID)
	if err != nil {
		return nil, err
	}
	out := ListEvmBlocksResponse{Blocks: []Block{}}
	height, indexed := st.Height()
	if !indexed {
		return out, nil
	}
	from := height
	if cur.C != nil {
		if len(cur.C) != 8 {
			return nil, rest.BadRequest("pageToken: not a valid page token for this request")
		}
		from = min(from, binary.BigEndian.Uint64(cur.C))
	}
	// n counts down to the genesis; a block rolled back since the state
	// was read is left out.
	n, more := from, true
	for ; more && len(out.Blocks) < limit; n, more = n-1, n > 0 {
		blk, err := s.opts.Store.Block(r.Context(), c.Info.ID, n)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out.Blocks = append(out.Blocks, evmBlock(c, &blk))
	}
	if more {
		out.NextPageToken, err = s.sealToken(scope, binary.BigEndian.AppendUint64(nil, n), nil)
	}
	return out, err
}
