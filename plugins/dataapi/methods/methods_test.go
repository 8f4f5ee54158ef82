package methods

import (
	"encoding/binary"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestTable: every selector is the first four bytes of the Keccak-256 of
// its signature.
func TestTable(t *testing.T) {
	for sel, sig := range table {
		if got := binary.BigEndian.Uint32(crypto.Keccak256([]byte(sig))[:4]); got != sel {
			t.Errorf("%s: selector %#08x, its hash gives %#08x", sig, sel, got)
		}
	}
}

func TestName(t *testing.T) {
	for _, tc := range []struct {
		input []byte
		want  string
		ok    bool
	}{
		{[]byte{0xa9, 0x05, 0x9c, 0xbb, 1, 2}, "transfer(address,uint256)", true},
		{[]byte{0xd0, 0xe3, 0x0d, 0xb0}, "deposit()", true},
		{[]byte{0xde, 0xad, 0xbe, 0xef}, "", false},
		{[]byte{0xa9, 0x05, 0x9c}, "", false},
		{nil, "", false},
	} {
		if got, ok := Name(tc.input); got != tc.want || ok != tc.ok {
			t.Errorf("Name(%x) = %q, %v; want %q, %v", tc.input, got, ok, tc.want, tc.ok)
		}
	}
}
