package ids

import (
	"bytes"
	"testing"
)

// FuzzCB58: decoding never panics, and what decodes encodes back to the
// same text (CB58 has one spelling per byte string).
func FuzzCB58(f *testing.F) {
	for _, b := range [][]byte{nil, {0}, {0, 0, 1}, bytes.Repeat([]byte{0xff}, 32), []byte("chainhost")} {
		f.Add(EncodeCB58(b))
	}
	f.Add("11111111111111111111111111111111LpoYY")
	f.Add("2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM")
	f.Add("0OIl")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeCB58(s)
		if err != nil {
			return
		}
		if got := EncodeCB58(b); got != s {
			t.Fatalf("DecodeCB58(%q) = %x, which encodes as %q", s, b, got)
		}
		if id, err := FromString(s); err == nil && id.String() != s {
			t.Fatalf("FromString(%q).String() = %q", s, id.String())
		}
	})
}

// FuzzHexWithChecksum: decoding never panics, and what decodes encodes
// back to the same text, up to the case of its hex digits.
func FuzzHexWithChecksum(f *testing.F) {
	for _, b := range [][]byte{nil, {0}, []byte("chainhost"), bytes.Repeat([]byte{0xab}, 100)} {
		f.Add(HexWithChecksum(b))
	}
	f.Add("0x")
	f.Add("0xzz")
	f.Add("0x00000000")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeHexWithChecksum(s)
		if err != nil {
			return
		}
		if got := HexWithChecksum(b); !bytes.EqualFold([]byte(got), []byte(s)) {
			t.Fatalf("DecodeHexWithChecksum(%q) = %x, which encodes as %q", s, b, got)
		}
	})
}
