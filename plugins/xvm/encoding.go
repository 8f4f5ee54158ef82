package xvm

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// The encodings of bytes in the API, as avalanchego names them: hex is
// "0x", the hex digits and a 4-byte checksum (the last 4 bytes of the
// SHA-256); hexc is the same; hexnc has no checksum; json (getTx,
// getBlock) is the decoded value.
const (
	encHex   = "hex"
	encHexC  = "hexc"
	encHexNC = "hexnc"
	encJSON  = "json"
)

// parseEncoding reads the encoding param: empty means hex; json only where
// allowJSON.
func parseEncoding(s string, allowJSON bool) (string, error) {
	switch e := strings.ToLower(s); e {
	case "":
		return encHex, nil
	case encHex, encHexC, encHexNC:
		return e, nil
	case encJSON:
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

// encodeBytes writes b in a hex encoding.
func encodeBytes(enc string, b []byte) string {
	if enc == encHexNC {
		return "0x" + hex.EncodeToString(b)
	}
	return ids.HexWithChecksum(b)
}

// decodeBytes reads s in a hex encoding.
func decodeBytes(enc, s string) ([]byte, error) {
	if enc == encHexNC {
		return jsonrpcHex(s)
	}
	return ids.DecodeHexWithChecksum(s)
}

// jsonrpcHex reads "0x" and hex digits.
func jsonrpcHex(s string) ([]byte, error) {
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
