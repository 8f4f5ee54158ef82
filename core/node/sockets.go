package node

import (
	"fmt"
	"os"
	"path/filepath"
)

// maxSocketDir is the longest socket directory used: a unix socket's path
// is at most 107 bytes on Linux, and a plugin's socket name takes 28
// (core/pluginhost).
const maxSocketDir = 107 - 29

// socketDir makes <data-dir>/sockets afresh, readable by the host's user
// only, for the plugins' data sockets (docs/decisions.md, "Packages"):
// what a killed run left there goes. A data directory whose path is too
// long for socket paths gets none, and requests to plugins stay on gRPC.
func socketDir(dataDir string) (string, error) {
	dir, err := filepath.Abs(filepath.Join(dataDir, "sockets"))
	if err != nil {
		return "", fmt.Errorf("data sockets: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("data sockets: %w", err)
	}
	if len(dir) > maxSocketDir {
		return "", nil
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("data sockets: %w", err)
	}
	return dir, nil
}
