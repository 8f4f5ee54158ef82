package xvm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Keys of the VM's state in its host database namespace (docs/xvm.md),
// besides the UTXO set's (utxostore: 'u', 'a', 's').
const (
	prefixTx         = 't' // t <txID> -> tx record
	prefixTxAt       = 'T' // T <position in X/tx> -> txID
	prefixBlock      = 'b' // b <height> -> block bytes
	prefixBlockID    = 'B' // B <blockID> -> height
	prefixVertex     = 'v' // v <position in X/vtx> -> vertex record
	prefixVertexID   = 'V' // V <vertexID> -> position
	keyMeta          = "m" // the chain's counters and heads
	noTxPosition     = ^uint64(0)
	containerBlock   = 'b'
	containerVertex  = 'v'
	containerGenesis = 'g'
)

func key(prefix byte, parts ...[]byte) []byte {
	k := []byte{prefix}
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func txKey(id ids.ID) []byte       { return key(prefixTx, id[:]) }
func txAtKey(pos uint64) []byte    { return key(prefixTxAt, u64(pos)) }
func blockKey(h uint64) []byte     { return key(prefixBlock, u64(h)) }
func blockIDKey(id ids.ID) []byte  { return key(prefixBlockID, id[:]) }
func vertexKey(pos uint64) []byte  { return key(prefixVertex, u64(pos)) }
func vertexIDKey(id ids.ID) []byte { return key(prefixVertexID, id[:]) }

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
	c.Burned = make(map[ids.ID]uint64, len(m.Burned))
	for k, v := range m.Burned {
		c.Burned[k] = v
	}
	return c
}

// readMeta returns the stored meta; found is false on a new chain.
func readMeta(ctx context.Context, db host.Database) (m meta, found bool, err error) {
	b, err := db.Get(ctx, []byte(keyMeta))
	if errors.Is(err, host.ErrNotFound) {
		return meta{}, false, nil
	}
	if err != nil {
		return meta{}, false, fmt.Errorf("read chain state: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return meta{}, false, fmt.Errorf("read chain state: %w", err)
	}
	if m.Burned == nil {
		m.Burned = map[ids.ID]uint64{}
	}
	return m, true, nil
}

func (m *meta) op() host.Op {
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("encode chain state: %v", err)) // plain data: cannot fail
	}
	return host.Op{Key: []byte(keyMeta), Value: b}
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

// state reads the VM's stored state.
type state struct {
	db host.Database
}

// tx returns a stored transaction record.
func (s state) tx(ctx context.Context, id ids.ID) (txRecord, bool, error) {
	b, err := s.db.Get(ctx, txKey(id))
	if errors.Is(err, host.ErrNotFound) {
		return txRecord{}, false, nil
	}
	if err != nil {
		return txRecord{}, false, fmt.Errorf("read tx %s: %w", id, err)
	}
	r, err := decodeTxRecord(b)
	return r, err == nil, err
}

// block returns the block at a height.
func (s state) block(ctx context.Context, height uint64) (*blocks.Block, error) {
	b, err := s.db.Get(ctx, blockKey(height))
	if err != nil {
		return nil, fmt.Errorf("block at height %d: %w", height, err)
	}
	return blocks.ParseBlock(b)
}

// blockHeight returns the height of a block ID.
func (s state) blockHeight(ctx context.Context, id ids.ID) (uint64, error) {
	b, err := s.db.Get(ctx, blockIDKey(id))
	if err != nil {
		return 0, fmt.Errorf("block %s: %w", id, err)
	}
	if len(b) != 8 {
		return 0, errors.New("corrupt block height")
	}
	return binary.BigEndian.Uint64(b), nil
}

// vertex returns the vertex at a position of X/vtx.
func (s state) vertex(ctx context.Context, pos uint64) (*blocks.Vertex, vertexRecord, error) {
	b, err := s.db.Get(ctx, vertexKey(pos))
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
func (s state) vertexPosition(ctx context.Context, id ids.ID) (uint64, error) {
	b, err := s.db.Get(ctx, vertexIDKey(id))
	if err != nil {
		return 0, fmt.Errorf("vertex %s: %w", id, err)
	}
	if len(b) != 8 {
		return 0, errors.New("corrupt vertex position")
	}
	return binary.BigEndian.Uint64(b), nil
}

// txAt returns the ID of the transaction at a position of X/tx.
func (s state) txAt(ctx context.Context, pos uint64) (ids.ID, error) {
	b, err := s.db.Get(ctx, txAtKey(pos))
	if err != nil {
		return ids.ID{}, fmt.Errorf("tx at %d: %w", pos, err)
	}
	return ids.FromBytes(b)
}

// parsedTx returns a stored transaction, parsed.
func (s state) parsedTx(ctx context.Context, id ids.ID) (*txs.Tx, txRecord, bool, error) {
	r, found, err := s.tx(ctx, id)
	if err != nil || !found {
		return nil, txRecord{}, found, err
	}
	t, err := txs.Parse(r.Bytes)
	if err != nil {
		return nil, txRecord{}, false, fmt.Errorf("stored tx %s: %w", id, err)
	}
	return t, r, true, nil
}
