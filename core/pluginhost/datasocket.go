package pluginhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/chainhost/chainhost/transport/host/unixpool"
)

// dataSocket is an instance's data socket (docs/decisions.md, "Packages",
// transport/httpunix): bound by the host in Options.SocketDir for the instance's
// whole life and passed to each of its processes, so that the host's
// requests reach the plugin outside gRPC.
type dataSocket struct {
	path string
	ln   *net.UnixListener
	file *os.File // the process's inherited copy
}

// bindDataSocket binds the instance's socket in dir, named after its kind
// and name (hashed: a socket path is at most 107 bytes on Linux). A file
// left there by an earlier run is replaced.
func bindDataSocket(dir, kind, name string) (*dataSocket, error) {
	sum := sha256.Sum256([]byte(kind + "/" + name))
	path := filepath.Join(dir, kind+"-"+hex.EncodeToString(sum[:6])+".sock")
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("data socket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("data socket: %w", err)
	}
	f, err := ln.File()
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("data socket %s: %w", path, err)
	}
	return &dataSocket{path: path, ln: ln, file: f}, nil
}

// pool returns a new pool of connections to the socket, for one process.
func (s *dataSocket) pool() *unixpool.Pool { return unixpool.NewPool(s.path) }

// close closes the socket and removes its file.
func (s *dataSocket) close() {
	_ = s.file.Close()
	_ = s.ln.Close() // unlinks the path
}
