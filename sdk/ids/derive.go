package ids

import (
	"crypto/sha256"
	"encoding/binary"
)

// Derive returns the sha256 of the parts, each written as its length (8
// bytes, big-endian) followed by its bytes. It makes deterministic IDs, such
// as a chain's ID from its genesis.
func Derive(parts ...[]byte) ID {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var id ID
	h.Sum(id[:0])
	return id
}
