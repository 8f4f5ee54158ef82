package ids

import (
	"errors"
	"fmt"

	"github.com/mr-tron/base58"
)

// MaxCB58Len is the longest CB58 string DecodeCB58 accepts, in characters.
// Base58 decoding costs time quadratic in the length, so untrusted input is
// capped; 24 KiB of text holds more than avalanchego's 16 KiB CB58 limit.
const MaxCB58Len = 24 * 1024

// EncodeCB58 returns the CB58 text of b: base58 of b and its 4-byte checksum.
func EncodeCB58(b []byte) string {
	return base58.Encode(withChecksum(b))
}

// DecodeCB58 returns the bytes that the CB58 text s encodes, after checking
// its checksum.
func DecodeCB58(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("decode cb58: empty string")
	}
	if len(s) > MaxCB58Len {
		return nil, fmt.Errorf("decode cb58: %d characters exceed the limit of %d", len(s), MaxCB58Len)
	}
	raw, err := base58.Decode(s)
	if err != nil {
		return nil, fmt.Errorf("decode cb58: %w", err)
	}
	b, err := splitChecksum(raw)
	if err != nil {
		return nil, fmt.Errorf("decode cb58: %w", err)
	}
	return b, nil
}
