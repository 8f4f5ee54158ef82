package avax

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/chainhost/chainhost/sdk/ids"
)

// Type IDs of the secp256k1fx types, the same in the X-Chain's codec and
// in the C-Chain's atomic codec.
const (
	typeTransferInput  uint32 = 5
	typeMintOutput     uint32 = 6
	typeTransferOutput uint32 = 7
	typeMintOperation  uint32 = 8
	typeCredential     uint32 = 9
)

// OutputOwners are who may spend an output: Threshold signatures of Addrs,
// after Locktime (unix seconds).
type OutputOwners struct {
	Locktime  uint64
	Threshold uint32
	Addrs     []ShortID
}

// PackFields packs the owners' fields, without a type ID: an output
// holds them after its own fields, a P-Chain owner after its type ID.
func (o *OutputOwners) PackFields(p *Packer) {
	p.Long(o.Locktime)
	p.Int(o.Threshold)
	p.ShortIDs(o.Addrs)
}

// UnpackOwnerFields reads what PackFields wrote.
func UnpackOwnerFields(u *Unpacker) OutputOwners {
	return OutputOwners{Locktime: u.Long(), Threshold: u.Int(), Addrs: u.ShortIDs("output addresses")}
}

// Verify checks the owners as secp256k1fx does: a threshold that the
// addresses can meet, no threshold of 0 with addresses, addresses sorted
// and unique.
func (o *OutputOwners) Verify() error {
	switch {
	case o.Threshold > uint32(len(o.Addrs)):
		return fmt.Errorf("output is unspendable: threshold %d with %d addresses", o.Threshold, len(o.Addrs))
	case o.Threshold == 0 && len(o.Addrs) > 0:
		return fmt.Errorf("output has addresses but a threshold of 0")
	}
	if !SortedUnique(o.Addrs, ShortID.Compare) {
		return fmt.Errorf("output addresses not sorted and unique")
	}
	return nil
}

// TransferOutput is secp256k1fx's transfer output: Amt units owned by the
// owners.
type TransferOutput struct {
	Amt uint64
	OutputOwners
}

// Pack packs the output's type ID and fields.
func (o *TransferOutput) Pack(p *Packer) {
	p.Int(typeTransferOutput)
	p.Long(o.Amt)
	o.PackFields(p)
}

// UnpackTransferOutput reads an output's type ID, which must be
// typeTransferOutput, and its fields.
func UnpackTransferOutput(u *Unpacker) TransferOutput {
	if !u.ExpectTypeID(typeTransferOutput, "output", "secp256k1fx transfer outputs") {
		return TransferOutput{}
	}
	return TransferOutput{Amt: u.Long(), OutputOwners: UnpackOwnerFields(u)}
}

// Verify checks a non-zero amount and the owners.
func (o *TransferOutput) Verify() error {
	if o.Amt == 0 {
		return fmt.Errorf("output has no value")
	}
	return o.OutputOwners.Verify()
}

// MintOutput is secp256k1fx's mint output: who may mint more of an asset
// (a variable-cap asset's initial state holds it, and a UTXO then). It
// holds no amount and is spent by minting, never by a transfer input.
type MintOutput struct {
	OutputOwners
}

// Pack packs the output's type ID and fields.
func (o *MintOutput) Pack(p *Packer) {
	p.Int(typeMintOutput)
	o.PackFields(p)
}

// PackOutput packs what a UTXO or an asset's initial state holds: mint
// when it is set, else out.
func PackOutput(p *Packer, out *TransferOutput, mint *MintOutput) {
	if mint != nil {
		mint.Pack(p)
		return
	}
	out.Pack(p)
}

// UnpackOutput reads what PackOutput wrote: a TransferOutput, or a
// MintOutput (out is then zero). Other types, such as the NFT and
// property feature extensions' outputs, are refused.
func UnpackOutput(u *Unpacker) (out TransferOutput, mint *MintOutput) {
	switch t := u.TypeID(); {
	case u.Err() != nil:
	case t == typeTransferOutput:
		out = TransferOutput{Amt: u.Long(), OutputOwners: UnpackOwnerFields(u)}
	case t == typeMintOutput:
		mint = &MintOutput{UnpackOwnerFields(u)}
	default:
		u.Failf("output type ID %d is not supported (only secp256k1fx transfer and mint outputs, types %d and %d)", t, typeTransferOutput, typeMintOutput)
	}
	return out, mint
}

// TransferInput is secp256k1fx's transfer input: the amount of the UTXO it
// spends, and which of its addresses sign (indexes into the UTXO's
// addresses, one per signature of the credential).
type TransferInput struct {
	Amt        uint64
	SigIndices []uint32
}

// Pack packs the input's type ID and fields.
func (in *TransferInput) Pack(p *Packer) {
	p.Int(typeTransferInput)
	p.Long(in.Amt)
	p.Ints(in.SigIndices)
}

// unpackTransferInput reads an input's type ID, which must be
// typeTransferInput, and its fields.
func unpackTransferInput(u *Unpacker) TransferInput {
	if !u.ExpectTypeID(typeTransferInput, "input", "secp256k1fx transfer inputs") {
		return TransferInput{}
	}
	return TransferInput{Amt: u.Long(), SigIndices: u.Ints("signature indices")}
}

// Verify checks a non-zero amount and sorted, unique signature indices.
func (in *TransferInput) Verify() error {
	if in.Amt == 0 {
		return fmt.Errorf("input has no value")
	}
	if !SortedUnique(in.SigIndices, cmp.Compare) {
		return fmt.Errorf("signature indices not sorted and unique")
	}
	return nil
}

// Credential is secp256k1fx's credential: the signatures of one input.
type Credential struct {
	Sigs [][SignatureLen]byte
}

// Pack packs the credential's type ID and signatures.
func (c *Credential) Pack(p *Packer) {
	p.Int(typeCredential)
	p.Int(uint32(len(c.Sigs)))
	for i := range c.Sigs {
		p.Fixed(c.Sigs[i][:])
	}
}

// UnpackCredential reads a credential's type ID, which must be
// typeCredential, and its signatures.
func UnpackCredential(u *Unpacker) Credential {
	var c Credential
	if !u.ExpectTypeID(typeCredential, "credential", "secp256k1fx credentials") {
		return c
	}
	n := u.SliceLen(SignatureLen, "signatures")
	c.Sigs = make([][SignatureLen]byte, n)
	for i := range c.Sigs {
		copy(c.Sigs[i][:], u.Fixed(SignatureLen))
	}
	return c
}

// UTXOID names an output: the transaction that made it and its index.
type UTXOID struct {
	TxID        ids.ID
	OutputIndex uint32
}

// InputID returns the UTXO's ID: the SHA-256 of the output index (as 8
// big-endian bytes) followed by the transaction ID.
func (u UTXOID) InputID() ids.ID {
	var b [8 + ids.Len]byte
	binary.BigEndian.PutUint64(b[:8], uint64(u.OutputIndex))
	copy(b[8:], u.TxID[:])
	return sha256.Sum256(b[:])
}

// String returns "<txID>:<index>".
func (u UTXOID) String() string { return fmt.Sprintf("%s:%d", u.TxID, u.OutputIndex) }

// Compare orders UTXO IDs by transaction ID, then index.
func (u UTXOID) Compare(o UTXOID) int {
	if c := bytes.Compare(u.TxID[:], o.TxID[:]); c != 0 {
		return c
	}
	switch {
	case u.OutputIndex < o.OutputIndex:
		return -1
	case u.OutputIndex > o.OutputIndex:
		return 1
	}
	return 0
}

// TransferableOutput is an output of an asset in a transaction.
type TransferableOutput struct {
	AssetID ids.ID
	Out     TransferOutput
}

// Pack packs the asset ID and the output.
func (o *TransferableOutput) Pack(p *Packer) {
	p.ID(o.AssetID)
	o.Out.Pack(p)
}

// UnpackTransferableOutput reads what Pack wrote.
func UnpackTransferableOutput(u *Unpacker) TransferableOutput {
	var o TransferableOutput
	o.AssetID = u.ID()
	o.Out = UnpackTransferOutput(u)
	return o
}

// outBytes returns the packed output (type ID and fields), which orders
// outputs of one asset.
func (o *TransferableOutput) outBytes() []byte {
	p := NewPacker(nil)
	o.Out.Pack(p)
	return p.Bytes()
}

// compareOutputs orders outputs as avalanchego requires them in a
// transaction: by asset ID, then by the bytes of the packed output.
func compareOutputs(a, b *TransferableOutput) int {
	if c := bytes.Compare(a.AssetID[:], b.AssetID[:]); c != 0 {
		return c
	}
	return bytes.Compare(a.outBytes(), b.outBytes())
}

// SortOutputs sorts outputs as compareOutputs orders them.
func SortOutputs(outs []TransferableOutput) {
	slices.SortFunc(outs, func(a, b TransferableOutput) int { return compareOutputs(&a, &b) })
}

// OutputsSorted reports whether outputs are sorted (repeats allowed).
func OutputsSorted(outs []TransferableOutput) bool {
	for i := 1; i < len(outs); i++ {
		if compareOutputs(&outs[i-1], &outs[i]) > 0 {
			return false
		}
	}
	return true
}

// TransferableInput is an input of a transaction: the UTXO it spends, its
// asset, and the secp256k1fx input.
type TransferableInput struct {
	UTXOID
	AssetID ids.ID
	In      TransferInput
}

// Pack packs the UTXO ID, the asset ID and the input.
func (in *TransferableInput) Pack(p *Packer) {
	p.ID(in.TxID)
	p.Int(in.OutputIndex)
	p.ID(in.AssetID)
	in.In.Pack(p)
}

// UnpackTransferableInput reads what Pack wrote.
func UnpackTransferableInput(u *Unpacker) TransferableInput {
	var in TransferableInput
	in.TxID = u.ID()
	in.OutputIndex = u.Int()
	in.AssetID = u.ID()
	in.In = unpackTransferInput(u)
	return in
}

// SortInputs sorts inputs by their UTXO IDs, and the signers with them
// when signers is not nil (one entry per input).
func SortInputs[S any](ins []TransferableInput, signers []S) {
	idx := make([]int, len(ins))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return ins[a].UTXOID.Compare(ins[b].UTXOID) })
	sortedIns := make([]TransferableInput, len(ins))
	var sortedSigners []S
	if signers != nil {
		sortedSigners = make([]S, len(signers))
	}
	for to, from := range idx {
		sortedIns[to] = ins[from]
		if signers != nil {
			sortedSigners[to] = signers[from]
		}
	}
	copy(ins, sortedIns)
	copy(signers, sortedSigners)
}

// InputsSortedUnique reports whether inputs are sorted by UTXO ID without
// repeats.
func InputsSortedUnique(ins []TransferableInput) bool {
	return SortedUnique(ins, func(a, b TransferableInput) int { return a.UTXOID.Compare(b.UTXOID) })
}

// SortedUnique reports whether list is sorted by cmp without repeats, as
// the codec's lists of inputs, addresses and signature indices must be.
func SortedUnique[T any](list []T, cmp func(a, b T) int) bool {
	for i := 1; i < len(list); i++ {
		if cmp(list[i-1], list[i]) >= 0 {
			return false
		}
	}
	return true
}

// UTXO is an unspent output: where it was made, its asset and the output.
type UTXO struct {
	UTXOID
	AssetID ids.ID
	Out     TransferOutput
	// Mint, when set, is the output instead of Out (zero then): an
	// X-Chain asset's mint output, which no transfer spends.
	Mint *MintOutput
}

// Owners returns who own the UTXO's output.
func (u *UTXO) Owners() *OutputOwners {
	if u.Mint != nil {
		return &u.Mint.OutputOwners
	}
	return &u.Out.OutputOwners
}

// Bytes returns the UTXO as avalanchego encodes it: the codec version,
// the UTXO ID, the asset ID and the output.
func (u *UTXO) Bytes() []byte {
	p := NewPacker(make([]byte, 0, 128))
	p.Version()
	p.ID(u.TxID)
	p.Int(u.OutputIndex)
	p.ID(u.AssetID)
	PackOutput(p, &u.Out, u.Mint)
	return p.Bytes()
}

// ParseUTXO reads what Bytes wrote: a transfer output or a mint output.
func ParseUTXO(b []byte) (UTXO, error) {
	u := NewUnpacker(b)
	u.Version()
	var utxo UTXO
	utxo.TxID = u.ID()
	utxo.OutputIndex = u.Int()
	utxo.AssetID = u.ID()
	utxo.Out, utxo.Mint = UnpackOutput(u)
	if err := u.Done(); err != nil {
		return UTXO{}, fmt.Errorf("parse UTXO: %w", err)
	}
	return utxo, nil
}

// The smallest packed TransferableOutput and TransferableInput, to bound
// the lengths of their slices.
const (
	minOutputSize = ids.Len + 4 + 8 + 8 + 4 + 4
	minInputSize  = ids.Len + 4 + ids.Len + 4 + 8 + 4
)

// PackOutputs packs a slice of outputs: its length, then each output.
func PackOutputs(p *Packer, outs []TransferableOutput) { packSlice(p, outs) }

// UnpackOutputs reads what PackOutputs wrote; what names the slice in
// errors.
func UnpackOutputs(u *Unpacker, what string) []TransferableOutput {
	return unpackSlice(u, minOutputSize, what, UnpackTransferableOutput)
}

// PackInputs packs a slice of inputs: its length, then each input.
func PackInputs(p *Packer, ins []TransferableInput) { packSlice(p, ins) }

// UnpackInputs reads what PackInputs wrote; what names the slice in
// errors.
func UnpackInputs(u *Unpacker, what string) []TransferableInput {
	return unpackSlice(u, minInputSize, what, UnpackTransferableInput)
}

// packSlice packs a slice: its length, then each element.
func packSlice[T any, PT interface {
	*T
	Pack(p *Packer)
}](p *Packer, list []T) {
	p.Int(uint32(len(list)))
	for i := range list {
		PT(&list[i]).Pack(p)
	}
}

// unpackSlice reads what packSlice wrote, each element of at least minSize
// bytes.
func unpackSlice[T any](u *Unpacker, minSize int, what string, read func(u *Unpacker) T) []T {
	n := u.SliceLen(minSize, what)
	list := make([]T, n)
	for i := range list {
		list[i] = read(u)
	}
	return list
}
