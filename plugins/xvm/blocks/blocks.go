// Package blocks holds the X-Chain's containers in avalanchego's formats
// (docs/xvm.md): the standard block of the linear chain and the vertex of
// the DAG that came before it.
package blocks

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// typeStandardBlock is the standard block's type ID in the X-Chain's block
// codec: after the transactions (0 to 4) and the types of the three
// feature extensions (5 to 19).
const typeStandardBlock uint32 = 20

// Format frames the standard block: its parent, height, time and an
// unused Merkle root, the empty ID.
var Format = utxovm.NewBlockFormat(typeStandardBlock, "a standard block", txs.UnpackInBlock,
	utxovm.Parent, utxovm.Height, utxovm.Time, utxovm.EmptyID)

// Block is a standard block.
type Block = utxovm.Block[txs.Unsigned]

// NewBlock returns the block with its bytes and ID.
func NewBlock(parent ids.ID, height, time uint64, list []*txs.Tx) *Block {
	return Format.New(parent, height, time, list)
}

// ParseBlock reads a standard block.
func ParseBlock(raw []byte) (*Block, error) { return Format.Parse(raw) }

// Vertex versions: a vertex with transactions, and the stop vertex that
// ends the DAG and hands the chain to blocks.
const (
	VertexVersion     uint16 = 0
	stopVertexVersion uint16 = 1
)

// MaxVertexTxs and maxVertexParents bound a vertex, as in avalanchego.
const (
	MaxVertexTxs     = 128
	maxVertexParents = 128
)

// Vertex is a container of the DAG: the chain, its height (one more than
// its highest parent's), its parents and its transactions' bytes, sorted by
// their hashes. A stop vertex has no transactions and no epoch.
type Vertex struct {
	ChainID ids.ID
	Height  uint64
	Epoch   uint32
	Parents []ids.ID
	Txs     [][]byte
	Stop    bool

	id    ids.ID
	bytes []byte
}

// NewVertex returns a vertex of txBytes (sorted here by their SHA-256)
// with parents (sorted here), with its bytes and ID.
func NewVertex(chainID ids.ID, height uint64, parents []ids.ID, txBytes [][]byte) *Vertex {
	v := &Vertex{ChainID: chainID, Height: height, Parents: slices.Clone(parents), Txs: slices.Clone(txBytes)}
	slices.SortFunc(v.Parents, func(a, b ids.ID) int { return a.Compare(b) })
	sortByHash(v.Txs)
	v.encode()
	return v
}

// NewStopVertex returns the stop vertex with parents.
func NewStopVertex(chainID ids.ID, height uint64, parents []ids.ID) *Vertex {
	v := &Vertex{ChainID: chainID, Height: height, Parents: slices.Clone(parents), Stop: true}
	slices.SortFunc(v.Parents, func(a, b ids.ID) int { return a.Compare(b) })
	v.encode()
	return v
}

// sortByHash sorts byte strings by their SHA-256, as a vertex holds its
// transactions.
func sortByHash(list [][]byte) {
	slices.SortFunc(list, func(a, b []byte) int {
		ha, hb := sha256.Sum256(a), sha256.Sum256(b)
		return bytes.Compare(ha[:], hb[:])
	})
}

func (v *Vertex) encode() {
	p := avax.NewPacker(make([]byte, 0, 1024))
	if v.Stop {
		p.Short(stopVertexVersion)
	} else {
		p.Short(VertexVersion)
	}
	p.ID(v.ChainID)
	p.Long(v.Height)
	if !v.Stop {
		p.Int(v.Epoch)
	}
	p.Int(uint32(len(v.Parents)))
	for _, id := range v.Parents {
		p.ID(id)
	}
	if !v.Stop {
		p.Int(uint32(len(v.Txs)))
		for _, t := range v.Txs {
			p.VarBytes(t)
		}
	}
	v.bytes = p.Bytes()
	v.id = sha256.Sum256(v.bytes)
}

// ID is the vertex ID: the SHA-256 of its bytes.
func (v *Vertex) ID() ids.ID { return v.id }

// Bytes returns the vertex's bytes.
func (v *Vertex) Bytes() []byte { return v.bytes }

// ParseVertex reads a vertex or a stop vertex and checks it as avalanchego
// does: epoch 0, at most maxVertexParents parents, sorted and unique; a
// vertex has 1 to MaxVertexTxs transactions sorted and unique by hash, a
// stop vertex none.
func ParseVertex(raw []byte) (*Vertex, error) {
	u := avax.NewUnpacker(raw)
	v := &Vertex{}
	switch version := u.Short(); {
	case u.Err() != nil:
	case version == stopVertexVersion:
		v.Stop = true
	case version != VertexVersion:
		return nil, fmt.Errorf("parse vertex: version %d", version)
	}
	v.ChainID = u.ID()
	v.Height = u.Long()
	if !v.Stop {
		v.Epoch = u.Int()
	}
	n := u.SliceLen(ids.Len, "parents")
	v.Parents = make([]ids.ID, n)
	for i := range v.Parents {
		v.Parents[i] = u.ID()
	}
	if !v.Stop {
		n := u.SliceLen(4, "vertex transactions")
		v.Txs = make([][]byte, n)
		for i := range v.Txs {
			v.Txs[i] = u.VarBytes()
		}
	}
	if err := u.Done(); err != nil {
		return nil, fmt.Errorf("parse vertex: %w", err)
	}
	switch {
	case v.Epoch != 0:
		return nil, fmt.Errorf("parse vertex: epoch %d, want 0", v.Epoch)
	case len(v.Parents) > maxVertexParents:
		return nil, fmt.Errorf("parse vertex: %d parents, more than %d", len(v.Parents), maxVertexParents)
	case !v.Stop && (len(v.Txs) == 0 || len(v.Txs) > MaxVertexTxs):
		return nil, fmt.Errorf("parse vertex: %d transactions, want 1 to %d", len(v.Txs), MaxVertexTxs)
	}
	for i := 1; i < len(v.Parents); i++ {
		if v.Parents[i-1].Compare(v.Parents[i]) >= 0 {
			return nil, fmt.Errorf("parse vertex: parents not sorted and unique")
		}
	}
	for i := 1; i < len(v.Txs); i++ {
		a, b := sha256.Sum256(v.Txs[i-1]), sha256.Sum256(v.Txs[i])
		if bytes.Compare(a[:], b[:]) >= 0 {
			return nil, fmt.Errorf("parse vertex: transactions not sorted and unique by hash")
		}
	}
	v.bytes = raw
	v.id = sha256.Sum256(raw)
	return v, nil
}
