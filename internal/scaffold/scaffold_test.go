package scaffold

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestWrite: each kind writes a module that requires the SDK at the
// version asked, or replaces it by a checkout. Building and testing what
// it writes is tests/e2e's TestPluginAuthorPath.
func TestWrite(t *testing.T) {
	for _, kind := range []string{KindVM, KindModule} {
		dir := filepath.Join(t.TempDir(), "my-"+kind)
		files, err := Write(Options{Kind: kind, Dir: dir, SDKVersion: "v1.2.3"})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if len(files) < 4 {
			t.Errorf("%s: wrote %v", kind, files)
		}
		f := parseGoMod(t, dir)
		if f.Module.Mod.Path != "example.com/my-"+kind || len(f.Require) != 1 || f.Require[0].Mod.String() != SDKModule+"@v1.2.3" {
			t.Errorf("%s: go.mod module %s requires %v", kind, f.Module.Mod.Path, f.Require)
		}
		main, err := os.ReadFile(filepath.Join(dir, "main.go"))
		if err != nil || !strings.Contains(string(main), `Name: "my-`+kind+`"`) {
			t.Errorf("%s: main.go does not name the plugin my-%s: %v\n%s", kind, kind, err, main)
		}
	}

	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "vm")
	if _, err := Write(Options{Kind: KindVM, Dir: dir, Name: "counter", ModulePath: "github.com/me/counter", SDKDir: repo}); err != nil {
		t.Fatal(err)
	}
	f := parseGoMod(t, dir)
	if f.Module.Mod.Path != "github.com/me/counter" || len(f.Replace) != 1 || f.Replace[0].New.Path != repo {
		t.Errorf("go.mod with --sdk-dir: module %s, replace %v", f.Module.Mod.Path, f.Replace)
	}
}

func parseGoMod(t *testing.T, dir string) *modfile.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestWriteRefuses: bad input gets an error that says what to change, and
// writes nothing.
func TestWriteRefuses(t *testing.T) {
	taken := t.TempDir()
	if err := os.WriteFile(filepath.Join(taken, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"kind", Options{Kind: "chain", Dir: "x", SDKVersion: "v1.0.0"}, `plugin kind "chain"`},
		{"no dir", Options{Kind: KindVM, SDKVersion: "v1.0.0"}, "no directory"},
		{"name", Options{Kind: KindVM, Dir: "My_VM", SDKVersion: "v1.0.0"}, `plugin name "My_VM"`},
		{"long name", Options{Kind: KindVM, Dir: "x", Name: strings.Repeat("a", 33), SDKVersion: "v1.0.0"}, "1 to 32"},
		{"module path", Options{Kind: KindVM, Dir: "x", ModulePath: "a b", SDKVersion: "v1.0.0"}, "module path"},
		{"no version", Options{Kind: KindVM, Dir: "x"}, `SDK version ""`},
		{"bad version", Options{Kind: KindVM, Dir: "x", SDKVersion: "1.0"}, `SDK version "1.0"`},
		{"sdk dir", Options{Kind: KindVM, Dir: "x", SDKDir: taken}, "is not a checkout"},
		{"dir not empty", Options{Kind: KindVM, Dir: taken, Name: "x", SDKVersion: "v1.0.0"}, "is not empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.opts.Dir != "" && c.opts.Dir != taken {
				c.opts.Dir = filepath.Join(t.TempDir(), c.opts.Dir)
			}
			_, err := Write(c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Write = %v, want an error with %q", err, c.want)
			}
			if c.opts.Dir != taken {
				if _, err := os.Stat(c.opts.Dir); err == nil {
					t.Errorf("%s was written", c.opts.Dir)
				}
			}
		})
	}
}

func TestIsRelease(t *testing.T) {
	for v, want := range map[string]bool{"v0.2.0": true, "v1.0.0": true, "dev": false, "v0.1.0-3-gabcdef": false, "v0.2.0-dirty": false, "v1.0": false} {
		if got := IsRelease(v); got != want {
			t.Errorf("IsRelease(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestTemplateIsTheDocsVM: the VM the template writes is the one
// docs/writing-a-vm.md walks through, declaration by declaration, comments
// included, so that the page explains the code an author starts from.
func TestTemplateIsTheDocsVM(t *testing.T) {
	page, err := os.ReadFile("../../docs/writing-a-vm.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(page), "## A whole VM")
	_, after, ok := strings.Cut(after, "```go\n")
	block, _, closed := strings.Cut(after, "```")
	if !ok || !closed {
		t.Fatal(`docs/writing-a-vm.md has no go block under "## A whole VM"`)
	}
	dir := filepath.Join(t.TempDir(), "countervm")
	if _, err := Write(Options{Kind: KindVM, Dir: dir, SDKVersion: "v1.0.0"}); err != nil {
		t.Fatal(err)
	}
	vm, err := os.ReadFile(filepath.Join(dir, "vm.go"))
	if err != nil {
		t.Fatal(err)
	}
	inDoc, inTemplate := decls(t, block), decls(t, string(vm))
	for name, src := range inTemplate {
		if inDoc[name] != src {
			t.Errorf("the template's %s differs from the page's:\n%s\nthe page:\n%s", name, src, inDoc[name])
		}
	}
	for name := range inDoc {
		if _, ok := inTemplate[name]; !ok && name != "main" {
			t.Errorf("the page's VM has %s, the template's has not", name)
		}
	}
}

// decls returns the top-level declarations of a Go file but its imports,
// by name, as gofmt prints them with their comments.
func decls(t *testing.T, src string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "vm.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		var name string
		switch d := d.(type) {
		case *ast.FuncDecl:
			name = d.Name.Name
			if d.Recv != nil {
				name = types.ExprString(d.Recv.List[0].Type) + "." + name
			}
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					name += s.Name.Name + " "
				case *ast.ValueSpec:
					name += types.ExprString(s.Names[0]) + " "
				}
			}
		}
		var buf bytes.Buffer
		if err := printer.Fprint(&buf, fset, &printer.CommentedNode{Node: d, Comments: f.Comments}); err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSpace(name)] = buf.String()
	}
	return out
}
