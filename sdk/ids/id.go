package ids

import (
	"bytes"
	"fmt"
)

// Len is the length of an ID in bytes.
const Len = 32

// maxIDTextLen is the longest CB58 text of Len bytes plus checksum.
const maxIDTextLen = 50

// ID identifies a chain, container, transaction or VM. Its text form is CB58;
// the zero ID is the empty ID.
type ID [Len]byte

// String returns the CB58 text of id.
func (id ID) String() string {
	return EncodeCB58(id[:])
}

// IsZero reports whether id is the empty (all-zero) ID.
func (id ID) IsZero() bool {
	return id == ID{}
}

// Compare returns -1, 0 or +1 as id sorts before, equal to or after other.
func (id ID) Compare(other ID) int {
	return bytes.Compare(id[:], other[:])
}

// MarshalText returns the CB58 text of id, so IDs are JSON strings.
func (id ID) MarshalText() ([]byte, error) {
	return []byte(id.String()), nil
}

// UnmarshalText sets id from CB58 text.
func (id *ID) UnmarshalText(text []byte) error {
	parsed, err := FromString(string(text))
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

// FromString parses the CB58 text of an ID, checking its checksum and length.
func FromString(s string) (ID, error) {
	if len(s) > maxIDTextLen {
		return ID{}, fmt.Errorf("parse ID: %d characters, want at most %d", len(s), maxIDTextLen)
	}
	b, err := DecodeCB58(s)
	if err != nil {
		return ID{}, fmt.Errorf("parse ID %q: %w", s, err)
	}
	id, err := FromBytes(b)
	if err != nil {
		return ID{}, fmt.Errorf("parse ID %q: %w", s, err)
	}
	return id, nil
}

// FromBytes returns the ID made of b, which must be exactly Len bytes.
func FromBytes(b []byte) (ID, error) {
	if len(b) != Len {
		return ID{}, fmt.Errorf("want %d bytes, got %d", Len, len(b))
	}
	return ID(b), nil
}
