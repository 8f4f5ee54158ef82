// Package atomic holds the C-Chain's atomic transactions in coreth's codec
// (docs/evm.md, Atomic transactions): the ImportTx that credits EVM
// balances with UTXOs another chain exported, and the ExportTx that debits
// EVM balances and exports UTXOs to another chain, with their
// secp256k1fx inputs, outputs and credentials (package avax), signed as
// avalanchego signs them; their structural checks, gas and fees, and the
// batch form a block's atomic transactions are recorded in.
package atomic

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Type IDs of the unsigned transactions in the atomic codec. The
// secp256k1fx types keep the X-Chain's IDs (avax.TypeTransferInput, ...):
// the codec skips the IDs between.
const (
	typeImportTx uint32 = 0
	typeExportTx uint32 = 1
)

// MaxTxSize is the largest transaction the codec reads, in bytes.
const MaxTxSize = signedtx.MaxSize

// X2CRate is the number of wei in one nAVAX: AVAX has 9 decimals on the
// X-Chain and 18 in EVM balances.
const X2CRate = 1_000_000_000

// EVMOutput is what an import credits: Amount nAVAX of AssetID to
// Address's EVM balance.
type EVMOutput struct {
	Address common.Address
	Amount  uint64
	AssetID ids.ID
}

// Compare orders outputs by address, then asset, as coreth requires them.
func (o EVMOutput) Compare(p EVMOutput) int {
	if c := bytes.Compare(o.Address[:], p.Address[:]); c != 0 {
		return c
	}
	return bytes.Compare(o.AssetID[:], p.AssetID[:])
}

// EVMInput is what an export debits: Amount nAVAX of AssetID from
// Address's EVM balance, at the account's nonce Nonce.
type EVMInput struct {
	Address common.Address
	Amount  uint64
	AssetID ids.ID
	Nonce   uint64
}

// Compare orders inputs by address, then asset, as coreth requires them.
func (in EVMInput) Compare(p EVMInput) int {
	if c := bytes.Compare(in.Address[:], p.Address[:]); c != 0 {
		return c
	}
	return bytes.Compare(in.AssetID[:], p.AssetID[:])
}

// Unsigned is an unsigned atomic transaction: *ImportTx or *ExportTx.
type Unsigned interface {
	signedtx.Decodable
}

// ImportTx consumes UTXOs that SourceChain exported to this chain and
// credits Outs to EVM balances.
type ImportTx struct {
	NetworkID    uint32
	BlockchainID ids.ID
	SourceChain  ids.ID
	ImportedIns  []avax.TransferableInput
	Outs         []EVMOutput
}

// TypeID is typeImportTx.
func (*ImportTx) TypeID() uint32 { return typeImportTx }

// Pack packs the fields after the type ID.
func (t *ImportTx) Pack(p *avax.Packer) {
	p.Int(t.NetworkID)
	p.ID(t.BlockchainID)
	p.ID(t.SourceChain)
	avax.PackInputs(p, t.ImportedIns)
	p.Int(uint32(len(t.Outs)))
	for _, o := range t.Outs {
		p.Fixed(o.Address[:])
		p.Long(o.Amount)
		p.ID(o.AssetID)
	}
}

// Unpack reads what Pack wrote.
func (t *ImportTx) Unpack(u *avax.Unpacker) {
	t.NetworkID = u.Int()
	t.BlockchainID = u.ID()
	t.SourceChain = u.ID()
	t.ImportedIns = avax.UnpackInputs(u, "imported inputs")
	n := u.SliceLen(evmOutputSize, "outputs")
	t.Outs = make([]EVMOutput, n)
	for i := range t.Outs {
		o := &t.Outs[i]
		copy(o.Address[:], u.Fixed(common.AddressLength))
		o.Amount = u.Long()
		o.AssetID = u.ID()
	}
}

// ExportTx debits Ins from EVM balances and sends ExportedOuts to
// DestinationChain through shared memory.
type ExportTx struct {
	NetworkID        uint32
	BlockchainID     ids.ID
	DestinationChain ids.ID
	Ins              []EVMInput
	ExportedOuts     []avax.TransferableOutput
}

// TypeID is typeExportTx.
func (*ExportTx) TypeID() uint32 { return typeExportTx }

// Pack packs the fields after the type ID.
func (t *ExportTx) Pack(p *avax.Packer) {
	p.Int(t.NetworkID)
	p.ID(t.BlockchainID)
	p.ID(t.DestinationChain)
	p.Int(uint32(len(t.Ins)))
	for _, in := range t.Ins {
		p.Fixed(in.Address[:])
		p.Long(in.Amount)
		p.ID(in.AssetID)
		p.Long(in.Nonce)
	}
	avax.PackOutputs(p, t.ExportedOuts)
}

// Unpack reads what Pack wrote.
func (t *ExportTx) Unpack(u *avax.Unpacker) {
	t.NetworkID = u.Int()
	t.BlockchainID = u.ID()
	t.DestinationChain = u.ID()
	n := u.SliceLen(evmInputSize, "inputs")
	t.Ins = make([]EVMInput, n)
	for i := range t.Ins {
		in := &t.Ins[i]
		copy(in.Address[:], u.Fixed(common.AddressLength))
		in.Amount = u.Long()
		in.AssetID = u.ID()
		in.Nonce = u.Long()
	}
	t.ExportedOuts = avax.UnpackOutputs(u, "exported outputs")
}

// Sizes of the packed values, to bound slice lengths.
const (
	evmOutputSize = common.AddressLength + 8 + ids.Len
	evmInputSize  = evmOutputSize + 8
)

// Tx is a signed atomic transaction: the unsigned transaction and one
// credential per input (imported input of an import, EVM input of an
// export).
type Tx struct {
	signedtx.Tx[Unsigned]
}

// New returns the signed transaction of unsigned and creds, with its bytes
// and ID.
func New(unsigned Unsigned, creds []avax.Credential) *Tx {
	return &Tx{*signedtx.New(unsigned, creds)}
}

// Sign signs unsigned with one list of keys per input, in the order of the
// inputs, and returns the signed transaction.
func Sign(unsigned Unsigned, keys [][]*avax.PrivateKey) *Tx {
	return &Tx{*signedtx.Sign(unsigned, keys)}
}

// codec reads the atomic transactions.
var codec = signedtx.NewCodec("atomic tx", signedtx.Types[Unsigned]{
	Noun: "atomic transaction",
	New: map[uint32]func() Unsigned{
		typeImportTx: func() Unsigned { return &ImportTx{} },
		typeExportTx: func() Unsigned { return &ExportTx{} },
	},
}.Unpack)

// Parse reads a signed transaction: the codec version, the unsigned
// transaction and the credentials, with nothing after them, in the codec's
// one encoding.
func Parse(b []byte) (*Tx, error) {
	t, err := codec.Parse(b)
	if err != nil {
		return nil, err
	}
	return &Tx{*t}, nil
}

// EncodeBatch returns the batch form of a block's atomic transactions, as
// coreth writes a block's extra data: the codec version, their count, then
// each without its codec version.
func EncodeBatch(txs []*Tx) []byte {
	p := avax.NewPacker(nil)
	p.Version()
	p.Int(uint32(len(txs)))
	for _, t := range txs {
		t.PackInBlock(p)
	}
	return p.Bytes()
}

// ParseBatch reads what EncodeBatch wrote; an empty batch is an error.
func ParseBatch(b []byte) ([]*Tx, error) {
	u := avax.NewUnpacker(b)
	u.Version()
	n := u.SliceLen(4+4, "atomic transactions")
	if u.Err() == nil && n == 0 {
		return nil, fmt.Errorf("parse atomic batch: no transactions")
	}
	txs := make([]*Tx, 0, n)
	for range n {
		t := codec.UnpackInBlock(u)
		if u.Err() != nil {
			break
		}
		txs = append(txs, &Tx{*t})
	}
	if err := u.Done(); err != nil {
		return nil, fmt.Errorf("parse atomic batch: %w", err)
	}
	return txs, nil
}

// InputIDs are what the transaction consumes, which no other transaction
// of the chain may consume too: an import's UTXO IDs; for an export, each
// input's account and nonce (its nonce, 8 bytes, then the address as a
// length-prefixed slice, as coreth packs them in 32 bytes).
func (t *Tx) InputIDs() []ids.ID {
	switch tx := t.Unsigned.(type) {
	case *ImportTx:
		out := make([]ids.ID, len(tx.ImportedIns))
		for i := range tx.ImportedIns {
			out[i] = tx.ImportedIns[i].InputID()
		}
		return out
	case *ExportTx:
		out := make([]ids.ID, len(tx.Ins))
		for i, in := range tx.Ins {
			binary.BigEndian.PutUint64(out[i][:8], in.Nonce)
			binary.BigEndian.PutUint32(out[i][8:12], common.AddressLength)
			copy(out[i][12:], in.Address[:])
		}
		return out
	}
	return nil
}

// ExportedUTXOs returns the UTXOs an export puts in shared memory: its
// exported outputs, numbered from 0 under the transaction's ID.
func (t *Tx) ExportedUTXOs() []avax.UTXO {
	tx, ok := t.Unsigned.(*ExportTx)
	if !ok {
		return nil
	}
	out := make([]avax.UTXO, len(tx.ExportedOuts))
	for i, o := range tx.ExportedOuts {
		out[i] = avax.UTXO{UTXOID: avax.UTXOID{TxID: t.ID(), OutputIndex: uint32(i)}, AssetID: o.AssetID, Out: o.Out}
	}
	return out
}

// BatchHash is what a block's header commits to for the batch of its
// atomic transactions (EncodeBatch): the Keccak-256 of the batch's RLP, as
// coreth computes a block's ExtDataHash.
func BatchHash(batch []byte) common.Hash {
	enc, _ := rlp.EncodeToBytes(batch) // a byte string always encodes
	return crypto.Keccak256Hash(enc)
}
