package firsthour

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chainhost/chainhost/internal/syncbuf"
)

// runTimeout bounds one block's run: a doc's example answers in seconds.
const runTimeout = 2 * time.Minute

// runResult is what a block's command did.
type runResult struct {
	stdout, output []byte // output: stdout and stderr as they came
	err            error  // the exit status, or why it did not run
}

// runBlockCommand runs a command of a block in dir with env, in a process group
// of its own that is killed when it exits or runs out of time, so that
// nothing a block starts outlives it.
func runBlockCommand(dir string, env []string, name string, args ...string) runResult {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout bytes.Buffer
	output := &syncbuf.Buffer{}
	cmd.Stdout = &teeWriter{&stdout, output}
	cmd.Stderr = output
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %s: %w", runTimeout, err)
	}
	return runResult{stdout: stdout.Bytes(), output: []byte(output.String()), err: err}
}

// teeWriter writes to a buffer of its own and to a shared one.
type teeWriter struct {
	own    *bytes.Buffer
	shared *syncbuf.Buffer
}

func (w *teeWriter) Write(p []byte) (int, error) {
	w.own.Write(p)
	return w.shared.Write(p)
}

// goPrograms builds the docs' Go programs, each a main package, in the
// background while the other blocks run.
type goPrograms struct {
	done chan struct{}
	bins map[*docBlock]string
	errs map[*docBlock]error
}

// buildGoPrograms writes every go block to a package of its own below
// tests/firsthour (a folder starting with `_`, which `./...` skips) so
// that the module's packages resolve as in any program of the repository,
// and builds them two at a time into binDir.
func buildGoPrograms(root, binDir string, blocks []*docBlock) (*goPrograms, func()) {
	p := &goPrograms{done: make(chan struct{}), bins: map[*docBlock]string{}, errs: map[*docBlock]error{}}
	src, err := os.MkdirTemp(filepath.Join(root, "tests", "firsthour"), "_doc-")
	if err != nil {
		for _, b := range blocks {
			p.errs[b] = err
		}
		close(p.done)
		return p, func() {}
	}
	go func() {
		defer close(p.done)
		var mu sync.Mutex
		var wg sync.WaitGroup
		slots := make(chan struct{}, 2)
		for i, b := range blocks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				bin, err := buildGoProgram(root, filepath.Join(src, fmt.Sprintf("b%d", i)), filepath.Join(binDir, fmt.Sprintf("doc%d", i)), b.code)
				mu.Lock()
				defer mu.Unlock()
				p.bins[b], p.errs[b] = bin, err
			}()
		}
		wg.Wait()
	}()
	return p, func() {
		<-p.done
		_ = os.RemoveAll(src)
	}
}

func buildGoProgram(root, pkgDir, bin, code string) (string, error) {
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "main.go"), []byte(code), 0o644); err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, pkgDir)
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-o", bin, "./"+filepath.ToSlash(rel))
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, strings.ReplaceAll(string(out), filepath.ToSlash(rel)+"/main.go", "the block"))
	}
	return bin, nil
}

// wait returns the binary built of b.
func (p *goPrograms) wait(b *docBlock) (string, error) {
	<-p.done
	return p.bins[b], p.errs[b]
}

// isPlugin reports whether a Go program is a plugin's main: the host runs
// it, so the doc tests run its `describe`.
func isPlugin(code string) bool {
	return strings.Contains(code, "sdk.Main(") || strings.Contains(code, "sdk.Serve(")
}
