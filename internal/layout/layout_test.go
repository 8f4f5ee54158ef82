// Package layout holds no code: its test checks the arrows between the
// repository's folders that docs/decisions.md ("Layout") states, so that a
// change which breaks one fails make lint instead of being found by a
// reader later.
package layout

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// module is the repository's module path.
const module = "github.com/chainhost/chainhost/"

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Imports    []string // direct, non-test
	Deps       []string // transitive, non-test
}

// listPackages returns every package of the module, by path relative to the
// repository root.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		p.ImportPath = strings.TrimPrefix(p.ImportPath, module)
		p.Imports = local(p.Imports)
		p.Deps = local(p.Deps)
		pkgs[p.ImportPath] = p
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no package")
	}
	return pkgs
}

// local keeps the module's own packages of paths, relative to the root.
func local(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rel, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rel)
		}
	}
	return out
}

// under reports whether path is folder or a package below it.
func under(path, folder string) bool {
	return path == folder || strings.HasPrefix(path, folder+"/")
}

// plugin returns the plugin a package under plugins/ belongs to
// ("plugins/evm" for plugins/evm/atomic), or "" outside plugins/.
func plugin(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) < 2 || parts[0] != "plugins" {
		return ""
	}
	return parts[0] + "/" + parts[1]
}

// TestPluginsStayApart: a shipped plugin imports only its own packages, the
// SDK, the Avalanche library and the shared internals, never another
// plugin's, so that a module never reaches into a VM.
func TestPluginsStayApart(t *testing.T) {
	for path, p := range listPackages(t) {
		own := plugin(path)
		if own == "" {
			continue
		}
		for _, imp := range p.Imports {
			if other := plugin(imp); other != "" && other != own {
				t.Errorf("%s imports %s: a plugin imports no package of another plugin (docs/decisions.md, Layout)", path, imp)
			}
		}
	}
}

// TestArrows: the folders import each other in one direction only
// (docs/decisions.md, Layout).
func TestArrows(t *testing.T) {
	// forbidden lists, per folder, the folders its packages never import.
	forbidden := map[string][]string{
		"core":      {"cmd", "plugins"},
		"sdk":       {"cmd", "core", "plugins", "avax"},
		"transport": {"cmd", "core", "plugins", "avax"},
		"avax":      {"cmd", "core", "plugins", "transport"},
		"proto":     {"cmd", "core", "plugins", "avax", "sdk", "transport"},
	}
	for path, p := range listPackages(t) {
		for folder, never := range forbidden {
			if !under(path, folder) {
				continue
			}
			for _, imp := range p.Imports {
				for _, n := range never {
					if under(imp, n) {
						t.Errorf("%s imports %s: %s/ never imports %s/ (docs/decisions.md, Layout)", path, imp, folder, n)
					}
				}
			}
		}
	}
}

// TestSDKWithoutHostTransports: what a plugin author imports never links
// the host's side of the transports (transport/host/...), which only the
// host runs (docs/decisions.md, Layout).
func TestSDKWithoutHostTransports(t *testing.T) {
	for path, p := range listPackages(t) {
		if !under(path, "sdk") {
			continue
		}
		for _, dep := range p.Deps {
			if under(dep, "transport/host") {
				t.Errorf("%s depends on %s: no package under sdk/ pulls in the host's transports", path, dep)
			}
		}
	}
}
