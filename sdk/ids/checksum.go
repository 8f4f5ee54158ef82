package ids

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
)

// checksumLen is the length of the checksum appended by both encodings.
const checksumLen = 4

// ErrInvalidChecksum reports text whose checksum does not match its bytes.
var ErrInvalidChecksum = errors.New("invalid checksum")

// withChecksum returns b followed by the last four bytes of sha256(b).
func withChecksum(b []byte) []byte {
	sum := sha256.Sum256(b)
	out := make([]byte, 0, len(b)+checksumLen)
	out = append(out, b...)
	return append(out, sum[len(sum)-checksumLen:]...)
}

// splitChecksum checks the trailing checksum of raw and returns the bytes
// before it.
func splitChecksum(raw []byte) ([]byte, error) {
	if len(raw) < checksumLen {
		return nil, errors.New("too short to hold a checksum")
	}
	payload, got := raw[:len(raw)-checksumLen], raw[len(raw)-checksumLen:]
	sum := sha256.Sum256(payload)
	if subtle.ConstantTimeCompare(got, sum[len(sum)-checksumLen:]) != 1 {
		return nil, ErrInvalidChecksum
	}
	return payload, nil
}
