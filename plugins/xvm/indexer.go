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
	v, rec, err := vm.vertex(ctx, pos)
	if errors.Is(err, host.ErrNotFound) {
		return xvmapi.Vertex{}, jsonrpc.NewError(xvmapi.CodeVertexNotFound, "vertex at index %d not found", pos)
	}
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
