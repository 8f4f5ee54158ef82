package xvm

import (
	"context"
	"crypto/sha256"
	"errors"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/sdk/blockinfo"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// newIndexerServer returns the JSON-RPC server of the internal indexer
// handler (xvmapi).
func (vm *VM) newIndexerServer() *jsonrpc.Server {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	s.Register(xvmapi.GetVertexMethod, jsonrpc.Method(vm.getVertex))
	s.Register(xvmapi.ListVerticesMethod, jsonrpc.Method(vm.listVertices))
	s.Register(blockinfo.Method, jsonrpc.Method(vm.GetBlockInfo))
	return s
}

type getVertexArgs struct {
	VertexID string          `json:"vertexID"`
	Index    *jsonrpc.Uint64 `json:"index"`
}

// getVertex returns an accepted vertex by ID or by its position in X/vtx.
func (vm *VM) getVertex(ctx context.Context, a getVertexArgs) (xvmapi.Vertex, error) {
	var pos uint64
	switch {
	case a.VertexID != "" && a.Index != nil:
		return xvmapi.Vertex{}, jsonrpc.InvalidParams(`give "vertexID" or "index", not both`)
	case a.VertexID != "":
		id, err := utxoapi.ParseID("vertexID", a.VertexID)
		if err != nil {
			return xvmapi.Vertex{}, err
		}
		if pos, err = vm.vertexPosition(ctx, id); errors.Is(err, host.ErrNotFound) {
			return xvmapi.Vertex{}, jsonrpc.NewError(xvmapi.CodeVertexNotFound, "vertex %s not found", id)
		} else if err != nil {
			return xvmapi.Vertex{}, err
		}
	case a.Index != nil:
		pos = uint64(*a.Index)
	default:
		return xvmapi.Vertex{}, jsonrpc.InvalidParams(`"vertexID" or "index" is required`)
	}
	out, err := vm.apiVertex(ctx, pos)
	if errors.Is(err, host.ErrNotFound) {
		return xvmapi.Vertex{}, jsonrpc.NewError(xvmapi.CodeVertexNotFound, "vertex at index %d not found", pos)
	}
	return out, err
}

type listVerticesArgs struct {
	Before *jsonrpc.Uint64 `json:"before"`
	Limit  jsonrpc.Uint64  `json:"limit"`
}

// listVertices returns the vertices below position Before, newest first.
func (vm *VM) listVertices(ctx context.Context, a listVerticesArgs) (xvmapi.VertexList, error) {
	if a.Limit < 1 || a.Limit > xvmapi.MaxListVertices {
		return xvmapi.VertexList{}, jsonrpc.InvalidParams(`"limit" must be 1 to %d, got %d`, xvmapi.MaxListVertices, a.Limit)
	}
	m, _, err := vm.readMeta(ctx)
	if err != nil {
		return xvmapi.VertexList{}, err
	}
	end := m.VtxCount
	if a.Before != nil {
		end = min(end, uint64(*a.Before))
	}
	out := xvmapi.VertexList{Vertices: []xvmapi.Vertex{}, Count: m.VtxCount}
	for pos := end; pos > 0 && len(out.Vertices) < int(a.Limit); pos-- {
		v, err := vm.apiVertex(ctx, pos-1)
		if err != nil {
			return xvmapi.VertexList{}, err
		}
		out.Vertices = append(out.Vertices, v)
	}
	return out, nil
}

// apiVertex returns the vertex at a position of X/vtx as xvmapi shows it;
// an error matches host.ErrNotFound when there is none.
func (vm *VM) apiVertex(ctx context.Context, pos uint64) (xvmapi.Vertex, error) {
	v, rec, err := vm.vertex(ctx, pos)
	if err != nil {
		return xvmapi.Vertex{}, err
	}
	out := xvmapi.Vertex{
		ID:            v.ID(),
		ParentIDs:     v.Parents,
		Height:        v.Height,
		Index:         pos,
		Timestamp:     rec.Time / 1e9,
		TimestampNano: rec.Time,
		TxIDs:         make([]ids.ID, len(v.Txs)),
		Size:          len(v.Bytes()),
		Stop:          v.Stop,
		Bytes:         avax.EncodeBytes(avax.EncHex, v.Bytes()),
	}
	if out.ParentIDs == nil {
		out.ParentIDs = []ids.ID{}
	}
	for i, t := range v.Txs {
		out.TxIDs[i] = sha256.Sum256(t)
	}
	return out, nil
}
