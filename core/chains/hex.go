package chains

import (
	"encoding/hex"
	"fmt"
)

func decodeHex(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%q is not a sha256 (64 hex digits)", s)
	}
	return b, nil
}
