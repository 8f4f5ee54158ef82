package firsthour

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A recipe is a not-run shell block that runs Go tests or benchmarks (a
// benchmark's recipe runs for minutes). It is not run, but what it names is
// checked: every package it tests exists and every -bench and -run pattern
// matches a benchmark or test of it, so that a renamed benchmark fails the
// doc tests instead of leaving a recipe no reader can follow.

// recipeRun is one pattern a recipe runs in one package.
type recipeRun struct {
	pkg     string // a directory relative to the repository root
	flag    string // "bench" or "run"
	pattern string
}

// goTestValueFlags are the go test flags (and test binary flags, less their
// "test." prefix) that take a value, so that the value is not read as a
// package.
var goTestValueFlags = map[string]bool{
	"run": true, "bench": true, "benchtime": true, "count": true, "timeout": true, "o": true,
	"cpu": true, "tags": true, "list": true, "fuzz": true, "fuzztime": true, "parallel": true,
	"coverprofile": true, "cpuprofile": true, "memprofile": true, "exec": true, "skip": true,
}

// recipeRuns parses a shell block and returns the test and benchmark runs
// it names: `go test ... PKG` calls and calls of a test binary that an
// earlier `go test -c -o BIN PKG` built. Each `cd` moves where relative
// packages are, as it would in the shell. It also returns the relative
// script paths the block calls, which must exist.
func recipeRuns(code string) (runs []recipeRun, scripts []string, err error) {
	file, err := syntax.NewParser().Parse(strings.NewReader(code), "")
	if err != nil {
		return nil, nil, fmt.Errorf("parse the shell block: %w", err)
	}
	dir := "."
	binaries := map[string]string{} // test binary -> its package
	syntax.Walk(file, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.Subshell); ok {
			// (cd /tmp/before && make build) builds a baseline elsewhere,
			// and its cd ends with it.
			return false
		}
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 || err != nil {
			return err == nil
		}
		args := make([]string, len(call.Args))
		for i, w := range call.Args {
			// No environment: a variable expands to nothing, which leaves
			// the literal part of a pattern ("BenchmarkWrite/$e" reads
			// "BenchmarkWrite/").
			if args[i], err = expand.Literal(nil, w); err != nil {
				err = fmt.Errorf("expand %q: %w", code[w.Pos().Offset():w.End().Offset()], err)
				return false
			}
		}
		switch {
		case args[0] == "cd" && len(args) > 1:
			dir = path.Join(dir, args[1])
		case args[0] == "go" && len(args) > 1 && args[1] == "test":
			flags, pkgs := goTestArgs(args[2:], "")
			for _, p := range pkgs {
				p = path.Join(dir, p)
				if out, ok := flags["o"]; ok {
					binaries[out] = p
				}
				if _, compileOnly := flags["c"]; !compileOnly {
					runs = append(runs, patternRuns(p, flags)...)
				}
			}
		case binaries[args[0]] != "":
			flags, _ := goTestArgs(args[1:], "test.")
			runs = append(runs, patternRuns(binaries[args[0]], flags)...)
		case strings.Contains(args[0], "/") && !filepath.IsAbs(args[0]):
			scripts = append(scripts, path.Join(dir, args[0]))
		}
		return true
	})
	return runs, scripts, err
}

// goTestArgs splits go test arguments into flags (name without prefix ->
// value) and packages.
func goTestArgs(args []string, prefix string) (map[string]string, []string) {
	flags := map[string]string{}
	var pkgs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-args" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			pkgs = append(pkgs, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		name = strings.TrimPrefix(name, prefix)
		if !hasValue && goTestValueFlags[name] && i+1 < len(args) {
			i++
			value = args[i]
		}
		flags[name] = value
	}
	return flags, pkgs
}

// patternRuns is the -bench and -run patterns of one package's run; a -run
// that matches nothing on purpose ('^$', to run benchmarks only) is left out.
func patternRuns(pkg string, flags map[string]string) []recipeRun {
	var runs []recipeRun
	if p, ok := flags["bench"]; ok {
		runs = append(runs, recipeRun{pkg: pkg, flag: "bench", pattern: p})
	}
	if p, ok := flags["run"]; ok && p != "^$" {
		runs = append(runs, recipeRun{pkg: pkg, flag: "run", pattern: p})
	}
	return runs
}

// testLists caches each package's test and benchmark names: a package's
// list compiles its tests once.
type testLists struct {
	mu    sync.Mutex
	root  string
	env   []string
	names map[string][]string
}

// list returns the top-level tests and benchmarks of pkg.
func (l *testLists) list(pkg string) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if names, ok := l.names[pkg]; ok {
		return names, nil
	}
	cmd := exec.Command("go", "test", "-list", ".", "./"+pkg)
	cmd.Dir = l.root
	cmd.Env = l.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -list . ./%s: %w\n%s", pkg, err, out)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Test") || strings.HasPrefix(line, "Benchmark") {
			names = append(names, line)
		}
	}
	if l.names == nil {
		l.names = map[string][]string{}
	}
	l.names[pkg] = names
	return names, nil
}

// checkRecipe checks that what a recipe names exists; a block that runs no
// Go test and calls no script of the repository is no recipe and passes.
func (l *testLists) checkRecipe(code string) (checked bool, err error) {
	runs, scripts, err := recipeRuns(code)
	if err != nil {
		return false, err
	}
	var errs []error
	for _, s := range scripts {
		if _, err := os.Stat(filepath.Join(l.root, s)); err != nil {
			errs = append(errs, fmt.Errorf("the script %s: %w", s, err))
		}
	}
	for _, r := range runs {
		names, err := l.list(r.pkg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := matchesOne(r, names); err != nil {
			errs = append(errs, err)
		}
	}
	return len(runs)+len(scripts) > 0, errors.Join(errs...)
}

// matchesOne checks that the first level of r's pattern (go test matches
// each level of a/b against the test's name and its subtests') matches a
// test or benchmark of its package.
func matchesOne(r recipeRun, names []string) error {
	top, _, _ := strings.Cut(r.pattern, "/")
	re, err := regexp.Compile(top)
	if err != nil {
		return fmt.Errorf("-%s %q in ./%s: %w", r.flag, r.pattern, r.pkg, err)
	}
	kind := map[string]string{"bench": "Benchmark", "run": "Test"}[r.flag]
	for _, n := range names {
		if strings.HasPrefix(n, kind) && re.MatchString(n) {
			return nil
		}
	}
	return fmt.Errorf("-%s %q matches no %s of ./%s", r.flag, r.pattern, strings.ToLower(kind), r.pkg)
}

func TestRecipeRuns(t *testing.T) {
	code := `(cd /tmp/before && go test -c -o /tmp/old.test ./plugins/evm)
make build && go test -c -o /tmp/b.test ./bench/ && cd bench
for e in pebble leveldb; do go test -run '^$' -bench "BenchmarkWrite/$e\$" -count 1 ../plugins/x/; done
CHAINHOST_BIN_DIR=$d /tmp/b.test -test.run '^$' -test.bench 'EVMRPC/(host|listener)' -test.benchtime 2s
go test ./load -run TestLoad -v -args -load=60s
./cpu.sh build 8`
	runs, scripts, err := recipeRuns(code)
	if err != nil {
		t.Fatal(err)
	}
	want := []recipeRun{
		{pkg: "plugins/x", flag: "bench", pattern: "BenchmarkWrite/$"},
		{pkg: "bench", flag: "bench", pattern: "EVMRPC/(host|listener)"},
		{pkg: "bench/load", flag: "run", pattern: "TestLoad"},
	}
	if !slices.Equal(runs, want) {
		t.Errorf("runs = %+v, want %+v", runs, want)
	}
	if !slices.Equal(scripts, []string{"bench/cpu.sh"}) {
		t.Errorf("scripts = %q", scripts)
	}
	names := []string{"TestLoad", "BenchmarkEVMRPC", "BenchmarkWrite"}
	for _, r := range want {
		if err := matchesOne(r, names); err != nil {
			t.Error(err)
		}
	}
	if err := matchesOne(recipeRun{pkg: "bench", flag: "bench", pattern: "EVMBurst/host"}, names); err == nil {
		t.Error("a renamed benchmark matched")
	}
	if err := matchesOne(recipeRun{pkg: "bench", flag: "run", pattern: "EVMRPC"}, names); err == nil {
		t.Error("-run matched a benchmark")
	}
	if _, _, err := recipeRuns("for d in <build dir> ../build; do :; done"); err == nil {
		t.Error("a placeholder parsed as shell")
	}
}
