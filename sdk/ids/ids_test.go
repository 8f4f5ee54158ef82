package ids

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// seq returns the bytes 1, 2, ..., n.
func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i + 1)
	}
	return b
}

// Vectors from avalanchego's formatting and ids tests and its well-known VM IDs.
var cb58Vectors = []struct {
	name string
	in   []byte
	want string
}{
	{"empty", []byte{}, "45PJLL"},
	{"one zero byte", []byte{0}, "1c7hwa"},
	{"eleven bytes", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255}, "1NVSVezva3bAtJesnUj"},
	{"bytes 1..32", seq(32), "SkB92YpWm4Q2ijQHH34cqbKkCZWszsiQgHVjtNeFF2HdvDQU"},
	{"Hello world", []byte("Hello world"), "32UWxgjUJd9s6Kyvxjj1u"},
	{"Ava Labs", []byte("Ava Labs"), "2Eef9JnJ3Lz2c5op9"},
}

func TestCB58(t *testing.T) {
	for _, tc := range cb58Vectors {
		t.Run(tc.name, func(t *testing.T) {
			if got := EncodeCB58(tc.in); got != tc.want {
				t.Fatalf("EncodeCB58 = %q, want %q", got, tc.want)
			}
			got, err := DecodeCB58(tc.want)
			if err != nil {
				t.Fatalf("DecodeCB58: %v", err)
			}
			if !bytes.Equal(got, tc.in) {
				t.Fatalf("DecodeCB58 = %x, want %x", got, tc.in)
			}
		})
	}
}

func TestDecodeCB58Errors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "empty string"},
		{"not base58", "0OIl", "invalid base58 digit"},
		{"too short for checksum", "111", "too short to hold a checksum"},
		{"checksum off by one char", "1NVSVezva3bAtJesnUk", "invalid checksum"},
		{"over the limit", strings.Repeat("2", MaxCB58Len+1), "exceed the limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeCB58(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("DecodeCB58(%.20q) error = %v, want containing %q", tc.in, err, tc.wantErr)
			}
		})
	}
	if _, err := DecodeCB58("1NVSVezva3bAtJesnUk"); !errors.Is(err, ErrInvalidChecksum) {
		t.Fatalf("error %v is not ErrInvalidChecksum", err)
	}
}

func TestHexWithChecksum(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", []byte{}, "0x7852b855"},
		{"one zero byte", []byte{0}, "0x0017afa01d"},
		{"eleven bytes", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255}, "0x00010203040506070809ff4482539c"},
		{"bytes 1..32", seq(32), "0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20b7a612c9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HexWithChecksum(tc.in); got != tc.want {
				t.Fatalf("HexWithChecksum = %q, want %q", got, tc.want)
			}
			for _, text := range []string{tc.want, "0x" + strings.ToUpper(tc.want[2:])} {
				got, err := DecodeHexWithChecksum(text)
				if err != nil {
					t.Fatalf("DecodeHexWithChecksum(%q): %v", text, err)
				}
				if !bytes.Equal(got, tc.in) {
					t.Fatalf("DecodeHexWithChecksum(%q) = %x, want %x", text, got, tc.in)
				}
			}
		})
	}
}

func TestDecodeHexWithChecksumErrors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"no prefix", "0017afa01d", `missing "0x" prefix`},
		{"upper-case prefix", "0X0017afa01d", `missing "0x" prefix`},
		{"odd length", "0x0017afa01", "odd length"},
		{"not hex", "0x0017afa0zz", "invalid byte"},
		{"too short", "0x7852b8", "too short to hold a checksum"},
		{"bad checksum", "0x0017afa01e", "invalid checksum"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeHexWithChecksum(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("DecodeHexWithChecksum(%q) error = %v, want containing %q", tc.in, err, tc.wantErr)
			}
		})
	}
}

func TestIDString(t *testing.T) {
	tests := []struct {
		name string
		id   ID
		want string
	}{
		{"empty", ID{}, "11111111111111111111111111111111LpoYY"},
		{"bytes 1..32", ID(seq(32)), "SkB92YpWm4Q2ijQHH34cqbKkCZWszsiQgHVjtNeFF2HdvDQU"},
		{"first byte 24", ID{24}, "Ba3mm8Ra8JYYebeZ9p7zw1ayorDbeD1euwxhgzSLsncKqGoNt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.id.String(); got != tc.want {
				t.Fatalf("String = %q, want %q", got, tc.want)
			}
			got, err := FromString(tc.want)
			if err != nil {
				t.Fatalf("FromString: %v", err)
			}
			if got != tc.id {
				t.Fatalf("FromString = %x, want %x", got, tc.id)
			}
		})
	}
}

func TestFromStringErrors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "empty string"},
		{"bad checksum", "11111111111111111111111111111111LpoYZ", "invalid checksum"},
		{"short payload", "1NVSVezva3bAtJesnUj", "want 32 bytes, got 11"},
		{"long payload", EncodeCB58(make([]byte, 33)), "want 32 bytes, got 33"},
		{"too long to decode", strings.Repeat("2", 51), "51 characters, want at most 50"},
		{"not base58", "0xabc", "invalid base58 digit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromString(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("FromString(%q) error = %v, want containing %q", tc.in, err, tc.wantErr)
			}
		})
	}
}

func TestFromName(t *testing.T) {
	tests := []struct {
		name, vm, want, wantErr string
	}{
		{name: "evm", vm: "evm", want: "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6"},
		{name: "avm", vm: "avm", want: "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq"},
		{name: "platformvm", vm: "platformvm", want: "rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT"},
		{name: "subnetevm", vm: "subnetevm", want: "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"},
		{name: "exactly 32 bytes", vm: strings.Repeat("a", 32), want: ID([]byte(strings.Repeat("a", 32))).String()},
		{name: "33 bytes", vm: strings.Repeat("a", 33), wantErr: "is 33 bytes, want at most 32"},
		{name: "empty", vm: "", wantErr: "VM name is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, err := FromName(tc.vm)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("FromName(%q) error = %v, want containing %q", tc.vm, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromName(%q): %v", tc.vm, err)
			}
			if got := id.String(); got != tc.want {
				t.Fatalf("FromName(%q) = %q, want %q", tc.vm, got, tc.want)
			}
		})
	}
}

func TestIDJSON(t *testing.T) {
	type wrapper struct {
		ID ID `json:"id"`
	}
	evm, err := FromName("evm")
	if err != nil {
		t.Fatal(err)
	}
	const text = `{"id":"mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6"}`
	got, err := json.Marshal(wrapper{evm})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != text {
		t.Fatalf("Marshal = %s, want %s", got, text)
	}
	var w wrapper
	if err := json.Unmarshal([]byte(text), &w); err != nil {
		t.Fatal(err)
	}
	if w.ID != evm {
		t.Fatalf("Unmarshal = %v, want %v", w.ID, evm)
	}
	err = json.Unmarshal([]byte(`{"id":"11111111111111111111111111111111LpoYZ"}`), &w)
	if !errors.Is(err, ErrInvalidChecksum) {
		t.Fatalf("Unmarshal of a bad checksum: error %v, want ErrInvalidChecksum", err)
	}
}

func TestIsZeroAndCompare(t *testing.T) {
	tests := []struct {
		name     string
		a, b     ID
		zero     bool
		wantComp int
	}{
		{"both empty", ID{}, ID{}, true, 0},
		{"empty before one", ID{}, ID{31: 1}, true, -1},
		{"high byte wins", ID{1}, ID{0, 0xff}, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.IsZero(); got != tc.zero {
				t.Fatalf("IsZero = %v, want %v", got, tc.zero)
			}
			if got := tc.a.Compare(tc.b); got != tc.wantComp {
				t.Fatalf("Compare = %d, want %d", got, tc.wantComp)
			}
		})
	}
}

func TestFromBytes(t *testing.T) {
	if _, err := FromBytes(make([]byte, 31)); err == nil || err.Error() != "want 32 bytes, got 31" {
		t.Fatalf("FromBytes(31 bytes) error = %v", err)
	}
	id, err := FromBytes(seq(32))
	if err != nil || !bytes.Equal(id[:], seq(32)) {
		t.Fatalf("FromBytes(1..32) = %x, %v", id, err)
	}
}

func TestDerive(t *testing.T) {
	// Expected digests computed outside Go: sha256 over 8-byte big-endian
	// lengths followed by the bytes (printf ... | sha256sum).
	tests := []struct {
		name  string
		parts [][]byte
		want  string
	}{
		{"no parts", nil, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"one part", [][]byte{[]byte("genesis")}, "7f246fe07623feea3523245aa3fdc82d484a22fe6b1d8568fd8225412c6aa519"},
		{"two parts", [][]byte{[]byte("a"), []byte("bc")}, "3fafa1cf2f19a7c1129beb20cf0983f73a489a221fc0dd2f16d1be292d089205"},
		{"one empty part", [][]byte{{}}, "af5570f5a1810b7af78caf4bc70a660f0df51e42baf91d4de5b2328de0e83dfc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := Derive(tc.parts...)
			if got := hex.EncodeToString(id[:]); got != tc.want {
				t.Fatalf("Derive = %s, want %s", got, tc.want)
			}
		})
	}
	if Derive([]byte("a"), []byte("bc")) == Derive([]byte("ab"), []byte("c")) {
		t.Fatal("Derive does not separate parts")
	}
}
