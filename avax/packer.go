package avax

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/sdk/ids"
)

// CodecVersion is the codec version every value here is encoded with.
const CodecVersion = 0

// maxSliceLen is the most elements a decoded slice may hold (the bytes
// limit what a real value holds long before).
const maxSliceLen = 1 << 20

// Packer appends values in the linear codec's layout. The zero value is
// ready; Bytes returns what was packed.
type Packer struct {
	b []byte
}

// NewPacker returns a packer whose output starts with dst.
func NewPacker(dst []byte) *Packer { return &Packer{b: dst} }

// Bytes returns the packed bytes.
func (p *Packer) Bytes() []byte { return p.b }

// Byte packs one byte.
func (p *Packer) Byte(v byte) { p.b = append(p.b, v) }

// Bool packs a boolean as one byte, 0 or 1.
func (p *Packer) Bool(v bool) {
	if v {
		p.Byte(1)
	} else {
		p.Byte(0)
	}
}

// Short packs a uint16.
func (p *Packer) Short(v uint16) { p.b = binary.BigEndian.AppendUint16(p.b, v) }

// Int packs a uint32.
func (p *Packer) Int(v uint32) { p.b = binary.BigEndian.AppendUint32(p.b, v) }

// Long packs a uint64.
func (p *Packer) Long(v uint64) { p.b = binary.BigEndian.AppendUint64(p.b, v) }

// Fixed packs bytes as they are, without a length (an array).
func (p *Packer) Fixed(b []byte) { p.b = append(p.b, b...) }

// VarBytes packs a []byte: a uint32 length, then the bytes.
func (p *Packer) VarBytes(b []byte) {
	p.Int(uint32(len(b)))
	p.Fixed(b)
}

// Str packs a string: a uint16 length, then its bytes.
func (p *Packer) Str(s string) {
	p.Short(uint16(len(s)))
	p.b = append(p.b, s...)
}

// ID packs a 32-byte ID.
func (p *Packer) ID(id ids.ID) { p.Fixed(id[:]) }

// ShortID packs a 20-byte short ID.
func (p *Packer) ShortID(id ShortID) { p.Fixed(id[:]) }

// ShortIDs packs a []ShortID: a uint32 length, then each short ID.
func (p *Packer) ShortIDs(list []ShortID) {
	p.Int(uint32(len(list)))
	for _, id := range list {
		p.ShortID(id)
	}
}

// Ints packs a []uint32: a uint32 length, then each value.
func (p *Packer) Ints(list []uint32) {
	p.Int(uint32(len(list)))
	for _, v := range list {
		p.Int(v)
	}
}

// Version packs the 2-byte codec version, CodecVersion.
func (p *Packer) Version() { p.Short(CodecVersion) }

// ErrTrailingBytes is the error of a decode that leaves bytes unread.
var ErrTrailingBytes = errors.New("trailing bytes after the value")

// Unpacker reads values in the linear codec's layout. The first error
// sticks: later reads return zero values, and Err reports it.
type Unpacker struct {
	b   []byte
	off int
	err error
}

// NewUnpacker reads b.
func NewUnpacker(b []byte) *Unpacker { return &Unpacker{b: b} }

// Err returns the first error met.
func (u *Unpacker) Err() error { return u.err }

// Offset returns how many bytes were read.
func (u *Unpacker) Offset() int { return u.off }

// Remaining returns how many bytes are left.
func (u *Unpacker) Remaining() int { return len(u.b) - u.off }

// Fail records err, unless an error is recorded already.
func (u *Unpacker) Fail(err error) {
	if u.err == nil {
		u.err = err
	}
}

// Failf records a formatted error, unless one is recorded already.
func (u *Unpacker) Failf(format string, args ...any) { u.Fail(fmt.Errorf(format, args...)) }

// Done records ErrTrailingBytes when bytes are left, and returns Err.
func (u *Unpacker) Done() error {
	if u.err == nil && u.off != len(u.b) {
		u.err = fmt.Errorf("%w: %d bytes", ErrTrailingBytes, len(u.b)-u.off)
	}
	return u.err
}

// take returns the next n bytes, or nil after recording an error.
func (u *Unpacker) take(n int, what string) []byte {
	if u.err != nil {
		return nil
	}
	if n < 0 || n > len(u.b)-u.off {
		u.err = fmt.Errorf("%s at offset %d: need %d bytes, %d left", what, u.off, n, len(u.b)-u.off)
		return nil
	}
	out := u.b[u.off : u.off+n]
	u.off += n
	return out
}

// Byte reads one byte.
func (u *Unpacker) Byte() byte {
	b := u.take(1, "byte")
	if b == nil {
		return 0
	}
	return b[0]
}

// Bool reads a boolean; a byte other than 0 or 1 is an error.
func (u *Unpacker) Bool() bool {
	switch b := u.Byte(); b {
	case 0:
		return false
	case 1:
		return true
	default:
		u.Failf("boolean at offset %d: byte %d", u.off-1, b)
		return false
	}
}

// Short reads a uint16.
func (u *Unpacker) Short() uint16 {
	b := u.take(2, "uint16")
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint16(b)
}

// Int reads a uint32.
func (u *Unpacker) Int() uint32 {
	b := u.take(4, "uint32")
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

// Long reads a uint64.
func (u *Unpacker) Long() uint64 {
	b := u.take(8, "uint64")
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// Fixed reads n bytes; the result aliases the input.
func (u *Unpacker) Fixed(n int) []byte { return u.take(n, "bytes") }

// VarBytes reads a uint32 length and that many bytes, copied.
func (u *Unpacker) VarBytes() []byte {
	n := u.Int()
	b := u.take(int(n), "byte slice")
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// Str reads a uint16 length and that many bytes as a string.
func (u *Unpacker) Str() string {
	n := u.Short()
	return string(u.take(int(n), "string"))
}

// ID reads a 32-byte ID.
func (u *Unpacker) ID() ids.ID {
	var id ids.ID
	copy(id[:], u.take(ids.Len, "ID"))
	return id
}

// ShortID reads a 20-byte short ID.
func (u *Unpacker) ShortID() ShortID {
	var id ShortID
	copy(id[:], u.take(ShortIDLen, "short ID"))
	return id
}

// ShortIDs reads what Packer.ShortIDs wrote; what names the slice in
// errors.
func (u *Unpacker) ShortIDs(what string) []ShortID {
	list := make([]ShortID, u.SliceLen(ShortIDLen, what))
	for i := range list {
		list[i] = u.ShortID()
	}
	return list
}

// Ints reads what Packer.Ints wrote; what names the slice in errors.
func (u *Unpacker) Ints(what string) []uint32 {
	list := make([]uint32, u.SliceLen(4, what))
	for i := range list {
		list[i] = u.Int()
	}
	return list
}

// SliceLen reads a slice's uint32 length and checks that the bytes left
// can hold that many elements of at least minSize bytes each.
func (u *Unpacker) SliceLen(minSize int, what string) int {
	n := u.Int()
	if u.err != nil {
		return 0
	}
	if n > maxSliceLen || int(n)*minSize > u.Remaining() {
		u.Failf("%s: %d elements cannot fit in the %d bytes left", what, n, u.Remaining())
		return 0
	}
	return int(n)
}

// Version reads the 2-byte codec version and checks it is CodecVersion.
func (u *Unpacker) Version() {
	if v := u.Short(); u.err == nil && v != CodecVersion {
		u.Failf("codec version %d, want %d", v, CodecVersion)
	}
}

// TypeID reads a 4-byte type ID.
func (u *Unpacker) TypeID() uint32 { return u.Int() }

// ExpectTypeID reads a type ID and reports whether it is want, the only
// type of the value read here; another is recorded as an error naming
// what is read ("output") and the type taken ("secp256k1fx transfer
// outputs").
func (u *Unpacker) ExpectTypeID(want uint32, what, taken string) bool {
	t := u.TypeID()
	if u.err == nil && t != want {
		u.Failf("%s type ID %d is not supported (only %s, type %d)", what, t, taken, want)
	}
	return u.err == nil
}
