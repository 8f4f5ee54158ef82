package ids

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// HexWithChecksum returns "0x" followed by the hex of b and its 4-byte
// checksum: the encoding of the index API's `bytes` field.
func HexWithChecksum(b []byte) string {
	return "0x" + hex.EncodeToString(withChecksum(b))
}

// DecodeHexWithChecksum returns the bytes that s, written by
// HexWithChecksum, encodes, after checking its checksum. Hex digits may be
// in either case; the "0x" prefix is required.
func DecodeHexWithChecksum(s string) ([]byte, error) {
	digits, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return nil, errors.New(`decode hex: missing "0x" prefix`)
	}
	raw, err := hex.DecodeString(digits)
	if err != nil {
		return nil, fmt.Errorf("decode hex: %w", err)
	}
	b, err := splitChecksum(raw)
	if err != nil {
		return nil, fmt.Errorf("decode hex: %w", err)
	}
	return b, nil
}
