package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/sdk/ids"
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
	if _, err := s.opts.Network.PathParam(r, "network"); err != nil {
		return nil, err
	}
	chain, err := rest.PathParam(r, "blockchainId")
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
	x, ok := s.xChain(r.Context())
	switch {
	case !ok:
		return nil, rest.NotFound("vertices are not available: this node runs no X-Chain")
	case chain != XChainID && chain != x:
		return nil, rest.NotFound("blockchain %s is not this node's X-Chain (%s or %s)", rest.Quote(chain), XChainID, x)
	}
	v, found, err := s.readVertex(r.Context(), x, id)
	if err != nil {
		return nil, rest.Unavailable("the X-Chain does not answer: the vertex cannot be read").WithCause(err)
	}
	if !found {
		return nil, rest.NotFound("vertex %s not found", vertex)
	}
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
	return out, nil
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

// readVertex asks the X-Chain chain for vertex id. found is false when the
// chain does not know it.
func (s *Server) readVertex(ctx context.Context, chain string, id ids.ID) (v xvmapi.Vertex, found bool, err error) {
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": xvmapi.GetVertexMethod,
		"params": map[string]string{"vertexID": id.String()},
	})
	if err != nil {
		return v, false, err
	}
	status, resp, err := s.opts.Host.Calls.Call(ctx, chain, xvmapi.IndexerHandler, body)
	if err != nil {
		return v, false, fmt.Errorf("chain %s: %w", chain, err)
	}
	if status != http.StatusOK {
		return v, false, fmt.Errorf("chain %s: %s answered HTTP %d: %.200s", chain, xvmapi.IndexerHandler, status, resp)
	}
	var answer struct {
		Result *xvmapi.Vertex `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &answer); err != nil {
		return v, false, fmt.Errorf("chain %s: %s: %w", chain, xvmapi.GetVertexMethod, err)
	}
	switch {
	case answer.Error != nil && answer.Error.Code == xvmapi.CodeVertexNotFound:
		return v, false, nil
	case answer.Error != nil:
		return v, false, fmt.Errorf("chain %s: %s: %s (code %d)", chain, xvmapi.GetVertexMethod, answer.Error.Message, answer.Error.Code)
	case answer.Result == nil:
		return v, false, fmt.Errorf("chain %s: %s: no result", chain, xvmapi.GetVertexMethod)
	}
	return *answer.Result, true, nil
}
