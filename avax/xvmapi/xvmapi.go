// Package xvmapi is what other plugins may call on the X-Chain VM through
// host chain calls: its internal handler, its methods and the Go types of
// their answers (docs/xvm.md). It is kept apart from the VM so that a
// module (the data API's vertices) imports it without the VM.
package xvmapi

import "github.com/chainhost/chainhost/sdk/ids"

// VMName is the name the X-Chain VM describes itself with, avalanchego's;
// its VM ID is the name padded to 32 bytes, as avalanchego's is.
const VMName = "avm"

// IndexerHandler is the X-Chain VM's internal handler: JSON-RPC that the
// node never serves over HTTP.
const IndexerHandler = "indexer"

// GetVertexMethod returns one accepted vertex. Params: {"vertexID": CB58}
// or {"index": n} (its position in the chain's vtx index). Result: Vertex.
// An unknown vertex is error CodeVertexNotFound.
const GetVertexMethod = "indexer.getVertex"

// ListVerticesMethod returns accepted vertices newest first: those below
// position "before" in the chain's vtx index (absent: all), at most
// "limit" (1 to MaxListVertices). Result: VertexList.
const ListVerticesMethod = "indexer.listVertices"

// MaxListVertices is the most vertices one ListVerticesMethod call returns.
const MaxListVertices = 1000

// VertexList is the result of ListVerticesMethod.
type VertexList struct {
	// Vertices are newest first.
	Vertices []Vertex `json:"vertices"`
	// Count is how many vertices the chain accepted (the stop vertex
	// included): the position the next one would take.
	Count uint64 `json:"count"`
}

// CodeVertexNotFound is the JSON-RPC error code of GetVertexMethod for a
// vertex the chain never accepted.
const CodeVertexNotFound = -32004

// Vertex is an accepted vertex of the X-Chain's DAG phase: what the data
// API's vertex resource (its vertices endpoint, docs/data-api.md) needs.
type Vertex struct {
	// ID is the vertex ID (its hash): the SHA-256 of its bytes.
	ID ids.ID `json:"vertexID"`
	// ParentIDs are the vertex's parents, sorted.
	ParentIDs []ids.ID `json:"parentIDs"`
	// Height is one more than the highest parent's; the first vertex's is 0.
	Height uint64 `json:"height"`
	// Index is the vertex's position in the chain's vtx index, from 0.
	Index uint64 `json:"index"`
	// Timestamp is when the chain accepted the vertex, in unix seconds;
	// TimestampNano the same in nanoseconds.
	Timestamp     int64 `json:"timestamp"`
	TimestampNano int64 `json:"timestampNano"`
	// TxIDs are the vertex's transactions, in the vertex's order (sorted by
	// the hash of their bytes); empty for the stop vertex.
	TxIDs []ids.ID `json:"transactions"`
	// Size is the length of the vertex's bytes.
	Size int `json:"size"`
	// Stop marks the stop vertex, the last one: the chain makes blocks
	// after it.
	Stop bool `json:"stop"`
	// Bytes is the vertex in avalanchego's format, hex with a checksum
	// ("0x...").
	Bytes string `json:"bytes"`
}
