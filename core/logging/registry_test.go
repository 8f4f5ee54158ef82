package logging

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chainhost/chainhost/sdk/loglevel"

	"github.com/hashicorp/go-hclog"
)

// newTestRegistry returns a registry writing files to a temp dir and the
// display to the returned buffer.
func newTestRegistry(t *testing.T, logLevel, displayLevel loglevel.Level) (*Registry, string, *bytes.Buffer) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "logs")
	var display bytes.Buffer
	r, err := NewRegistry(Options{Dir: dir, Display: &display, LogLevel: logLevel, DisplayLevel: displayLevel})
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r, dir, &display
}

type jsonLine struct {
	Level   string `json:"@level"`
	Message string `json:"@message"`
	Module  string `json:"@module"`
}

// fileLines parses the JSON lines of <dir>/<name>.log.
func fileLines(t *testing.T, dir, name string) []jsonLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatalf("read log file: %v", err)
	}
	var lines []jsonLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var l jsonLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log file line %q is not JSON: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

func fileMessages(t *testing.T, dir, name string) []string {
	t.Helper()
	var msgs []string
	for _, l := range fileLines(t, dir, name) {
		msgs = append(msgs, l.Message)
	}
	return msgs
}

// displayMessages returns the messages found on the display, in the order
// of the candidates given.
func displayMessages(display string, candidates ...string) []string {
	var found []string
	for _, c := range candidates {
		if strings.Contains(display, c) {
			found = append(found, c)
		}
	}
	return found
}

// logAll writes one line per hclog level; each message names its level.
func logAll(l hclog.Logger) []string {
	l.Trace("msg-trace")
	l.Debug("msg-debug")
	l.Info("msg-info")
	l.Warn("msg-warn")
	l.Error("msg-error")
	return []string{"msg-trace", "msg-debug", "msg-info", "msg-warn", "msg-error"}
}

func TestLevelsFilterEachSink(t *testing.T) {
	tests := []struct {
		name             string
		log, display     loglevel.Level
		wantFile, wantDp []string
	}{
		{"verbo file, off display", loglevel.Verbo, loglevel.Off, []string{"msg-trace", "msg-debug", "msg-info", "msg-warn", "msg-error"}, nil},
		{"trace filters like debug", loglevel.Trace, loglevel.Warn, []string{"msg-debug", "msg-info", "msg-warn", "msg-error"}, []string{"msg-warn", "msg-error"}},
		{"info file, debug display", loglevel.Info, loglevel.Debug, []string{"msg-info", "msg-warn", "msg-error"}, []string{"msg-debug", "msg-info", "msg-warn", "msg-error"}},
		{"fatal filters like error", loglevel.Fatal, loglevel.Error, []string{"msg-error"}, []string{"msg-error"}},
		{"off file, verbo display", loglevel.Off, loglevel.Verbo, nil, []string{"msg-trace", "msg-debug", "msg-info", "msg-warn", "msg-error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir, display := newTestRegistry(t, tt.log, tt.display)
			all := logAll(r.Get("C"))

			if got := fileMessages(t, dir, "C"); !slices.Equal(got, tt.wantFile) {
				t.Errorf("file messages = %v, want %v", got, tt.wantFile)
			}
			if got := displayMessages(display.String(), all...); !slices.Equal(got, tt.wantDp) {
				t.Errorf("display messages = %v, want %v\ndisplay:\n%s", got, tt.wantDp, display)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	r, dir, display := newTestRegistry(t, loglevel.Info, loglevel.Info)
	r.Get("X").Named("vm").Info("accepted block", "height", 7)

	lines := fileLines(t, dir, "X")
	if len(lines) != 1 {
		t.Fatalf("file has %d lines, want 1", len(lines))
	}
	want := jsonLine{Level: "info", Message: "accepted block", Module: "X.vm"}
	if lines[0] != want {
		t.Errorf("file line = %+v, want %+v", lines[0], want)
	}
	if got := display.String(); !strings.Contains(got, "[INFO]  X.vm: accepted block: height=7") {
		t.Errorf("display = %q, want hclog text with the logger name", got)
	}
	if strings.HasPrefix(strings.TrimSpace(display.String()), "{") {
		t.Errorf("display is JSON, want text: %q", display)
	}
}

func TestSetLevelsReachesLoggersHandedOut(t *testing.T) {
	errorLvl, verbo := loglevel.Error, loglevel.Verbo
	tests := []struct {
		name        string
		target      string
		log         *loglevel.Level
		display     *loglevel.Level
		wantFile    []string // messages the "C" child writes to its file after the change
		wantDisplay []string // messages the "C" child writes to the display after the change
		wantOther   LevelPair
	}{
		{"log level of one", "C", &verbo, nil, []string{"msg-trace", "msg-debug", "msg-info", "msg-warn", "msg-error"}, []string{"msg-info", "msg-warn", "msg-error"}, LevelPair{loglevel.Info, loglevel.Info}},
		{"display level of one", "C", nil, &errorLvl, []string{"msg-info", "msg-warn", "msg-error"}, []string{"msg-error"}, LevelPair{loglevel.Info, loglevel.Info}},
		{"both for all", "", &errorLvl, &verbo, []string{"msg-error"}, []string{"msg-trace", "msg-debug", "msg-info", "msg-warn", "msg-error"}, LevelPair{loglevel.Error, loglevel.Verbo}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir, display := newTestRegistry(t, loglevel.Info, loglevel.Info)
			child := r.Get("C").Named("sub").With("k", "v")
			r.Get("main")

			if err := r.SetLevels(tt.target, tt.log, tt.display); err != nil {
				t.Fatalf("SetLevels: %v", err)
			}
			all := logAll(child)

			if got := fileMessages(t, dir, "C"); !slices.Equal(got, tt.wantFile) {
				t.Errorf("file messages = %v, want %v", got, tt.wantFile)
			}
			if got := displayMessages(display.String(), all...); !slices.Equal(got, tt.wantDisplay) {
				t.Errorf("display messages = %v, want %v", got, tt.wantDisplay)
			}
			other, err := r.Levels("main")
			if err != nil {
				t.Fatalf("Levels(main): %v", err)
			}
			if other != tt.wantOther {
				t.Errorf("levels of main = %+v, want %+v", other, tt.wantOther)
			}
		})
	}
}

func TestSetLevelsForAllSetsDefaults(t *testing.T) {
	r, _, _ := newTestRegistry(t, loglevel.Info, loglevel.Info)
	warn := loglevel.Warn
	if err := r.SetLevels("", &warn, nil); err != nil {
		t.Fatalf("SetLevels: %v", err)
	}
	r.Get("later")
	got, err := r.Levels("later")
	if err != nil {
		t.Fatalf("Levels: %v", err)
	}
	if want := (LevelPair{loglevel.Warn, loglevel.Info}); got != want {
		t.Errorf("levels of a logger created after SetLevels(\"\") = %+v, want %+v", got, want)
	}
}

func TestSetLevelsErrors(t *testing.T) {
	info, bad := loglevel.Info, loglevel.Level(42)
	tests := []struct {
		name         string
		target       string
		log, display *loglevel.Level
		wantErr      string
	}{
		{"unknown name", "nosuch", &info, nil, `"nosuch"`},
		{"both nil", "main", nil, nil, "neither"},
		{"both nil for all", "", nil, nil, "neither"},
		{"invalid level", "main", &bad, nil, "invalid level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, _ := newTestRegistry(t, loglevel.Info, loglevel.Info)
			r.Get("main")
			var calls int
			r.OnChange(func(string, LevelPair) { calls++ })

			err := r.SetLevels(tt.target, tt.log, tt.display)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("SetLevels error = %v, want one containing %q", err, tt.wantErr)
			}
			if calls != 0 {
				t.Errorf("observer called %d times after a failed SetLevels", calls)
			}
			if got, _ := r.Levels("main"); got != (LevelPair{loglevel.Info, loglevel.Info}) {
				t.Errorf("levels changed by a failed SetLevels: %+v", got)
			}
		})
	}
}

func TestLevelsUnknownName(t *testing.T) {
	r, _, _ := newTestRegistry(t, loglevel.Info, loglevel.Info)
	if _, err := r.Levels("P"); err == nil || !strings.Contains(err.Error(), `"P"`) {
		t.Errorf("Levels(unknown) error = %v, want one naming \"P\"", err)
	}
}

func TestNamesAndAll(t *testing.T) {
	r, _, _ := newTestRegistry(t, loglevel.Info, loglevel.Warn)
	for _, n := range []string{"main", "X", "C", "data-api", "C"} {
		r.Get(n)
	}
	r.PluginLogger("evm")
	debug := loglevel.Debug
	if err := r.SetLevels("X", &debug, nil); err != nil {
		t.Fatal(err)
	}

	if got, want := r.Names(), []string{"C", "X", "data-api", "evm", "main"}; !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	all := r.All()
	want := map[string]LevelPair{
		"C": {loglevel.Info, loglevel.Warn}, "X": {loglevel.Debug, loglevel.Warn}, "data-api": {loglevel.Info, loglevel.Warn}, "evm": {loglevel.Info, loglevel.Warn}, "main": {loglevel.Info, loglevel.Warn},
	}
	if len(all) != len(want) {
		t.Errorf("All has %d entries, want %d: %v", len(all), len(want), all)
	}
	for n, p := range want {
		if all[n] != p {
			t.Errorf("All()[%s] = %+v, want %+v", n, all[n], p)
		}
	}
}

func TestOnChange(t *testing.T) {
	r, _, _ := newTestRegistry(t, loglevel.Info, loglevel.Info)
	r.Get("main")
	r.Get("C")
	type call struct {
		name string
		p    LevelPair
	}
	var calls []call
	r.OnChange(func(name string, p LevelPair) {
		// Observers may read the registry while being notified.
		if got, err := r.Levels(name); err != nil || got != p {
			t.Errorf("inside observer Levels(%s) = %+v, %v; want %+v", name, got, err, p)
		}
		calls = append(calls, call{name, p})
	})

	debug, off := loglevel.Debug, loglevel.Off
	if err := r.SetLevels("C", &debug, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.SetLevels("", nil, &off); err != nil {
		t.Fatal(err)
	}
	want := []call{
		{"C", LevelPair{loglevel.Debug, loglevel.Info}},
		{"C", LevelPair{loglevel.Debug, loglevel.Off}},
		{"main", LevelPair{loglevel.Info, loglevel.Off}},
	}
	if !slices.Equal(calls, want) {
		t.Errorf("observer calls = %+v, want %+v", calls, want)
	}
}

func TestGetLevelReportsMostVerbose(t *testing.T) {
	tests := []struct {
		log, display loglevel.Level
		want         hclog.Level
	}{
		{loglevel.Info, loglevel.Warn, hclog.Info},
		{loglevel.Error, loglevel.Debug, hclog.Debug},
		{loglevel.Verbo, loglevel.Off, hclog.Trace},
		{loglevel.Off, loglevel.Off, hclog.Off},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.log, tt.display), func(t *testing.T) {
			r, _, _ := newTestRegistry(t, loglevel.Info, loglevel.Info)
			l := r.Get("main")
			child := l.Named("child")
			if err := r.SetLevels("main", &tt.log, &tt.display); err != nil {
				t.Fatal(err)
			}
			if got := l.GetLevel(); got != tt.want {
				t.Errorf("GetLevel = %s, want %s", got, tt.want)
			}
			if got := child.GetLevel(); got != tt.want {
				t.Errorf("child GetLevel = %s, want %s", got, tt.want)
			}
			if got, want := l.IsDebug(), tt.want <= hclog.Debug; got != want {
				t.Errorf("IsDebug = %v, want %v", got, want)
			}
		})
	}
}

func TestPluginLogger(t *testing.T) {
	r, dir, display := newTestRegistry(t, loglevel.Warn, loglevel.Error)
	pl := r.PluginLogger("evm")
	// go-plugin's Client.logStderr derives a sub-logger and reads its level once.
	sub := pl.Named("evm-plugin")

	for _, l := range []hclog.Logger{pl, sub} {
		if got := l.GetLevel(); got != hclog.Trace {
			t.Errorf("%s GetLevel = %s, want trace", l.Name(), got)
		}
	}
	all := logAll(sub)
	if got, want := fileMessages(t, dir, "evm"), []string{"msg-warn", "msg-error"}; !slices.Equal(got, want) {
		t.Errorf("file messages = %v, want %v", got, want)
	}
	if got, want := displayMessages(display.String(), all...), []string{"msg-error"}; !slices.Equal(got, want) {
		t.Errorf("display messages = %v, want %v", got, want)
	}

	// A later change applies to lines the plugin writes afterwards.
	verbo := loglevel.Verbo
	if err := r.SetLevels("evm", &verbo, nil); err != nil {
		t.Fatal(err)
	}
	sub.Trace("late-trace")
	if got := fileMessages(t, dir, "evm"); !slices.Contains(got, "late-trace") {
		t.Errorf("file messages = %v, want late-trace after raising verbosity", got)
	}
	if got := r.Get("evm").GetLevel(); got != hclog.Trace {
		t.Errorf("plain logger GetLevel after VERBO = %s, want trace", got)
	}
}

func TestSetLevelOnLoggerIsIgnored(t *testing.T) {
	r, _, _ := newTestRegistry(t, loglevel.Info, loglevel.Info)
	l := r.Get("main")
	l.SetLevel(hclog.Trace)
	if got, _ := r.Levels("main"); got != (LevelPair{loglevel.Info, loglevel.Info}) {
		t.Errorf("levels after hclog SetLevel = %+v, want unchanged", got)
	}
	if got := l.GetLevel(); got != hclog.Info {
		t.Errorf("GetLevel after hclog SetLevel = %s, want info", got)
	}
}

func TestStandardLoggerFilters(t *testing.T) {
	r, dir, _ := newTestRegistry(t, loglevel.Warn, loglevel.Off)
	std := r.Get("main").StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})
	std.Print("[INFO] std-info")
	std.Print("[ERROR] std-error")
	if got, want := fileMessages(t, dir, "main"), []string{"std-error"}; !slices.Equal(got, want) {
		t.Errorf("file messages = %v, want %v", got, want)
	}
}

func TestUnsafeNames(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{"../escape", "_._escape"},
		{"a/b", "a_b"},
		{"..", "_."},
		{"", "_"},
		{".hidden", "_hidden"},
		{`c:\x`, "c__x"},
		{"C-chain.v2", "C-chain.v2"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			r, dir, _ := newTestRegistry(t, loglevel.Info, loglevel.Off)
			r.Get(tt.name).Info("hello")

			if got := r.Names(); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("Names = %v, want [%s]", got, tt.want)
			}
			if got := fileMessages(t, dir, tt.want); !slices.Equal(got, []string{"hello"}) {
				t.Errorf("file %s.log messages = %v, want [hello]", tt.want, got)
			}
			entries, err := os.ReadDir(filepath.Dir(dir))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("files beside the log dir: %d, want only the log dir", len(entries))
			}
			if _, err := r.Levels(tt.name); err != nil {
				t.Errorf("Levels(%q): %v", tt.name, err)
			}
		})
	}
}

func TestNoDirAndDefaultDisplay(t *testing.T) {
	r, err := NewRegistry(Options{LogLevel: loglevel.Info, DisplayLevel: loglevel.Off})
	if err != nil {
		t.Fatal(err)
	}
	r.Get("main").Info("nowhere")
	if got := r.Get("main").GetLevel(); got != hclog.Info {
		t.Errorf("GetLevel = %s, want info", got)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestInvalidDefaults(t *testing.T) {
	if _, err := NewRegistry(Options{LogLevel: loglevel.Level(-1)}); err == nil {
		t.Error("NewRegistry accepted an invalid default level")
	}
}

func TestCloseDropsFileLines(t *testing.T) {
	dir := t.TempDir()
	var display bytes.Buffer
	r, err := NewRegistry(Options{Dir: dir, Display: &display, LogLevel: loglevel.Info, DisplayLevel: loglevel.Info})
	if err != nil {
		t.Fatal(err)
	}
	l := r.Get("main")
	l.Info("before")
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	l.Info("after")
	r.Get("new").Info("new-after")

	if got := fileMessages(t, dir, "main"); !slices.Equal(got, []string{"before"}) {
		t.Errorf("file messages = %v, want [before]", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.log")); !os.IsNotExist(err) {
		t.Errorf("a logger created after Close opened a file: %v", err)
	}
	if !strings.Contains(display.String(), "after") {
		t.Errorf("display lost lines after Close: %q", display.String())
	}
}

func TestLevelPair(t *testing.T) {
	p := LevelPair{LogLevel: loglevel.Info, DisplayLevel: loglevel.Trace}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"logLevel":"INFO","displayLevel":"TRACE"}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	var back LevelPair
	if err := json.Unmarshal([]byte(`{"logLevel":"warn","displayLevel":"Verbo"}`), &back); err != nil {
		t.Fatal(err)
	}
	if back != (LevelPair{loglevel.Warn, loglevel.Verbo}) {
		t.Errorf("unmarshalled %+v", back)
	}
	if p.Min() != loglevel.Trace || (LevelPair{loglevel.Off, loglevel.Error}).Min() != loglevel.Error {
		t.Errorf("Min wrong: %s, %s", p.Min(), LevelPair{loglevel.Off, loglevel.Error}.Min())
	}
}

func TestConcurrentUse(t *testing.T) {
	r, dir, _ := newTestRegistry(t, loglevel.Info, loglevel.Info)
	names := []string{"main", "C", "X", "P"}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := names[i%len(names)]
			l := r.Get(name).Named("w")
			pl := r.PluginLogger(name)
			for j := range 200 {
				l.Info("line", "j", j)
				pl.Debug("plugin line")
				_ = l.GetLevel()
				_ = r.All()
				_ = r.Names()
			}
		})
	}
	r.OnChange(func(string, LevelPair) {})
	levels := []loglevel.Level{loglevel.Verbo, loglevel.Info, loglevel.Error}
	for i := range 4 {
		wg.Go(func() {
			for j := range 100 {
				lv := levels[(i+j)%len(levels)]
				target := ""
				if j%2 == 0 {
					target = names[j%len(names)]
					r.Get(target)
				}
				if err := r.SetLevels(target, &lv, &lv); err != nil {
					t.Errorf("SetLevels: %v", err)
				}
			}
		})
	}
	wg.Wait()

	info := loglevel.Info
	if err := r.SetLevels("", &info, &info); err != nil {
		t.Fatal(err)
	}
	r.Get("main").Info("final")
	if got := fileMessages(t, dir, "main"); got[len(got)-1] != "final" {
		t.Errorf("last file line = %q, want final", got[len(got)-1])
	}
}
