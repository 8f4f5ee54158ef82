package ids

import (
	"errors"
	"fmt"
)

// FromName returns the VM ID for a VM name the way avalanchego makes it: the
// name's bytes right-padded with zeros to Len bytes.
func FromName(name string) (ID, error) {
	if name == "" {
		return ID{}, errors.New("VM name is empty")
	}
	if len(name) > Len {
		return ID{}, fmt.Errorf("VM name %q is %d bytes, want at most %d", name, len(name), Len)
	}
	var id ID
	copy(id[:], name)
	return id, nil
}
