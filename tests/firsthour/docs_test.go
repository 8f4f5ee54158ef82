// Package firsthour holds the tests of a newcomer's first hour: what the
// documents tell a user to do, run as written against a node started as a
// user starts it (docs/doctest.md).
package firsthour

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
)

// docRoot returns the repository root, and fails unless the binaries the
// doc commands call (build/bin/chainhost) are the ones the tests run.
func docRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "build")
	got := os.Getenv("CHAINHOST_BIN_DIR")
	if got == "" || filepath.Clean(got) != want {
		t.Fatalf("the doc tests run the docs' commands, which call build/bin/chainhost: run `make test`, or `make build` then "+
			"CHAINHOST_BIN_DIR=$PWD/build go test ./tests/firsthour (CHAINHOST_BIN_DIR is %q, want %q)", got, want)
	}
	return root
}

// parseDocs reads README.md and docs/**/*.md.
func parseDocs(t *testing.T, root string) []*docFile {
	t.Helper()
	paths, err := docPaths(root)
	if err != nil {
		t.Fatal(err)
	}
	var files []*docFile
	for _, p := range paths {
		f, err := parseDoc(root, p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestDocLinks checks that every link between docs resolves: the file
// exists, and an anchor is a heading of the target.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := parseDocs(t, root)
	byPath := map[string]*docFile{}
	for _, f := range files {
		byPath[f.path] = f
	}
	checked := 0
	for _, f := range files {
		for _, l := range f.links {
			if strings.Contains(l.dest, "://") || strings.HasPrefix(l.dest, "mailto:") {
				continue
			}
			checked++
			target, anchor, _ := strings.Cut(l.dest, "#")
			where := fmt.Sprintf("%s:%d: link %q", f.path, l.line, l.dest)
			targetPath := f.path
			if target != "" {
				targetPath = path.Clean(path.Join(path.Dir(f.path), target))
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(targetPath))); err != nil {
					t.Errorf("%s: %s does not exist", where, targetPath)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			doc, ok := byPath[targetPath]
			if !ok {
				t.Errorf("%s: an anchor into %s, which is not a doc of README.md or docs/", where, targetPath)
				continue
			}
			if !doc.headings[anchor] {
				t.Errorf("%s: %s has no heading with the anchor #%s (it has %s)", where, targetPath, anchor, strings.Join(slices.Sorted(maps.Keys(doc.headings)), ", "))
			}
		}
	}
	t.Logf("doc links: %d links between docs checked", checked)
}

// TestDocs runs every fenced block of README.md and docs/ as written, in
// file order, against a node started as a user starts it, one node per
// file (docs/doctest.md).
func TestDocs(t *testing.T) {
	root := docRoot(t)
	start := time.Now()
	files := parseDocs(t, root)
	var goBlocks []*docBlock
	for _, f := range files {
		for _, b := range f.blocks {
			if langOf(b) == "go" && b.notRun == "" {
				goBlocks = append(goBlocks, b)
			}
		}
	}
	programs, cleanup := buildGoPrograms(root, t.TempDir(), goBlocks)
	t.Cleanup(cleanup)
	r := &docRunner{root: root, programs: programs, goEnv: goCacheEnv(t)}
	r.lists = &testLists{root: root, env: append(nodetest.Environ(), r.goEnv...)}
	for _, f := range files {
		r.runFile(t, f)
	}
	r.report(t, time.Since(start))
}

// docRunner runs the blocks of the docs and counts them.
type docRunner struct {
	root     string
	programs *goPrograms
	goEnv    []string // GOCACHE and the like, kept when HOME changes

	// The node of the file being run: its flags, its config file (a
	// node-config block's) and its data dir.
	node       *nodetest.Node
	nodeArgs   []string
	nodeConfig string
	dataDir    string

	ran     map[string]int // by language
	notRun  []string       // "<file>:<line>: <reason>"
	recipes int            // not-run blocks whose tests and benchmarks were checked
	lists   *testLists
	text    int // text blocks: figures and sample output, not code
	failed  []string
	prelude string // the file's prelude blocks
	last    *runResult
}

// langOf is a block's language, aliases folded.
func langOf(b *docBlock) string {
	switch b.lang {
	case "sh", "bash", "shell":
		return "sh"
	case "js", "mjs", "javascript":
		return "js"
	case "yml":
		return "yaml"
	}
	return b.lang
}

// needsNode reports whether a block runs against the node.
func needsNode(b *docBlock) bool {
	if b.notRun != "" {
		return false
	}
	switch langOf(b) {
	case "sh", "js":
		return true
	case "go":
		return !isPlugin(b.code)
	}
	return false
}

func (r *docRunner) runFile(t *testing.T, f *docFile) {
	r.prelude, r.last, r.nodeConfig = "", nil, ""
	r.dataDir = filepath.Join(t.TempDir(), ".chainhost")
	defer r.stopNode(t)
	for _, b := range f.blocks {
		if needsNode(b) {
			args := b.args
			if r.nodeConfig != "" {
				args = append([]string{"--config", r.nodeConfig}, args...)
			}
			r.ensureNode(t, args)
		}
		ok := t.Run(b.name(), func(t *testing.T) { r.runBlock(t, b) })
		if !ok {
			r.failed = append(r.failed, b.name())
			if r.node != nil && needsNode(b) {
				t.Logf("%s failed; the node's last lines:\n%s", b.name(), lastLines(r.node.Output(), 8))
			}
		}
	}
}

// ensureNode has a node running with args: the file's node, restarted on
// the same data dir when the args change.
func (r *docRunner) ensureNode(t *testing.T, args []string) {
	t.Helper()
	if r.node != nil && slices.Equal(r.nodeArgs, args) {
		return
	}
	r.stopNode(t)
	r.node = nodetest.Start(t, nodetest.Options{AsUser: true, Args: args, DataDir: r.dataDir})
	r.nodeArgs = args
	r.node.WaitHealthy(t)
}

func (r *docRunner) stopNode(t *testing.T) {
	t.Helper()
	if r.node != nil {
		r.node.Stop(t)
		r.node = nil
	}
}

// env is the environment of a block's commands: the test's, with HOME the
// node's (so that ~/.chainhost is its data dir) and Go's caches where they
// were.
func (r *docRunner) env() []string {
	var env []string
	for _, kv := range nodetest.Environ() {
		if !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(append(env, "HOME="+filepath.Dir(r.dataDir)), r.goEnv...)
}

// goCacheEnv returns Go's cache and path settings, which default to places
// under HOME.
func goCacheEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	var vals map[string]string
	if err := json.Unmarshal(out, &vals); err != nil {
		t.Fatalf("go env: %v", err)
	}
	var env []string
	for k, v := range vals {
		env = append(env, k+"="+v)
	}
	return env
}

func (r *docRunner) runBlock(t *testing.T, b *docBlock) {
	// Only the block right after a run block is its answer.
	before := r.last
	r.last = nil
	lang := langOf(b)
	if b.notRun != "" {
		r.notRun = append(r.notRun, fmt.Sprintf("%s: %s", b.name(), b.notRun))
		if lang == "sh" {
			checked, err := r.lists.checkRecipe(b.code)
			if err != nil {
				t.Fatalf("the recipe names what the repository does not have:\n%s\n%v", b.code, err)
			}
			if checked {
				r.recipes++
			}
		}
		t.SkipNow() // the report at the end lists it with its reason
	}
	switch lang {
	case "":
		t.Fatalf("the block has no language: give it one (sh, json, yaml, go, js, text, ...), or the line %q right before it", "_Not run by the doc tests: <reason>._")
	case "text":
		r.text++
		return
	}
	if r.ran == nil {
		r.ran = map[string]int{}
	}
	r.ran[lang]++
	switch lang {
	case "sh":
		r.runShell(t, b)
	case "json":
		r.checkJSON(t, b, before)
	case "yaml":
		partOf, _ := b.marker("part-of")
		if err := checkConfigSnippet(b.code, partOf, t.TempDir()); err != nil {
			t.Fatalf("the config snippet:\n%s\n%v", b.code, err)
		}
		if _, ok := b.marker("node-config"); ok {
			r.nodeConfig = filepath.Join(filepath.Dir(r.dataDir), fmt.Sprintf("config-%d.yaml", b.line))
			if err := os.WriteFile(r.nodeConfig, []byte(b.code), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	case "go":
		r.runGo(t, b)
	case "js":
		r.runJS(t, b)
	default:
		r.ran[lang]--
		t.Fatalf("the doc tests cannot run %s blocks: put the line %q right before it", b.lang, "_Not run by the doc tests: <reason>._")
	}
}

func (r *docRunner) runShell(t *testing.T, b *docBlock) {
	script := "set -euo pipefail\n" + r.prelude + b.code
	res := runBlockCommand(r.root, r.env(), "bash", "-c", script)
	r.check(t, b, res)
	if _, ok := b.marker("prelude"); ok {
		r.prelude += b.code
	}
}

func (r *docRunner) runGo(t *testing.T, b *docBlock) {
	bin, err := r.programs.wait(b)
	if err != nil {
		t.Fatalf("the program:\n%s\n%v", b.code, err)
	}
	if isPlugin(b.code) {
		res := runBlockCommand(r.root, r.env(), bin, "describe")
		var desc map[string]any
		if res.err != nil || json.Unmarshal(res.stdout, &desc) != nil {
			t.Fatalf("the plugin's `describe` (%v) did not print its description as a JSON object:\n%s", res.err, res.output)
		}
		return
	}
	r.check(t, b, runBlockCommand(r.root, r.env(), bin))
}

// jsPackages is the npm suite whose packages a js block imports, unless
// its packages marker names another (docs/doctest.md).
const jsPackages = "tests/dataapi-sdk"

func (r *docRunner) runJS(t *testing.T, b *docBlock) {
	pkgs, ok := b.marker("packages")
	if !ok {
		pkgs = jsPackages
	}
	dir := filepath.Join(r.root, filepath.FromSlash(pkgs))
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Fatalf("the block imports the packages of %s: run make test (it runs npm ci there): %v", pkgs, err)
	}
	f, err := os.CreateTemp(dir, "_doc-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(b.code); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r.check(t, b, runBlockCommand(r.root, r.env(), "node", f.Name()))
}

// check applies a run block's checks (docs/doctest.md): exit status 0, no
// JSON-RPC or REST error printed, and the text its markers expect.
func (r *docRunner) check(t *testing.T, b *docBlock, res runResult) {
	r.last = &res
	var problems []string
	wantErr, expectsError := b.marker("error")
	if !expectsError {
		if res.err != nil {
			problems = append(problems, fmt.Sprintf("it failed: %v", res.err))
		}
		for _, e := range errorBodies(printedJSON(res.stdout)) {
			problems = append(problems, "it printed an error: "+e)
		}
	} else if !strings.Contains(string(res.output), wantErr) {
		problems = append(problems, fmt.Sprintf("it shows an error on purpose, but its output lacks %q", wantErr))
	}
	for _, want := range b.markerValues("expect") {
		if !strings.Contains(string(res.output), want) {
			problems = append(problems, fmt.Sprintf("its output lacks %q", want))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("the block:\n%s\n%s\nits output:\n%s", indentLines(b.code, "    "), strings.Join(problems, "\n"), indentLines(lastLines(string(res.output), 60), "    "))
	}
}

// checkJSON checks a json block: it parses; marked `answer`, it has the
// shape of what the block before printed.
func (r *docRunner) checkJSON(t *testing.T, b *docBlock, before *runResult) {
	doc, err := docJSONValues(b.code)
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if _, ok := b.marker("answer"); !ok {
		return
	}
	if before == nil {
		t.Fatal("marked as the answer of the block before, but the block before is not one that runs")
	}
	got := printedJSON(before.stdout)
	if len(got) != len(doc) {
		t.Fatalf("the doc shows %d JSON values, the block before printed %d:\n%s", len(doc), len(got), lastLines(string(before.stdout), 60))
	}
	same := map[string]bool{}
	for _, v := range b.markerValues("same") {
		for _, k := range strings.Fields(v) {
			same[k] = true
		}
	}
	var diffs []string
	for i := range doc {
		diffs = append(diffs, shapeDiff(doc[i], got[i], "", same)...)
	}
	if len(diffs) > 0 {
		t.Fatalf("the answer the block before printed has not the documented shape:\n%s\nthe answer:\n%s", strings.Join(diffs, "\n"), lastLines(string(before.stdout), 60))
	}
}

// report logs the counts: what ran, and what is not run, with why.
func (r *docRunner) report(t *testing.T, took time.Duration) {
	var langs []string
	total := 0
	for l, n := range r.ran {
		langs = append(langs, fmt.Sprintf("%s %d", l, n))
		total += n
	}
	sort.Strings(langs)
	t.Logf("doc tests: %d blocks run (%s), %d not run (%d of them recipes whose tests and benchmarks exist), %d text blocks (figures and sample output), in %s",
		total, strings.Join(langs, ", "), len(r.notRun), r.recipes, r.text, took.Round(time.Second))
	for _, n := range r.notRun {
		t.Logf("  not run: %s", n)
	}
	if len(r.failed) > 0 {
		t.Logf("failed: %s", strings.Join(r.failed, ", "))
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) <= n {
		return s
	}
	return fmt.Sprintf("[%d lines before]\n%s", len(lines)-n, strings.Join(lines[len(lines)-n:], ""))
}
