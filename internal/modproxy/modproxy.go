// Package modproxy writes a Go module proxy into a directory
// (GOPROXY=file://<dir>) that serves one version of a module from files on
// disk. The tests build plugins against the SDK through it, the way an
// author outside the repository gets it from the public proxy
// (docs/plugin-sdk.md).
package modproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// Publish writes version of the module rooted at root into the proxy
// directory dir, from files (slash-separated paths relative to root, go.mod
// among them), and adds it to the module's version list.
func Publish(dir, root, version string, files []string) (module.Version, error) {
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return module.Version{}, fmt.Errorf("read module: %w", err)
	}
	mv := module.Version{Path: modfile.ModulePath(gomod), Version: version}
	if mv.Path == "" {
		return mv, fmt.Errorf("%s/go.mod names no module", root)
	}
	if err := module.Check(mv.Path, mv.Version); err != nil {
		return mv, err
	}
	escaped, err := module.EscapePath(mv.Path)
	if err != nil {
		return mv, err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return mv, err
	}
	zf := make([]zip.File, 0, len(files))
	for _, f := range files {
		zf = append(zf, diskFile{root: root, path: f})
	}
	var buf bytes.Buffer
	if err := zip.Create(&buf, mv, zf); err != nil {
		return mv, fmt.Errorf("zip %s: %w", mv, err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return mv, err
	}
	for ext, data := range map[string][]byte{".zip": buf.Bytes(), ".mod": gomod, ".info": info} {
		if err := os.WriteFile(filepath.Join(vdir, version+ext), data, 0o644); err != nil {
			return mv, err
		}
	}
	return mv, addToList(filepath.Join(vdir, "list"), version)
}

func addToList(file, version string) error {
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	versions := strings.Fields(string(data))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	return os.WriteFile(file, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}

// ModuleFiles lists the files a release of the module rooted at root
// holds: those git tracks or would track, under dirs (all when none are
// given), without the go.mod-rooted trees of nested modules. go.mod, go.sum
// and LICENSE are always in.
func ModuleFiles(root string, dirs ...string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list the files of %s: %w", root, err)
	}
	all := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var nested []string
	for _, f := range all {
		if path.Base(f) == "go.mod" && f != "go.mod" {
			nested = append(nested, path.Dir(f)+"/")
		}
	}
	var files []string
	for _, f := range all {
		if f == "" || slices.ContainsFunc(nested, func(n string) bool { return strings.HasPrefix(f, n) }) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, f)); err != nil {
			continue // deleted in the work tree
		}
		if len(dirs) == 0 || f == "go.mod" || f == "go.sum" || f == "LICENSE" ||
			slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(f, strings.TrimSuffix(d, "/")+"/") }) {
			files = append(files, f)
		}
	}
	return files, nil
}

// diskFile is a file of the module for zip.Create.
type diskFile struct{ root, path string }

func (f diskFile) Path() string { return f.path }

func (f diskFile) Lstat() (os.FileInfo, error) {
	return os.Lstat(filepath.Join(f.root, filepath.FromSlash(f.path)))
}

func (f diskFile) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.root, filepath.FromSlash(f.path)))
}
