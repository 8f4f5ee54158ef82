package pluginhost

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/transport/httpwire"
)

func TestStartAndServe(t *testing.T) {
	t.Parallel()
	opts, db, logs := testOptions(t)
	env := startEnv(t, opts, db, logs)
	inst := env.inst

	if s, reason := inst.State(); s != Running || reason != "" {
		t.Errorf("State = %s %q, want running", s, reason)
	}
	if got, want := inst.Handlers(), []string{"crash", "db", "log", "pid", "rpc", "sick"}; !slices.Equal(got, want) {
		t.Errorf("Handlers = %v, want %v", got, want)
	}
	if got := inst.IndexKinds(); !slices.Equal(got, []string{"block"}) {
		t.Errorf("IndexKinds = %v", got)
	}
	if d := inst.Description(); d.Name != "testvm" || d.Kind != pluginv1.KindVM {
		t.Errorf("Description = %+v", d)
	}
	pid := inst.PID()
	if pid <= 0 || processGone(pid) {
		t.Fatalf("PID = %d, want a live process", pid)
	}

	tests := []struct {
		name         string
		method, path string
		body         string
		wantStatus   int
		wantBody     string
	}{
		{"echo", http.MethodPost, "/rpc/x/y", "hello", http.StatusOK, "POST /x/y hello"},
		{"echo root", http.MethodGet, "/rpc/", "", http.StatusOK, "GET / "},
		{"db write and read back", http.MethodPost, "/db/?key=k1", "v1", http.StatusOK, "v1"},
		{"db read", http.MethodGet, "/db/?key=k1", "", http.StatusOK, "v1"},
		{"db missing", http.MethodGet, "/db/?key=none", "", http.StatusNotFound, "not found\n"},
		{"pid", http.MethodGet, "/pid/", "", http.StatusOK, strconv.Itoa(pid)},
		{"unknown handler", http.MethodGet, "/nope/", "", http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		status, body := env.must(t, tt.method, tt.path, tt.body)
		if status != tt.wantStatus || (tt.wantBody != "" && body != tt.wantBody) {
			t.Errorf("%s: %s %s = %d %q, want %d %q", tt.name, tt.method, tt.path, status, body, tt.wantStatus, tt.wantBody)
		}
	}
	// The plugin wrote through the host service into the host's database.
	if v, err := db.Get(context.Background(), []byte("k1")); err != nil || string(v) != "v1" {
		t.Errorf("host db k1 = %q, %v; want v1", v, err)
	}
}

func TestStartRefuses(t *testing.T) {
	t.Parallel()
	bin, err := os.ReadFile(testPluginPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bin)
	wrong := sha256.Sum256([]byte("something else"))

	var onStartPID int
	var declared []string
	tests := []struct {
		name   string
		change func(*Options)
		want   string
		is     error
	}{
		{"sha256 pin mismatch", func(o *Options) { o.SHA256 = wrong[:] }, "does not match its sha256 pin", ErrChecksumMismatch},
		{"short pin", func(o *Options) { o.SHA256 = sum[:4] }, "sha256 pin has 4 bytes", nil},
		{"missing binary", func(o *Options) { o.Path += ".missing" }, "no such file", nil},
		{"kind mismatch", func(o *Options) { o.Init.Kind = pluginv1.KindModule }, "is a vm plugin, configured as a module", nil},
		{"bad log level", func(o *Options) { o.Init.LogLevel = "LOUD" }, "initialize", nil},
		{"OnStart fails", func(o *Options) {
			o.OnStart = func(_ context.Context, inst *Instance) error {
				onStartPID = inst.PID()
				return errors.New("backfill failed")
			}
		}, "on start: backfill failed", nil},
		{"Admit refuses", func(o *Options) {
			o.Admit = func(unsafeAPIs []string) error {
				declared = unsafeAPIs
				return errors.New("chain test: the dev API is unsafe in public")
			}
			o.OnStart = func(context.Context, *Instance) error { return errors.New("OnStart ran after Admit refused") }
		}, "chain test: the dev API is unsafe in public", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, _, _ := testOptions(t)
			var states []State
			opts.OnStateChange = func(s State, _ string) { states = append(states, s) }
			tt.change(&opts)
			inst, err := Start(context.Background(), opts)
			if err == nil {
				_ = inst.Stop(context.Background())
				t.Fatal("Start succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %v", err, tt.is)
			}
			if len(states) > 0 && states[len(states)-1] == Running {
				t.Errorf("states %v end running", states)
			}
		})
	}
	if fmt.Sprint(declared) != "[dev]" {
		t.Errorf("Admit got %v, want the plugin's declared [dev]", declared)
	}
	if onStartPID == 0 {
		t.Fatal("OnStart did not see a process")
	}
	if !processGone(onStartPID) {
		t.Errorf("process %d of the failed start is still there", onStartPID)
	}

	t.Run("matching pin starts", func(t *testing.T) {
		opts, db, logs := testOptions(t)
		opts.SHA256 = sum[:]
		env := startEnv(t, opts, db, logs)
		if status, body := env.must(t, http.MethodPost, "/rpc/", "pinned"); status != http.StatusOK || body != "POST / pinned" {
			t.Errorf("request = %d %q", status, body)
		}
	})
}

func TestRestartAfterKill(t *testing.T) {
	t.Parallel()
	opts, db, logs := testOptions(t)
	var mu sync.Mutex
	var states []string
	opts.OnStateChange = func(s State, reason string) {
		mu.Lock()
		defer mu.Unlock()
		states = append(states, s.String()+":"+reason)
	}
	onStarts := 0
	opts.OnStart = func(context.Context, *Instance) error {
		mu.Lock()
		defer mu.Unlock()
		onStarts++
		return nil
	}
	env := startEnv(t, opts, db, logs)
	inst := env.inst

	if status, body := env.must(t, http.MethodPost, "/db/?key=before", "kept"); status != http.StatusOK || body != "kept" {
		t.Fatalf("db write = %d %q", status, body)
	}
	oldPID := inst.PID()
	if err := syscall.Kill(oldPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	// A request right after the crash is answered 503 at once, with why.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	status, body, err := env.do(ctx, http.MethodPost, "/rpc/", "during")
	cancel()
	if err != nil {
		t.Fatalf("request after kill not answered before the 1s deadline: %v", err)
	}
	if status != http.StatusServiceUnavailable {
		t.Fatalf("request after kill = %d %q, want 503", status, body)
	}
	select {
	case e := <-env.errs:
		var ue *UnavailableError
		if e.status != http.StatusServiceUnavailable || !errors.As(e.err, &ue) ||
			!errors.Is(e.err, ErrNotRunning) || !errors.Is(e.err, httpwire.ErrPluginUnavailable) {
			t.Errorf("OnError got %d %v (%T), want 503 and an *UnavailableError", e.status, e.err, e.err)
		}
		if want := "chain T is restarting: plugin exited: signal: killed"; e.err.Error() != want {
			t.Errorf("OnError error %q, want %q", e.err, want)
		}
	default:
		t.Error("OnError was not called")
	}

	waitRunning(t, inst, oldPID)
	if status, body := env.must(t, http.MethodGet, "/pid/", ""); status != http.StatusOK || body != strconv.Itoa(inst.PID()) {
		t.Errorf("pid after restart = %d %q, want %d", status, body, inst.PID())
	}
	if got := inst.Restarts(); got != 1 {
		t.Errorf("Restarts = %d, want 1", got)
	}
	if status, body := env.must(t, http.MethodGet, "/db/?key=before", ""); status != http.StatusOK || body != "kept" {
		t.Errorf("db read after restart = %d %q, want kept", status, body)
	}
	if !processGone(oldPID) {
		t.Errorf("killed process %d is still there", oldPID)
	}
	mu.Lock()
	defer mu.Unlock()
	if onStarts != 2 {
		t.Errorf("OnStart ran %d times, want 2", onStarts)
	}
	want := []string{"starting:", "running:", "down:plugin exited: signal: killed",
		"starting:plugin exited: signal: killed", "running:"}
	if !slices.Equal(states, want) {
		t.Errorf("states = %q, want %q", states, want)
	}
}

func TestCrashDuringRequest(t *testing.T) {
	t.Parallel()
	opts, db, logs := testOptions(t)
	env := startEnv(t, opts, db, logs)
	oldPID := env.inst.PID()

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	status, body, err := env.do(ctx, http.MethodPost, "/crash/", "")
	if err != nil {
		t.Fatalf("crashing request not answered before the 1s deadline: %v", err)
	}
	if want := "chain T is restarting: plugin exited: exit status 3\n"; status != http.StatusServiceUnavailable || body != want {
		t.Errorf("crashing request = %d %q, want 503 %q", status, body, want)
	}
	waitRunning(t, env.inst, oldPID)
	if status, body := env.must(t, http.MethodPost, "/rpc/", "again"); status != http.StatusOK || body != "POST / again" {
		t.Errorf("request after restart = %d %q", status, body)
	}
}

func TestBackoffKeepsDown(t *testing.T) {
	t.Parallel()
	opts, db, logs := testOptions(t)
	opts.RestartBackoff = time.Hour // never restarts within the test
	env := startEnv(t, opts, db, logs)
	inst := env.inst
	pid := inst.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	plugintest.Eventually(t, 5*time.Second, func() error {
		if s, reason := inst.State(); s != Down {
			return fmt.Errorf("state %v (%s), want down", s, reason)
		}
		return nil
	})

	ctx := context.Background()
	if s, reason := inst.State(); s != Down || reason != "plugin exited: signal: killed" {
		t.Errorf("State = %s %q", s, reason)
	}
	if inst.PID() != 0 {
		t.Errorf("PID = %d while down, want 0", inst.PID())
	}
	if h := inst.Health(ctx); h.Healthy || h.Reason != "chain T is restarting: plugin exited: signal: killed" {
		t.Errorf("Health while down = %+v", h)
	}
	if _, err := inst.AcceptedCount(ctx, "block"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("AcceptedCount while down: %v, want ErrNotRunning", err)
	}
	// Remembered while down; the test of its use after restart is in
	// TestPluginLogs.
	if err := inst.SetLogLevel(ctx, "debug"); err != nil {
		t.Errorf("SetLogLevel while down: %v", err)
	}
	start := time.Now()
	if status, _ := env.must(t, http.MethodGet, "/rpc/", ""); status != http.StatusServiceUnavailable {
		t.Errorf("request while down = %d, want 503", status)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("request while down took %s", elapsed)
	}
	// Stop ends the pending restart at once.
	stopCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := inst.Stop(stopCtx); err != nil {
		t.Errorf("Stop while down: %v", err)
	}
	if s, _ := inst.State(); s != Stopped {
		t.Errorf("State after Stop = %s", s)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	opts, db, logs := testOptions(t)
	env := startEnv(t, opts, db, logs)
	ctx := context.Background()
	if h := env.inst.Health(ctx); !h.Healthy || h.Reason != "" {
		t.Errorf("Health = %+v, want healthy", h)
	}
	env.must(t, http.MethodPost, "/sick/", "database corrupt")
	if h := env.inst.Health(ctx); h.Healthy || !strings.Contains(h.Reason, "database corrupt") {
		t.Errorf("Health of a sick plugin = %+v", h)
	}
	if err := env.inst.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if h := env.inst.Health(ctx); h.Healthy || h.Reason != "chain T is stopped" {
		t.Errorf("Health after Stop = %+v", h)
	}
}

func TestAcceptedAndOnStart(t *testing.T) {
	t.Parallel()
	opts, db, logs := testOptions(t)
	var backfilled []host.Container
	opts.OnStart = func(ctx context.Context, inst *Instance) error {
		if s, _ := inst.State(); s != Starting {
			t.Errorf("state in OnStart = %s, want starting", s)
		}
		n, err := inst.AcceptedCount(ctx, "block")
		if err != nil {
			return err
		}
		for pos := range n {
			c, err := inst.GetAccepted(ctx, "block", pos)
			if err != nil {
				return err
			}
			backfilled = append(backfilled, c)
		}
		return nil
	}
	env := startEnv(t, opts, db, logs)
	if len(backfilled) != 2 || string(backfilled[0].Bytes) != "block 0" || string(backfilled[1].Bytes) != "block 1" ||
		backfilled[1].ID != sha256.Sum256([]byte("block 1")) {
		t.Errorf("backfilled %+v", backfilled)
	}
	ctx := context.Background()
	if _, err := env.inst.GetAccepted(ctx, "block", 7); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("GetAccepted past the end: %v, want host.ErrNotFound", err)
	}
	if _, err := env.inst.AcceptedCount(ctx, "vtx"); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("AcceptedCount of an unknown kind: %v, want host.ErrNotFound", err)
	}
}

func TestStop(t *testing.T) {
	// Not parallel: it counts goroutines.
	before := runtime.NumGoroutine()
	opts, _, logs := testOptions(t)
	ctx := context.Background()
	inst, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	h := inst.Handler("rpc", nil)
	pid := inst.PID()
	// Crash and restart once, so the old process is covered too.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, inst, pid)
	pid2 := inst.PID()

	if err := inst.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for _, p := range []int{pid, pid2} {
		if !processGone(p) {
			t.Errorf("process %d still exists after Stop", p)
		}
	}
	if err := inst.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if s, _ := inst.State(); s != Stopped {
		t.Errorf("State = %s, want stopped", s)
	}
	if inst.PID() != 0 {
		t.Errorf("PID = %d after Stop", inst.PID())
	}
	rec := newRecorder()
	h.ServeHTTP(rec, mustRequest(t))
	if rec.status != http.StatusServiceUnavailable {
		t.Errorf("request after Stop = %d, want 503", rec.status)
	}
	if !strings.Contains(logs.String(), "testplugin shutting down") {
		t.Error("the plugin was not asked to shut down")
	}
	plugintest.Eventually(t, 10*time.Second, func() error {
		if n := runtime.NumGoroutine(); n > before {
			return fmt.Errorf("%d goroutines, %d before", n, before)
		}
		return nil
	})
}

func TestPluginLogs(t *testing.T) {
	t.Parallel()
	opts, db, logs := testOptions(t)
	env := startEnv(t, opts, db, logs)
	ctx := context.Background()
	waitLogged(t, logs, "testplugin initialized")

	logged := func(marker string) map[string]bool {
		env.must(t, http.MethodPost, "/log/", marker)
		// The error line comes last; once it is there, the others are too.
		waitLogged(t, logs, marker+" at error")
		got := map[string]bool{}
		for _, l := range []string{"trace", "debug", "info", "warn", "error"} {
			got[l] = strings.Contains(logs.String(), marker+" at "+l)
		}
		return got
	}
	check := func(marker string, want map[string]bool) {
		t.Helper()
		got := logged(marker)
		for l, w := range want {
			if got[l] != w {
				t.Errorf("%s: line at %s logged = %v, want %v", marker, l, got[l], w)
			}
		}
	}
	check("m1", map[string]bool{"trace": false, "debug": false, "info": true, "error": true})
	waitLogged(t, logs, "m1 on stdout")
	if err := env.inst.SetLogLevel(ctx, "DEBUG"); err != nil {
		t.Fatal(err)
	}
	check("m2", map[string]bool{"trace": false, "debug": true, "info": true})
	if err := env.inst.SetLogLevel(ctx, "LOUD"); err == nil {
		t.Error("SetLogLevel(LOUD) succeeded")
	}

	// A restarted process gets the level set last.
	pid := env.inst.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, env.inst, pid)
	check("m3", map[string]bool{"trace": false, "debug": true, "info": true})
	if !strings.Contains(logs.String(), "plugin process exited, restarting") {
		t.Error("the restart was not logged")
	}
}

// recorder is a minimal http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(status int)      { r.status = status }

func mustRequest(t *testing.T) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://chainhost/", io.NopCloser(strings.NewReader("")))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestFailedRestartsBackOff(t *testing.T) {
	t.Parallel()
	opts, db, logs := testOptions(t)
	var mu sync.Mutex
	var pids []int
	var downs []string
	failures := 0
	opts.OnStart = func(_ context.Context, inst *Instance) error {
		mu.Lock()
		defer mu.Unlock()
		pids = append(pids, inst.PID())
		// Fail the first two restarts.
		if len(pids) == 2 || len(pids) == 3 {
			failures++
			return errors.New("index behind")
		}
		return nil
	}
	opts.OnStateChange = func(s State, reason string) {
		mu.Lock()
		defer mu.Unlock()
		if s == Down {
			downs = append(downs, reason)
		}
	}
	env := startEnv(t, opts, db, logs)
	first := env.inst.PID()
	killed := time.Now()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, env.inst, first)
	// Three attempts after 100, 200 and 400ms of backoff.
	if elapsed := time.Since(killed); elapsed < 700*time.Millisecond {
		t.Errorf("running again %s after the kill, want the backoff to double", elapsed)
	}
	if got := env.inst.Restarts(); got != 1 {
		t.Errorf("Restarts = %d, want 1 (failed attempts do not count)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pids) != 4 || failures != 2 {
		t.Fatalf("OnStart saw processes %v with %d failures, want 4 and 2", pids, failures)
	}
	for _, p := range pids[:3] {
		if !processGone(p) {
			t.Errorf("process %d of a failed or killed start is still there", p)
		}
	}
	want := []string{
		"plugin exited: signal: killed",
		"plugin exited: signal: killed; restart failed: on start: index behind",
		"plugin exited: signal: killed; restart failed: on start: index behind",
	}
	if !slices.Equal(downs, want) {
		t.Errorf("down reasons = %q, want %q", downs, want)
	}
}
