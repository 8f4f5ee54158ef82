package pluginhost

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/internal/syncbuf"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/host/hosttest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// testPluginPath is the test plugin binary TestMain builds.
var testPluginPath string

func TestMain(m *testing.M) {
	if os.Getenv(hostHelperEnv) != "" {
		os.Exit(runHostHelper(os.Getenv(hostHelperEnv)))
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "pluginhost-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	testPluginPath = filepath.Join(dir, "testplugin")
	cmd := exec.Command("go", "build", "-o", testPluginPath, "./testdata/testplugin")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build test plugin:", err)
		return 1
	}
	return m.Run()
}

// testEnv is a started test plugin with what the host side gave it.
type testEnv struct {
	inst *Instance
	db   *hosttest.Database
	logs *syncbuf.Buffer
	// errs records what OnError was told.
	errs chan httpError
	srv  *httptest.Server
}

// httpError is one OnError call.
type httpError struct {
	status int
	err    error
}

// testOptions returns Options for the test plugin with a fresh in-memory
// database and a Trace logger writing to logs.
func testOptions(t *testing.T) (Options, *hosttest.Database, *syncbuf.Buffer) {
	t.Helper()
	db := hosttest.NewDatabase()
	logs := &syncbuf.Buffer{}
	return Options{
		Path: testPluginPath,
		Init: Init{
			Kind:     pluginv1.KindVM,
			Name:     "T",
			LogLevel: "INFO",
			DataDir:  t.TempDir(),
		},
		Logger:   hclog.New(&hclog.LoggerOptions{Name: "T", Level: hclog.Trace, Output: logs}),
		Services: host.Services{DB: db},
	}, db, logs
}

// startEnv starts the test plugin with opts (from testOptions, possibly
// changed) and serves its handlers under /<name>/ on an httptest server.
func startEnv(t *testing.T, opts Options, db *hosttest.Database, logs *syncbuf.Buffer) *testEnv {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inst, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	env := &testEnv{inst: inst, db: db, logs: logs, errs: make(chan httpError, 100)}
	onError := func(w http.ResponseWriter, _ *http.Request, status int, err error) {
		env.errs <- httpError{status, err}
		http.Error(w, err.Error(), status)
	}
	mux := http.NewServeMux()
	for _, name := range []string{"rpc", "db", "pid", "log", "sick", "crash", "nope"} {
		mux.Handle("/"+name+"/", http.StripPrefix("/"+name, inst.Handler(name, onError)))
	}
	env.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		env.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := inst.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return env
}

// do sends a request to the test server and returns status and body.
func (e *testEnv) do(ctx context.Context, method, path, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// must is do that fails the test on a transport error.
func (e *testEnv) must(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	status, got, err := e.do(ctx, method, path, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return status, got
}

// waitRunning waits until the instance runs a process other than oldPID.
func waitRunning(t *testing.T, inst *Instance, oldPID int) {
	t.Helper()
	plugintest.Eventually(t, 20*time.Second, func() error {
		if s, reason := inst.State(); s != Running || inst.PID() == 0 || inst.PID() == oldPID {
			return fmt.Errorf("no restarted process: state %v (%s), pid %d, old pid %d", s, reason, inst.PID(), oldPID)
		}
		return nil
	})
}

// processGone reports whether no process pid exists any more.
func processGone(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return os.IsNotExist(err)
}

// waitLogged waits until the plugin's log holds line.
func waitLogged(t *testing.T, logs *syncbuf.Buffer, line string) {
	t.Helper()
	plugintest.Eventually(t, 5*time.Second, func() error {
		if !strings.Contains(logs.String(), line) {
			return fmt.Errorf("no %q in the log", line)
		}
		return nil
	})
}
