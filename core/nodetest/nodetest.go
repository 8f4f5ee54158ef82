// Package nodetest starts the real chainhost binary, with its real plugin
// binaries and a real database on disk, for end-to-end tests.
package nodetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/internal/syncbuf"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// Options configures a node started for a test.
type Options struct {
	// Config is a YAML config file's content; empty uses the embedded defaults.
	Config string
	// Args are extra command-line flags.
	Args []string
	// Env are extra environment variables (KEY=VALUE).
	Env []string
	// DataDir is reused across restarts; default a new temp dir.
	DataDir string
	// PluginDir defaults to the built plugins.
	PluginDir string
	// BinDir runs another build than Binaries' (a make build output dir:
	// <dir>/bin/chainhost and <dir>/plugins), such as a benchmark's
	// baseline.
	BinDir string
	// NoWait returns as soon as the process runs, without waiting for the
	// HTTP listener (for start-up failures).
	NoWait bool
	// AsUser runs the host as a user does: no flag but Args, so the
	// embedded defaults hold (port 9650, the plugin dir next to the
	// binary), with HOME a new temp dir that the default data dir
	// (~/.chainhost) falls in. Config and PluginDir must be empty; DataDir
	// is set by Start (a Restart keeps the same HOME).
	AsUser bool
}

// Node is a running chainhost process.
type Node struct {
	URL     string
	DataDir string
	Opts    Options
	cmd     *exec.Cmd
	out     *syncbuf.Buffer
	done    chan struct{}
	waitErr error
}

var urlLine = regexp.MustCompile(`health\s+GET\s+(https?://\S+)/ext/health`)

// Start runs the host and waits until it serves HTTP. The process is
// killed when the test ends.
func Start(t testing.TB, opts Options) *Node {
	t.Helper()
	var hostBin, plugins string
	if opts.BinDir != "" {
		hostBin, plugins = buildDir(opts.BinDir)
	} else {
		hostBin, plugins = Binaries(t)
	}
	var args, env []string
	switch {
	case opts.AsUser:
		if opts.Config != "" || opts.PluginDir != "" {
			t.Fatal("nodetest: AsUser takes no Config or PluginDir")
		}
		holdDefaultPort(t) // released after the node is killed: cleanups run last first
		if opts.DataDir == "" {
			opts.DataDir = filepath.Join(t.TempDir(), ".chainhost")
		}
		env = []string{"HOME=" + filepath.Dir(opts.DataDir)}
	default:
		if opts.DataDir == "" {
			opts.DataDir = t.TempDir()
		}
		if opts.PluginDir == "" {
			opts.PluginDir = plugins
		}
		args = []string{"--data-dir=" + opts.DataDir, "--plugin-dir=" + opts.PluginDir, "--http-port=0", "--log-display-level=INFO"}
	}
	if opts.Config != "" {
		path := filepath.Join(opts.DataDir, "test-config.yaml")
		if err := os.WriteFile(path, []byte(opts.Config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config="+path)
	}
	args = append(args, opts.Args...)
	cmd := exec.Command(hostBin, args...)
	cmd.Env = append(append(Environ(), env...), opts.Env...)
	out := &syncbuf.Buffer{}
	pr, pw := io.Pipe()
	cmd.Stdout = io.MultiWriter(out, pw)
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chainhost: %v", err)
	}
	n := &Node{DataDir: opts.DataDir, Opts: opts, cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		n.waitErr = cmd.Wait()
		pw.Close()
		close(n.done)
	}()
	t.Cleanup(func() {
		n.Kill()
		if t.Failed() {
			n.logOutput(t)
		}
	})
	if opts.NoWait {
		go io.Copy(io.Discard, pr)
		return n
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case n.URL = <-found:
	case <-n.done:
		t.Fatalf("chainhost exited during start-up (%v):\n%s", n.waitErr, n.Output())
	case <-time.After(60 * time.Second):
		t.Fatalf("chainhost did not start within 60s:\n%s", n.Output())
	}
	return n
}

// Restart starts a new node on the same data dir and options.
func (n *Node) Restart(t testing.TB) *Node {
	t.Helper()
	n.Stop(t)
	return Start(t, n.Opts)
}

// Output is everything the process wrote so far.
func (n *Node) Output() string { return n.out.String() }

// outputTail is how many of the node's last lines a failed test logs: few
// enough that the failure above them stays in view of a CI summary.
const outputTail = 40

// logOutput logs the end of the node's output and keeps all of it in a file
// that outlives the test's temporary directories.
func (n *Node) logOutput(t testing.TB) {
	out := n.Output()
	lines := strings.SplitAfter(strings.TrimSuffix(out, "\n"), "\n")
	where := "not kept"
	if f, err := os.CreateTemp("", "chainhost-output-*.log"); err == nil {
		_, werr := f.WriteString(out)
		if cerr := f.Close(); werr == nil && cerr == nil {
			where = f.Name()
		}
	}
	if len(lines) > outputTail {
		t.Logf("chainhost output, last %d of %d lines (all of them: %s):\n%s",
			outputTail, len(lines), where, strings.Join(lines[len(lines)-outputTail:], ""))
		return
	}
	t.Logf("chainhost output:\n%s", out)
}

// PID is the host process ID.
func (n *Node) PID() int { return n.cmd.Process.Pid }

// Kill sends SIGKILL and waits for the process to go.
func (n *Node) Kill() {
	_ = n.cmd.Process.Signal(syscall.SIGKILL)
	<-n.done
}

// Stop sends SIGTERM and waits up to 30s for a clean exit.
func (n *Node) Stop(t testing.TB) {
	t.Helper()
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
		if n.waitErr != nil {
			t.Errorf("chainhost exited with %v:\n%s", n.waitErr, n.Output())
		}
	case <-time.After(30 * time.Second):
		n.Kill()
		t.Fatalf("chainhost did not stop within 30s of SIGTERM")
	}
}

// Wait waits for the process to exit and returns its exit code.
func (n *Node) Wait(timeout time.Duration) (int, error) {
	select {
	case <-n.done:
		return n.cmd.ProcessState.ExitCode(), nil
	case <-time.After(timeout):
		return 0, fmt.Errorf("still running after %s", timeout)
	}
}

// Call makes a JSON-RPC call to path (like "/ext/info").
func (n *Node) Call(ctx context.Context, path, method string, params, result any) error {
	return jsonrpc.Call(ctx, http.DefaultClient, n.URL+path, method, params, result)
}

// ChildPIDs lists the host's direct child processes (its plugins).
func (n *Node) ChildPIDs() []int { return ChildPIDs(n.PID()) }

// ChildPIDs lists the direct children of pid, from /proc.
func ChildPIDs(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(s); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// Alive reports whether a process exists and is neither a zombie nor dead.
func Alive(pid int) bool { return plugintest.ProcessAlive(pid) }

// PluginPIDs lists the host's plugin processes whose binary is named name.
func (n *Node) PluginPIDs(name string) []int {
	var out []int
	for _, pid := range n.ChildPIDs() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		argv0, _, _ := strings.Cut(string(b), "\x00")
		if filepath.Base(argv0) == name {
			out = append(out, pid)
		}
	}
	return out
}

// PluginPID returns the one running plugin process named name.
func PluginPID(t testing.TB, n *Node, name string) int {
	t.Helper()
	pids := n.PluginPIDs(name)
	if len(pids) != 1 {
		t.Fatalf("want one %s plugin process, got %v", name, pids)
	}
	return pids[0]
}

// BenchEnvPrefix starts the names of the variables that steer benchmarks
// (CHAINHOST_BENCH_ROUNDS, say); like CHAINHOST_BIN_DIR, nodes never see
// them.
const BenchEnvPrefix = "CHAINHOST_BENCH_"

// Environ is os.Environ without the variables that steer the tests, which
// the node would reject as unknown CHAINHOST_* config keys.
func Environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, binDirEnv+"=") && !strings.HasPrefix(kv, BenchEnvPrefix) {
			out = append(out, kv)
		}
	}
	return out
}
