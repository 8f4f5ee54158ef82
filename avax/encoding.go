package avax

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// The encodings of bytes in the chains' APIs, as avalanchego names them:
// hex is "0x", the hex digits and a 4-byte checksum (the last 4 bytes of
// the SHA-256); hexc is the same; hexnc has no checksum; json (where a
// method allows it) is the decoded value.
const (
	EncHex   = "hex"
	encHexC  = "hexc"
	encHexNC = "hexnc"
	EncJSON  = "json"
)

// ParseEncoding reads an encoding param: empty means hex; json only where
// allowJSON. A bad value is an invalid-params error naming "encoding".
func ParseEncoding(s string, allowJSON bool) (string, error) {
	switch e := strings.ToLower(s); e {
	case "":
		return EncHex, nil
	case EncHex, encHexC, encHexNC:
		return e, nil
	case EncJSON:
		if allowJSON {
			return e, nil
		}
	}
	want := "hex, hexc or hexnc"
	if allowJSON {
		want = "hex, hexc, hexnc or json"
	}
	return "", jsonrpc.InvalidParams(`"encoding" must be %s, got %q`, want, s)
}

// EncodeBytes writes b in a hex encoding.
func EncodeBytes(enc string, b []byte) string {
	if enc == encHexNC {
		return "0x" + hex.EncodeToString(b)
	}
	return ids.HexWithChecksum(b)
}

// DecodeBytes reads s in a hex encoding.
func DecodeBytes(enc, s string) ([]byte, error) {
	if enc == encHexNC {
		return DecodePrefixedHex(s)
	}
	return ids.DecodeHexWithChecksum(s)
}

// DecodePrefixedHex reads "0x" and hex digits.
func DecodePrefixedHex(s string) ([]byte, error) {
	digits, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return nil, fmt.Errorf(`missing "0x" prefix`)
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return nil, fmt.Errorf("hex: %w", err)
	}
	return b, nil
}
