package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// configKeys returns the top-level keys of Config by field name.
func configKeys() map[string]string {
	keys := map[string]string{}
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("koanf"), ",")
		if key != "" && key != "-" {
			keys[f.Name] = key
		}
	}
	return keys
}

// TestKeyDescriptions: every top-level key is described once, in the
// comment above it in configs/default.yaml; the flag's help is that text,
// and the Config field's doc and the README's configuration table say it
// too, so none of them can drift from the others.
func TestKeyDescriptions(t *testing.T) {
	desc := descriptions()
	keys := configKeys()
	for _, key := range keys {
		if desc[key] == "" {
			t.Errorf("configs/default.yaml: key %s has no comment above it", key)
		}
	}
	if len(desc) != len(keys) {
		t.Errorf("configs/default.yaml describes %d top-level keys, Config has %d", len(desc), len(keys))
	}

	FlagSet().VisitAll(func(f *pflag.Flag) {
		if f.Name == flagConfig {
			return
		}
		if f.Usage == "" || f.Usage != desc[f.Name] {
			t.Errorf("flag --%s: help %q, want the description %q", f.Name, f.Usage, desc[f.Name])
		}
	})

	for field, doc := range fieldDocs(t) {
		key, ok := keys[field]
		if !ok {
			continue
		}
		if !strings.Contains(doc, lowerFirst(desc[key])) {
			t.Errorf("core/config/config.go: the doc of Config.%s is %q, which does not say %q (configs/default.yaml, key %s)", field, doc, lowerFirst(desc[key]), key)
		}
	}
	for field := range keys {
		if _, ok := fieldDocs(t)[field]; !ok {
			t.Errorf("core/config/config.go: Config.%s has no doc", field)
		}
	}

	rows := readmeRows(t)
	for _, key := range keys {
		meaning, ok := rows[key]
		if !ok {
			t.Errorf("README.md: the configuration table has no row for %s", key)
			continue
		}
		if !strings.HasPrefix(meaning, desc[key]) {
			t.Errorf("README.md: the row of %s says %q, want it to start with %q (configs/default.yaml)", key, meaning, desc[key])
		}
	}
}

// fieldDocs returns the doc comment of each field of Config, on one line.
func fieldDocs(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "config.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Config" {
			return true
		}
		for _, fld := range ts.Type.(*ast.StructType).Fields.List {
			if fld.Doc == nil {
				continue
			}
			for _, name := range fld.Names {
				docs[name.Name] = strings.Join(strings.Fields(fld.Doc.Text()), " ")
			}
		}
		return false
	})
	return docs
}

// readmeRows returns the meaning column of each row of the README's
// configuration table, by the key in its first column.
func readmeRows(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Configuration\n")
	if !ok {
		t.Fatal("README.md has no Configuration section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for line := range strings.SplitSeq(section, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 3 || !strings.HasPrefix(cells[0], "| `") {
			continue
		}
		key := strings.Trim(strings.TrimPrefix(cells[0], "| "), "`")
		rows[key] = strings.TrimSuffix(cells[2], " |")
	}
	return rows
}

// lowerFirst lowers the first letter of a sentence, not of an acronym.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if next, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(next) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}
