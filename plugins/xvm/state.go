package xvm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"

	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Keys of the VM's state in its host database namespace (docs/xvm.md),
// besides the core's (utxovm: transactions, blocks, the meta) and the
// UTXO set's (utxostore).
const (
	prefixTxAt       = 'T' // T <position in X/tx> -> txID
	prefixVertex     = 'v' // v <position in X/vtx> -> vertex record
	prefixVertexID   = 'V' // V <vertexID> -> position
	noTxPosition     = ^uint64(0)
	containerBlock   = 'b'
	containerVertex  = 'v'
	containerGenesis = 'g'
)

func txAtKey(pos uint64) []byte    { return utxovm.Key(prefixTxAt, utxovm.U64(pos)) }
func vertexKey(pos uint64) []byte  { return utxovm.Key(prefixVertex, utxovm.U64(pos)) }
func vertexIDKey(id ids.ID) []byte { return utxovm.Key(prefixVertexID, id[:]) }

// meta is the chain's counters and heads, written with every acceptance.
type meta struct {
	// LinearizationHeight is the configured vertex count before blocks.
	LinearizationHeight uint64 `json:"linearizationHeight"`
	// Linearized is set once the chain makes blocks.
	Linearized bool `json:"linearized"`
	// TxCount is the number of accepted transactions (the X/tx index).
	TxCount uint64 `json:"txCount"`
	// VtxCount is the number of accepted vertices, the stop vertex
	// included; LastVtxID and VtxHeight are the last one's.
	VtxCount  uint64 `json:"vtxCount"`
	LastVtxID ids.ID `json:"lastVtxID"`
	VtxHeight uint64 `json:"vtxHeight"`
	// Height, LastBlockID and BlockTime are the last block's (height 0 is
	// the chain's first block, which holds no transaction and is not
	// indexed).
	Height      uint64 `json:"height"`
	LastBlockID ids.ID `json:"lastBlockID"`
	BlockTime   uint64 `json:"blockTime"`
	// Burned is what the inputs of accepted transactions gave beyond their
	// outputs, per asset ID: the fees, and anything else left unspent.
	Burned map[ids.ID]uint64 `json:"burned"`
}

func (m *meta) clone() meta {
	c := *m
	c.Burned = maps.Clone(m.Burned)
	return c
}

// readMeta returns the stored meta; found is false on a new chain.
func (vm *VM) readMeta(ctx context.Context) (m meta, found bool, err error) {
	if found, err = vm.Store.ReadMeta(ctx, &m); err != nil || !found {
		return meta{}, false, err
	}
	if m.Burned == nil {
		m.Burned = map[ids.ID]uint64{}
	}
	return m, true, nil
}

// txRecord is a stored transaction and where it was accepted.
type txRecord struct {
	// Container is containerBlock, containerVertex or containerGenesis.
	Container byte
	// At is the block height or the vertex position.
	At uint64
	// Position is the transaction's position in the X/tx index
	// (noTxPosition for a genesis asset).
	Position uint64
	Bytes    []byte
}

func (r txRecord) encode() []byte {
	out := make([]byte, 0, 17+len(r.Bytes))
	out = append(out, r.Container)
	out = binary.BigEndian.AppendUint64(out, r.At)
	out = binary.BigEndian.AppendUint64(out, r.Position)
	return append(out, r.Bytes...)
}

func decodeTxRecord(b []byte) (txRecord, error) {
	if len(b) < 17 {
		return txRecord{}, errors.New("corrupt transaction record")
	}
	return txRecord{Container: b[0], At: binary.BigEndian.Uint64(b[1:9]), Position: binary.BigEndian.Uint64(b[9:17]), Bytes: b[17:]}, nil
}

// vertexRecord is a stored vertex with its acceptance time.
type vertexRecord struct {
	// Time is when the VM accepted it, unix nanoseconds.
	Time  int64
	Bytes []byte
}

func (r vertexRecord) encode() []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(r.Time)), r.Bytes...)
}

func decodeVertexRecord(b []byte) (vertexRecord, error) {
	if len(b) < 8 {
		return vertexRecord{}, errors.New("corrupt vertex record")
	}
	return vertexRecord{Time: int64(binary.BigEndian.Uint64(b[:8])), Bytes: b[8:]}, nil
}

// txRecord returns a stored transaction record.
func (vm *VM) txRecord(ctx context.Context, id ids.ID) (txRecord, bool, error) {
	b, found, err := vm.Store.TxRecord(ctx, id)
	if err != nil || !found {
		return txRecord{}, false, err
	}
	r, err := decodeTxRecord(b)
	return r, err == nil, err
}

// storedTx returns an accepted transaction (a genesis asset's too).
func (vm *VM) storedTx(ctx context.Context, id ids.ID) (*txs.Tx, bool, error) {
	r, found, err := vm.txRecord(ctx, id)
	if err != nil || !found {
		return nil, found, err
	}
	t, err := txs.Parse(r.Bytes)
	if err != nil {
		return nil, false, fmt.Errorf("stored tx %s: %w", id, err)
	}
	return t, true, nil
}

// vertex returns the vertex at a position of X/vtx.
func (vm *VM) vertex(ctx context.Context, pos uint64) (*blocks.Vertex, vertexRecord, error) {
	b, err := vm.Store.Get(ctx, vertexKey(pos))
	if err != nil {
		return nil, vertexRecord{}, fmt.Errorf("vertex at %d: %w", pos, err)
	}
	r, err := decodeVertexRecord(b)
	if err != nil {
		return nil, vertexRecord{}, err
	}
	v, err := blocks.ParseVertex(r.Bytes)
	return v, r, err
}

// vertexPosition returns the X/vtx position of a vertex ID.
func (vm *VM) vertexPosition(ctx context.Context, id ids.ID) (uint64, error) {
	return vm.Store.Number(ctx, vertexIDKey(id), fmt.Sprintf("vertex %s", id))
}

// txAt returns the ID of the transaction at a position of X/tx.
func (vm *VM) txAt(ctx context.Context, pos uint64) (ids.ID, error) {
	b, err := vm.Store.Get(ctx, txAtKey(pos))
	if err != nil {
		return ids.ID{}, fmt.Errorf("tx at %d: %w", pos, err)
	}
	return ids.FromBytes(b)
}
