package compat

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// node is a chainhost process started for a test.
type node struct {
	URL string
}

var healthLine = regexp.MustCompile(`health\s+GET\s+(http://\S+)/ext/health`)

// binaries returns the host binary and the plugin dir: those of
// CHAINHOST_BIN_DIR (as `make test` sets it), else built once from the
// repository into a temporary directory.
func binaries(t *testing.T) (string, string) {
	t.Helper()
	if dir := os.Getenv("CHAINHOST_BIN_DIR"); dir != "" {
		return filepath.Join(dir, "bin", "chainhost"), filepath.Join(dir, "plugins")
	}
	build.once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		repo := filepath.Join(filepath.Dir(file), "..", "..")
		dir, err := os.MkdirTemp("", "chainhost-compat-*")
		if err != nil {
			build.err = err
			return
		}
		build.host, build.plugins = filepath.Join(dir, "bin", "chainhost"), filepath.Join(dir, "plugins")
		cmds, _ := filepath.Glob(filepath.Join(repo, "cmd", "*"))
		for _, c := range cmds {
			dst := filepath.Join(build.plugins, filepath.Base(c))
			if filepath.Base(c) == "chainhost" {
				dst = build.host
			}
			cmd := exec.Command("go", "build", "-o", dst, "./cmd/"+filepath.Base(c))
			cmd.Dir = repo
			if out, err := cmd.CombinedOutput(); err != nil {
				build.err = &buildError{string(out), err}
				return
			}
		}
	})
	if build.err != nil {
		t.Fatalf("build chainhost: %v", build.err)
	}
	return build.host, build.plugins
}

var build struct {
	once          sync.Once
	host, plugins string
	err           error
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// startNode runs the host with a config and waits until it serves HTTP;
// the process is killed when the test ends.
func startNode(t *testing.T, config string) *node {
	t.Helper()
	hostBin, plugins := binaries(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return runNode(t, exec.Command(hostBin, "--data-dir="+filepath.Join(dir, "data"), "--plugin-dir="+plugins,
		"--http-port=0", "--config="+cfg))
}

// runNode starts cmd, the host, in this process's environment less its
// CHAINHOST_ variables, plus env, and waits until it serves HTTP; the
// process is killed when the test ends.
func runNode(t *testing.T, cmd *exec.Cmd, env ...string) *node {
	t.Helper()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CHAINHOST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...) // last, so that they win
	var logs strings.Builder
	var mu sync.Mutex
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	cmd.Stderr = writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(b) })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); pw.Close(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			mu.Lock()
			t.Logf("chainhost output:\n%s", logs.String())
			mu.Unlock()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := healthLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case url := <-found:
		return &node{URL: url}
	case <-done:
		t.Fatal("chainhost exited during start-up")
	case <-time.After(60 * time.Second):
		t.Fatal("chainhost did not start within 60s")
	}
	return nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
