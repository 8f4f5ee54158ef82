package api

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/rest"
)

// XChainID is the alias of the X-Chain in vertex paths, beside its
// blockchain ID.
const XChainID = "x-chain"

// XChainVertex is the answer of vertices/{vertexHash} (docs/data-api.md,
// "13. Vertices").
type XChainVertex struct {
	VertexHash      string   `json:"vertexHash"`
	ParentHashes    []string `json:"parentHashes"`
	VertexHeight    uint64   `json:"vertexHeight"`
	VertexIndex     uint64   `json:"vertexIndex"`
	VertexTimestamp int64    `json:"vertexTimestamp"`
	TxCount         int      `json:"txCount"`
	Transactions    []string `json:"transactions"`
	VertexSizeBytes int      `json:"vertexSizeBytes"`
}

// getVertex answers GET /v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}
// from the X-Chain VM's vertex index, read through its internal handler
// (xvmapi.GetVertexMethod).
func (s *Server) getVertex(r *http.Request) (any, error) {
	_, chain, err := s.vertexPath(r)
	if err != nil {
		return nil, err
	}
	vertex, err := rest.PathParam(r, "vertexHash")
	if err != nil {
		return nil, err
	}
	id, err := ids.FromString(vertex)
	if err != nil {
		return nil, rest.BadRequest("vertexHash: must be a vertex ID (CB58), got %s", rest.Quote(vertex))
	}
	x, err := s.vertexChain(r.Context(), chain)
	if err != nil {
		return nil, err
	}
	v, found, err := s.readVertex(r.Context(), x, map[string]string{"vertexID": id.String()})
	if err != nil {
		return nil, xChainDown("the vertex", err)
	}
	if !found {
		return nil, rest.NotFound("vertex %s not found", vertex)
	}
	return apiVertex(v), nil
}

// ListXChainVerticesResponse is the answer of the vertex lists.
type ListXChainVerticesResponse struct {
	NextPageToken string           `json:"nextPageToken,omitempty"`
	Vertices      []XChainVertex   `json:"vertices"`
	ChainInfo     PrimaryChainInfo `json:"chainInfo"`
}

// PrimaryChainInfo names a primary-network chain and the network asked
// for.
type PrimaryChainInfo struct {
	ChainName string `json:"chainName"`
	Network   string `json:"network"`
}

// listVertices answers GET /v1/networks/{network}/blockchains/{blockchainId}/vertices:
// the accepted vertices, newest first, a page per xvmapi.ListVerticesMethod
// call. A page token carries the position below which the next page
// starts.
func (s *Server) listVertices(r *http.Request) (any, error) {
	network, chain, err := s.vertexPath(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	limit := q.Int("pageSize", listPageSize)
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	x, err := s.vertexChain(r.Context(), chain)
	if err != nil {
		return nil, err
	}
	scope := rest.Scope("vertices", x)
	cur, err := s.openToken(token, scope)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"limit": limit}
	if cur.C != nil {
		if len(cur.C) != 8 {
			return nil, rest.BadRequest("pageToken: not a valid page token for this request")
		}
		params["before"] = binary.BigEndian.Uint64(cur.C)
	}
	var list xvmapi.VertexList
	if err := s.callX(r.Context(), x, xvmapi.ListVerticesMethod, params, &list); err != nil {
		return nil, xChainDown("the vertices", err)
	}
	out := ListXChainVerticesResponse{Vertices: []XChainVertex{}, ChainInfo: PrimaryChainInfo{ChainName: XChainID, Network: network}}
	for _, v := range list.Vertices {
		out.Vertices = append(out.Vertices, apiVertex(v))
	}
	// Positions run from 0 without a gap: one above 0 has more below it.
	if n := len(list.Vertices); n == limit && list.Vertices[n-1].Index > 0 {
		out.NextPageToken, err = s.sealToken(scope, binary.BigEndian.AppendUint64(nil, list.Vertices[n-1].Index), nil)
	}
	return out, err
}

// listVerticesByHeight answers GET /v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight:
// the vertices at vertexHeight. The node's DAG is a line (docs/xvm.md), so
// the vertex at position h of X/vtx is the only one of height h: the list
// holds it or nothing, in one page whatever the page size and order.
func (s *Server) listVerticesByHeight(r *http.Request) (any, error) {
	network, chain, err := s.vertexPath(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	height, ok := q.Uint64("vertexHeight")
	q.Int("pageSize", listPageSize)
	token := q.String("pageToken", "")
	q.Enum("sortOrder", "asc", "asc", "desc")
	if err := q.Err(); err != nil {
		return nil, err
	}
	switch {
	case !ok:
		return nil, rest.BadRequest("vertexHeight: must be given, a non-negative integer")
	case token != "":
		// No page of this list has a next one: a token is another list's.
		return nil, rest.BadRequest("pageToken: not a valid page token for this request")
	}
	x, err := s.vertexChain(r.Context(), chain)
	if err != nil {
		return nil, err
	}
	out := ListXChainVerticesResponse{Vertices: []XChainVertex{}, ChainInfo: PrimaryChainInfo{ChainName: XChainID, Network: network}}
	v, found, err := s.readVertex(r.Context(), x, map[string]uint64{"index": height})
	if err != nil {
		return nil, xChainDown("the vertices", err)
	}
	if found && v.Height == height {
		out.Vertices = append(out.Vertices, apiVertex(v))
	}
	return out, nil
}

// vertexPath reads the path parameters of a vertex endpoint: the network
// (checked) and the blockchainId as given.
func (s *Server) vertexPath(r *http.Request) (network, chain string, err error) {
	if network, err = s.opts.Network.PathParam(r, "network"); err != nil {
		return "", "", err
	}
	chain, err = rest.PathParam(r, "blockchainId")
	return network, chain, err
}

// vertexChain returns the node's X-Chain ID when chain (a blockchainId
// path value) names it: x-chain or that ID. The parameters are checked
// before, so that bad input is a 400 whatever chains the node runs.
func (s *Server) vertexChain(ctx context.Context, chain string) (string, error) {
	x, ok := s.xChain(ctx)
	switch {
	case !ok:
		return "", rest.NotFound("vertices are not available: this node runs no X-Chain")
	case chain != XChainID && chain != x:
		return "", rest.NotFound("blockchain %s is not this node's X-Chain (%s or %s)", rest.Quote(chain), XChainID, x)
	}
	return x, nil
}

// xChainDown is the answer when the X-Chain's handler fails to give what.
func xChainDown(what string, err error) error {
	return rest.Unavailable("the X-Chain does not answer: %s cannot be read", what).WithCause(err)
}

// apiVertex shows a vertex as the data API does.
func apiVertex(v xvmapi.Vertex) XChainVertex {
	out := XChainVertex{
		VertexHash: v.ID.String(), ParentHashes: make([]string, len(v.ParentIDs)), VertexHeight: v.Height,
		VertexIndex: v.Index, VertexTimestamp: v.Timestamp, TxCount: len(v.TxIDs),
		Transactions: make([]string, len(v.TxIDs)), VertexSizeBytes: v.Size,
	}
	for i, p := range v.ParentIDs {
		out.ParentHashes[i] = p.String()
	}
	for i, tx := range v.TxIDs {
		out.Transactions[i] = tx.String()
	}
	return out
}

// xChain returns the blockchain ID of the node's X-Chain (the chain
// aliased X, running the X-Chain VM), if it has one.
func (s *Server) xChain(ctx context.Context) (string, bool) {
	info, err := s.opts.Host.Chains.Resolve(ctx, "X")
	if err != nil || info.VMName != xvmapi.VMName {
		return "", false
	}
	return info.ID.String(), true
}

// readVertex asks the X-Chain chain for the vertex params name
// (xvmapi.GetVertexMethod). found is false when the chain does not know
// it.
func (s *Server) readVertex(ctx context.Context, chain string, params any) (v xvmapi.Vertex, found bool, err error) {
	err = s.callX(ctx, chain, xvmapi.GetVertexMethod, params, &v)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == xvmapi.CodeVertexNotFound {
		return v, false, nil
	}
	return v, err == nil, err
}

// callX calls method of the X-Chain chain's internal handler and decodes
// its result into result; a JSON-RPC error is returned as a
// *jsonrpc.Error.
func (s *Server) callX(ctx context.Context, chain, method string, params, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	status, resp, err := s.opts.Host.Calls.Call(ctx, chain, xvmapi.IndexerHandler, body)
	if err != nil {
		return fmt.Errorf("chain %s: %w", chain, err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("chain %s: %s answered HTTP %d: %.200s", chain, xvmapi.IndexerHandler, status, resp)
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(resp, &answer); err != nil {
		return fmt.Errorf("chain %s: %s: %w", chain, method, err)
	}
	switch {
	case answer.Error != nil:
		return fmt.Errorf("chain %s: %s: %w", chain, method, answer.Error)
	case len(answer.Result) == 0 || string(answer.Result) == "null":
		return fmt.Errorf("chain %s: %s: no result", chain, method)
	}
	if err := json.Unmarshal(answer.Result, result); err != nil {
		return fmt.Errorf("chain %s: %s: %w", chain, method, err)
	}
	return nil
}
