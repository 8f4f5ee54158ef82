// Package scaffold writes the source of a new plugin, a VM or a REST
// module, in a Go module of its own that builds against the SDK as a
// dependency: what `chainhost new-plugin` does (docs/plugin-sdk.md).
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"text/template"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// SDKModule is the module a plugin requires for the SDK.
const SDKModule = "github.com/chainhost/chainhost"

// Kinds of plugin a template exists for.
const (
	KindVM     = "vm"
	KindModule = "module"
)

//go:embed template
var templates embed.FS

// Options says what to write.
type Options struct {
	// Kind is KindVM or KindModule.
	Kind string
	// Dir is where the plugin's module goes; it must not exist or be empty.
	Dir string
	// Name is the VM or module name; the base of Dir when empty.
	Name string
	// ModulePath is the new module's path; example.com/<name> when empty.
	ModulePath string
	// SDKVersion is the version of SDKModule to require, a release.
	SDKVersion string
	// SDKDir, when set, is a chainhost checkout to build against instead of
	// a release: go.mod replaces SDKModule by it.
	SDKDir string
}

// namePattern is what a plugin name may be: a VM's ID is its name padded
// to 32 bytes, and the name is a chain config's `vm` and a URL segment.
var namePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// data is what the templates see.
type data struct {
	Name   string
	Prefix string
}

// Write writes the plugin's files and returns their paths.
func Write(opts Options) ([]string, error) {
	if opts.Kind != KindVM && opts.Kind != KindModule {
		return nil, fmt.Errorf("plugin kind %q: want %s or %s", opts.Kind, KindVM, KindModule)
	}
	if opts.Dir == "" {
		return nil, errors.New("no directory given")
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(filepath.Clean(opts.Dir))
	}
	if !namePattern.MatchString(opts.Name) {
		return nil, fmt.Errorf("plugin name %q: use 1 to 32 lowercase letters, digits and dashes, starting with a letter (give --name)", opts.Name)
	}
	if opts.ModulePath == "" {
		opts.ModulePath = "example.com/" + opts.Name
	}
	if err := module.CheckPath(opts.ModulePath); err != nil {
		return nil, fmt.Errorf("module path: %w", err)
	}
	gomod, err := goMod(opts)
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(opts.Dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty", opts.Dir)
	}
	files := map[string][]byte{"go.mod": gomod}
	d := data{Name: opts.Name, Prefix: "/v1/" + opts.Name}
	root := path.Join("template", opts.Kind)
	err = fs.WalkDir(templates, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		// Go code has "{{" (a slice of struct literals), never "[[".
		t, err := template.New(path.Base(p)).Delims("[[", "]]").ParseFS(templates, p)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, d); err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		files[strings.TrimSuffix(path.Base(p), ".tmpl")] = buf.Bytes()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for name, content := range files {
		p := filepath.Join(opts.Dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// goMod is the new module's go.mod: it requires the SDK's release, or a
// checkout of it in place of one.
func goMod(opts Options) ([]byte, error) {
	f := new(modfile.File)
	if err := f.AddModuleStmt(opts.ModulePath); err != nil {
		return nil, err
	}
	if err := f.AddGoStmt(strings.TrimPrefix(runtime.Version(), "go")); err != nil {
		return nil, fmt.Errorf("go version %s: %w", runtime.Version(), err)
	}
	switch {
	case opts.SDKDir != "":
		dir, err := filepath.Abs(opts.SDKDir)
		if err != nil {
			return nil, err
		}
		if gm, err := os.ReadFile(filepath.Join(dir, "go.mod")); err != nil || modfile.ModulePath(gm) != SDKModule {
			return nil, fmt.Errorf("--sdk-dir %s is not a checkout of %s", opts.SDKDir, SDKModule)
		}
		// The version a replaced requirement conventionally carries.
		if err := f.AddRequire(SDKModule, "v0.0.0-00010101000000-000000000000"); err != nil {
			return nil, err
		}
		if err := f.AddReplace(SDKModule, "", dir, ""); err != nil {
			return nil, err
		}
	case module.Check(SDKModule, opts.SDKVersion) == nil:
		if err := f.AddRequire(SDKModule, opts.SDKVersion); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("SDK version %q is not a version of %s (vX.Y.Z)", opts.SDKVersion, SDKModule)
	}
	return f.Format()
}

// IsRelease reports whether version is a release of the SDK, vX.Y.Z, which
// a build of that release reports as its version.
func IsRelease(version string) bool {
	return semver.IsValid(version) && semver.Canonical(version) == version && semver.Prerelease(version) == ""
}
