package avax

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/chainhost/chainhost/sdk/ids"
)

// NodeIDLen is the length of a node ID.
const NodeIDLen = 20

// nodeIDPrefix starts a node ID's text.
const nodeIDPrefix = "NodeID-"

// NodeID names a node: 20 bytes, written "NodeID-<cb58>".
type NodeID [NodeIDLen]byte

// String returns "NodeID-<cb58>".
func (n NodeID) String() string { return nodeIDPrefix + ids.EncodeCB58(n[:]) }

// IsZero reports whether every byte is 0.
func (n NodeID) IsZero() bool { return n == NodeID{} }

// Compare orders node IDs by their bytes.
func (n NodeID) Compare(o NodeID) int { return bytes.Compare(n[:], o[:]) }

// Bytes returns the node ID's 20 bytes.
func (n NodeID) Bytes() []byte { return append([]byte{}, n[:]...) }

// MarshalText writes the "NodeID-" form.
func (n NodeID) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalText reads the "NodeID-" form.
func (n *NodeID) UnmarshalText(b []byte) error {
	v, err := ParseNodeID(string(b))
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// ParseNodeID reads "NodeID-<cb58>".
func ParseNodeID(s string) (NodeID, error) {
	rest, ok := strings.CutPrefix(s, nodeIDPrefix)
	if !ok {
		return NodeID{}, fmt.Errorf("node ID %q does not start with %q", s, nodeIDPrefix)
	}
	b, err := ids.DecodeCB58(rest)
	if err != nil {
		return NodeID{}, fmt.Errorf("node ID %q: %w", s, err)
	}
	return NodeIDFromBytes(b)
}

// NodeIDFromBytes returns the node ID of 20 bytes.
func NodeIDFromBytes(b []byte) (NodeID, error) {
	if len(b) != NodeIDLen {
		return NodeID{}, fmt.Errorf("node ID of %d bytes, want %d", len(b), NodeIDLen)
	}
	return NodeID(b), nil
}
