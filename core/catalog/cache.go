package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// store copies the binary at path into the cache, named by the sha256 of
// the bytes it copied: a copy, not a link, so that a later `cp` over the
// file (which rewrites the same inode) leaves what the host runs alone. A
// copy that exists already is kept: its name says its bytes.
func (c *Catalog) store(path string) (Binary, error) {
	if err := os.MkdirAll(c.cache, 0o700); err != nil {
		return Binary{}, fmt.Errorf("plugin cache: %w", err)
	}
	src, err := os.Open(path)
	if err != nil {
		return Binary{}, err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(c.cache, ".copy-*")
	if err != nil {
		return Binary{}, fmt.Errorf("plugin cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o700)
	}
	if err != nil {
		return Binary{}, fmt.Errorf("copy %s into the plugin cache: %w", filepath.Base(path), err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	exec := filepath.Join(c.cache, sum)
	if _, err := os.Stat(exec); err != nil {
		if err := os.Rename(tmp.Name(), exec); err != nil {
			return Binary{}, fmt.Errorf("copy %s into the plugin cache: %w", filepath.Base(path), err)
		}
	}
	return Binary{Path: path, SHA256: sum, Exec: exec}, nil
}

// fileSHA256 is the hex sha256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", filepath.Base(path), err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
