package evm

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/leveldb"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// framesDir is the frame store's directory under the chain's data dir.
const framesDir = "frames"

// Resources of the frame store's goleveldb: it is read a block at a time
// and written once per block inserted, so it needs little (docs/evm.md).
const (
	framesCacheMB = 16
	framesHandles = 64
)

// frameRecordVersion is the first byte of every frame record.
const frameRecordVersion = 1

// minFrameSize is the size of the smallest encoded frame: type, flags,
// from, to and three one-byte varints.
const minFrameSize = 2 + 2*common.AddressLength + 3

// Flags of an encoded frame.
const (
	frameReverted = 1 << iota
	frameHasValue
)

// liveTracerName is the name the frame recorder is registered under in
// go-ethereum's directory of live tracers.
const liveTracerName = "chainhost-call-frames"

// recorders holds the frame recorder of every running chain, by the
// directory of its frame store. go-ethereum builds a live tracer from a
// registered name and a JSON config only (ethconfig's VMTrace and
// VMTraceJsonConfig), and its directory is a process-wide map that is not
// safe to write once chains run; so one constructor is registered at
// start-up and finds the chain's recorder here by the directory its config
// names.
var recorders sync.Map // string → *frameRecorder

func init() {
	tracers.LiveDirectory.Register(liveTracerName, newLiveTracer)
}

// liveTracerConfig is the JSON config of the live tracer.
type liveTracerConfig struct {
	Store string `json:"store"`
}

// newLiveTracer returns the hooks of the recorder of the frame store its
// config names.
func newLiveTracer(raw json.RawMessage) (*tracing.Hooks, error) {
	var cfg liveTracerConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s config: %w", liveTracerName, err)
	}
	r, ok := recorders.Load(cfg.Store)
	if !ok {
		return nil, fmt.Errorf("%s: no frame store open at %q", liveTracerName, cfg.Store)
	}
	return r.(*frameRecorder).hooks(), nil
}

// frameStore keeps the call frames of every block go-ethereum inserted, by
// block hash, in a goleveldb of its own in the chain's directory. A record
// is written once, when the block's insertion ends; the hash fixes the
// block's content and so its execution, so a record never goes stale, not
// even across a re-import or a fork. Blocks without transactions have no
// record.
type frameStore struct {
	dir string
	db  ethdb.KeyValueStore
	rec *frameRecorder
}

// openFrameStore opens (or creates) the frame store in dir and registers
// its recorder for go-ethereum to attach at block insertion (attachEth).
func openFrameStore(dir string, log hclog.Logger) (*frameStore, error) {
	db, err := openFrameDB(dir)
	if err != nil {
		return nil, err
	}
	s := &frameStore{dir: dir, db: db}
	s.rec = &frameRecorder{store: s, log: log}
	if _, loaded := recorders.LoadOrStore(dir, s.rec); loaded {
		_ = db.Close()
		return nil, fmt.Errorf("the call frame store %s is open twice", dir)
	}
	return s, nil
}

// openFrameDB opens the frame store's goleveldb in dir.
func openFrameDB(dir string) (ethdb.KeyValueStore, error) {
	db, err := leveldb.New(dir, framesCacheMB, framesHandles, "", false)
	if err != nil {
		return nil, fmt.Errorf("open the call frame store %s: %w", dir, err)
	}
	return db, nil
}

// tracerConfig is the ethconfig.VMTraceJsonConfig that attaches the store's
// recorder.
func (s *frameStore) tracerConfig() string {
	b, _ := json.Marshal(liveTracerConfig{Store: s.dir})
	return string(b)
}

// frameKey is a record's key: 'f' and the block hash.
func frameKey(hash common.Hash) []byte {
	return append([]byte{'f'}, hash[:]...)
}

// get returns the record of a block, nil when there is none.
func (s *frameStore) get(hash common.Hash) ([]byte, error) {
	key := frameKey(hash)
	b, err := s.db.Get(key)
	if err == nil {
		return b, nil
	}
	if ok, herr := s.db.Has(key); herr == nil && !ok {
		return nil, nil
	}
	return nil, fmt.Errorf("read the call frames of block %s: %w", hash, err)
}

// put writes the record of a block.
func (s *frameStore) put(hash common.Hash, rec []byte) error {
	return s.db.Put(frameKey(hash), rec)
}

// delete removes the record of a block.
func (s *frameStore) delete(hash common.Hash) error {
	return s.db.Delete(frameKey(hash))
}

// Close unregisters the recorder and closes the database. go-ethereum must
// be stopped first.
func (s *frameStore) Close() error {
	recorders.CompareAndDelete(s.dir, s.rec)
	return s.db.Close()
}

// recFrame is a call frame as the recorder sees it.
type recFrame struct {
	typ      byte
	from, to common.Address
	value    *big.Int
	gas      uint64
	gasUsed  uint64
	depth    int
	reverted bool
}

// frameRecorder is go-ethereum's live tracer that records the call frames
// of every block it inserts, with the frame hooks only (no opcode hook, so
// insertion stays cheap). go-ethereum calls a live tracer only from block
// insertion, one block at a time (the miner executes without it), so its
// state needs no lock. Frames are kept with go-ethereum's call tracer's
// semantics (eth/tracers/native/call.go): the top-level frame has the
// transaction's gas limit as gas and the receipt's gas used, a frame failed
// when it exited with an error that reverted it, and only the frames
// between a transaction's start and end count (not those of the system
// calls around them).
type frameRecorder struct {
	store *frameStore
	log   hclog.Logger

	block    *types.Block
	rec      []byte // the block's record so far
	txs      int    // transactions recorded
	broken   bool   // a transaction failed validation: the block is invalid
	inTx     bool
	txHash   common.Hash
	gasLimit uint64
	frames   []recFrame
	open     []int // indexes in frames of the frames entered, not exited
}

func (r *frameRecorder) hooks() *tracing.Hooks {
	return &tracing.Hooks{
		OnBlockStart: r.onBlockStart,
		OnBlockEnd:   r.onBlockEnd,
		OnTxStart:    r.onTxStart,
		OnTxEnd:      r.onTxEnd,
		OnEnter:      r.onEnter,
		OnExit:       r.onExit,
	}
}

func (r *frameRecorder) onBlockStart(ev tracing.BlockEvent) {
	r.block = ev.Block
	r.rec = append(r.rec[:0], frameRecordVersion)
	r.rec = binary.AppendUvarint(r.rec, uint64(len(ev.Block.Transactions())))
	r.txs, r.broken, r.inTx = 0, false, false
}

// onBlockEnd writes the block's record once its insertion succeeded.
func (r *frameRecorder) onBlockEnd(err error) {
	blk := r.block
	r.block = nil
	if err != nil || blk == nil || r.broken || r.inTx {
		return
	}
	n := len(blk.Transactions())
	if n == 0 {
		return
	}
	if r.txs != n {
		r.log.Warn("call frames not recorded: transaction count differs", "block", blk.NumberU64(), "hash", blk.Hash(),
			"recorded", r.txs, "transactions", n)
		return
	}
	if err := r.store.put(blk.Hash(), r.rec); err != nil {
		// indexer_getBlocks re-executes the block instead.
		r.log.Warn("record call frames", "block", blk.NumberU64(), "hash", blk.Hash(), "err", err)
	}
}

func (r *frameRecorder) onTxStart(_ *tracing.VMContext, tx *types.Transaction, _ common.Address) {
	if r.block == nil {
		return
	}
	r.inTx = true
	r.txHash = tx.Hash() // computed by the state processor already
	r.gasLimit = tx.Gas()
	r.frames = r.frames[:0]
	r.open = r.open[:0]
}

func (r *frameRecorder) onEnter(depth int, typ byte, from, to common.Address, _ []byte, gas uint64, value *big.Int) {
	if !r.inTx {
		return
	}
	if depth == 0 {
		gas = r.gasLimit
	}
	r.open = append(r.open, len(r.frames))
	r.frames = append(r.frames, recFrame{typ: typ, from: from, to: to, value: value, gas: gas, depth: depth})
}

func (r *frameRecorder) onExit(_ int, _ []byte, gasUsed uint64, err error, reverted bool) {
	if !r.inTx || len(r.open) == 0 {
		return
	}
	f := &r.frames[r.open[len(r.open)-1]]
	r.open = r.open[:len(r.open)-1]
	f.gasUsed = gasUsed
	f.reverted = err != nil && reverted
	if f.reverted && (vm.OpCode(f.typ) == vm.CREATE || vm.OpCode(f.typ) == vm.CREATE2) {
		f.to = common.Address{} // no contract was made
	}
}

func (r *frameRecorder) onTxEnd(receipt *types.Receipt, err error) {
	if !r.inTx {
		return
	}
	r.inTx = false
	if err != nil || len(r.frames) == 0 {
		r.broken = true
		return
	}
	if receipt != nil {
		r.frames[0].gasUsed = receipt.GasUsed
	}
	r.rec = appendFrames(r.rec, r.txHash, r.frames)
	r.txs++
}

// appendFrames encodes one transaction: its hash (kept so that a read
// need not hash the transactions again), the count of its frames, then
// each frame as type, flags, from, to, gas, gas used, depth and, when the
// frame has one, the value's length and big-endian bytes.
func appendFrames(b []byte, txHash common.Hash, frames []recFrame) []byte {
	b = append(b, txHash[:]...)
	b = binary.AppendUvarint(b, uint64(len(frames)))
	for i := range frames {
		f := &frames[i]
		var flags byte
		if f.reverted {
			flags |= frameReverted
		}
		if f.value != nil {
			flags |= frameHasValue
		}
		b = append(b, f.typ, flags)
		b = append(b, f.from[:]...)
		b = append(b, f.to[:]...)
		b = binary.AppendUvarint(b, f.gas)
		b = binary.AppendUvarint(b, f.gasUsed)
		b = binary.AppendUvarint(b, uint64(f.depth))
		if f.value != nil {
			v := f.value.Bytes()
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
	}
	return b
}

// errBadRecord marks a frame record that does not decode.
var errBadRecord = errors.New("malformed call frame record")

// blockFrames are the call frames of a block's transactions: those of
// transaction i are calls[start[i]:start[i+1]]; its hash is hashes[i].
type blockFrames struct {
	hashes []common.Hash
	calls  []evmapi.CallFrame
	start  []int
}

// tx returns the frames of transaction i.
func (f *blockFrames) tx(i int) []evmapi.CallFrame {
	return f.calls[f.start[i]:f.start[i+1]:f.start[i+1]]
}

// decodeFrames decodes a frame record of a block with txs transactions.
func decodeFrames(rec []byte, txs int) (blockFrames, error) {
	if len(rec) == 0 || rec[0] != frameRecordVersion {
		return blockFrames{}, fmt.Errorf("%w: version", errBadRecord)
	}
	d := frameDecoder{b: rec[1:]}
	if n := d.uvarint(); d.err != nil || n != uint64(txs) {
		return blockFrames{}, fmt.Errorf("%w: %d transactions, the block has %d", errBadRecord, n, txs)
	}
	out := blockFrames{hashes: make([]common.Hash, txs), start: make([]int, 0, txs+1)}
	// A frame takes at least minFrameSize bytes, so neither slab grows
	// (values must not move: the frames point at them).
	most := len(rec)/minFrameSize + 1
	out.calls = make([]evmapi.CallFrame, 0, most)
	values := make([]big.Int, 0, most)
	for i := range txs {
		out.start = append(out.start, len(out.calls))
		if len(d.b) < common.HashLength {
			return blockFrames{}, fmt.Errorf("%w: truncated", errBadRecord)
		}
		out.hashes[i] = common.Hash(d.b[:common.HashLength])
		d.b = d.b[common.HashLength:]
		n := d.uvarint()
		if d.err != nil || n == 0 || n > uint64(len(d.b)/minFrameSize) {
			return blockFrames{}, fmt.Errorf("%w: frame count", errBadRecord)
		}
		for range n {
			if len(d.b) < minFrameSize {
				return blockFrames{}, fmt.Errorf("%w: truncated", errBadRecord)
			}
			f := evmapi.CallFrame{Type: vm.OpCode(d.b[0]).String()} // as go-ethereum's call tracer names it
			flags := d.b[1]
			f.From = common.Address(d.b[2:22])
			f.To = common.Address(d.b[22:42])
			d.b = d.b[42:]
			f.Gas = hexutil.Uint64(d.uvarint())
			f.GasUsed = hexutil.Uint64(d.uvarint())
			f.Depth = int(d.uvarint())
			f.Reverted = flags&frameReverted != 0
			if flags&frameHasValue != 0 {
				values = append(values, big.Int{})
				bv := &values[len(values)-1]
				bv.SetBytes(d.bytes())
				f.Value = (*hexutil.Big)(bv)
			}
			if d.err != nil {
				return blockFrames{}, fmt.Errorf("%w: %v", errBadRecord, d.err)
			}
			out.calls = append(out.calls, f)
		}
	}
	if len(d.b) != 0 {
		return blockFrames{}, fmt.Errorf("%w: %d bytes left", errBadRecord, len(d.b))
	}
	out.start = append(out.start, len(out.calls))
	return out, nil
}

// frameDecoder reads a record; the first error sticks.
type frameDecoder struct {
	b   []byte
	err error
}

func (d *frameDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *frameDecoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = errors.New("truncated bytes")
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}
