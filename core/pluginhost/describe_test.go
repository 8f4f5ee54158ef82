package pluginhost

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// writeScript writes an executable shell script (or, with mode 0o644, a
// plain file) and returns its path.
func writeScript(t *testing.T, body string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plugin")
	plugintest.WriteExecutable(t, path, []byte("#!/bin/sh\n"+body+"\n"), mode)
	return path
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	good, err := Describe(context.Background(), testPluginPath)
	if err != nil {
		t.Fatalf("Describe(test plugin): %v", err)
	}
	if good.Kind != pluginv1.KindVM || good.Name != "testvm" || good.Version != "v0.0.1" || good.VMID == "" ||
		len(good.Aliases) != 1 || good.Aliases[0] != "test" || len(good.Protocols) == 0 {
		t.Errorf("Describe(test plugin) = %+v", good)
	}

	// A binary of the previous protocol version describes itself as such.
	for _, protocols := range []string{"[1]", "[2]", "[1,2]", "[1,3]"} {
		path := writeScript(t, `echo '{"kind":"module","name":"m","protocols":`+protocols+`}'`, 0o755)
		if _, err := Describe(context.Background(), path); err != nil {
			t.Errorf("Describe of a plugin speaking %s: %v", protocols, err)
		}
	}

	tests := []struct {
		name    string
		path    string
		timeout time.Duration
		want    []string // substrings of the error
	}{
		{
			name: "shell script that is not a plugin",
			path: writeScript(t, `echo "usage: foo [flags]"; echo more`, 0o755),
			want: []string{"not a chainhost plugin", `"usage: foo [flags]"`},
		},
		{
			name: "script that fails",
			path: writeScript(t, `echo "unknown command describe" >&2; exit 2`, 0o755),
			want: []string{"not a chainhost plugin", "exited with exit status 2", "unknown command describe"},
		},
		{
			name: "prints nothing",
			path: writeScript(t, `exit 0`, 0o755),
			want: []string{"not a chainhost plugin", "printed nothing"},
		},
		{
			name: "not executable",
			path: writeScript(t, `echo '{}'`, 0o644),
			want: []string{"not executable", "permission denied"},
		},
		{
			name: "missing",
			path: filepath.Join(t.TempDir(), "missing"),
			want: []string{"no such file"},
		},
		{
			name: "unknown kind",
			path: writeScript(t, `echo '{"kind":"db","name":"x","protocols":[1]}'`, 0o755),
			want: []string{"not a chainhost plugin", `kind "db"`},
		},
		{
			name: "no name",
			path: writeScript(t, `echo '{"kind":"vm","protocols":[1]}'`, 0o755),
			want: []string{"no name"},
		},
		{
			name: "no common protocol",
			path: writeScript(t, `echo '{"kind":"module","name":"m","protocols":[98,99]}'`, 0o755),
			want: []string{"speaks protocol versions [98 99]", "this host speaks [2 1]"},
		},
		{
			name: "bad module prefix",
			path: writeScript(t, `echo '{"kind":"module","name":"m","protocols":[1],"prefixes":["/ext/bc"]}'`, 0o755),
			want: []string{"plugin m", `path prefix "/ext/bc"`, "/ext is the host's"},
		},
		{
			name: "VM with prefixes",
			path: writeScript(t, `echo '{"kind":"vm","name":"v","protocols":[1],"prefixes":["/v1/x"]}'`, 0o755),
			want: []string{"plugin v: a vm declares no path prefixes"},
		},
		{
			name:    "no answer in time",
			path:    writeScript(t, `exec sleep 10`, 0o755),
			timeout: 200 * time.Millisecond,
			want:    []string{"no answer", "deadline"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			start := time.Now()
			d, err := Describe(ctx, tt.path)
			if err == nil {
				t.Fatalf("Describe = %+v, want an error", d)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name the binary", err)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("Describe took %s", elapsed)
			}
		})
	}
}

func TestDescribeModule(t *testing.T) {
	t.Parallel()
	path := writeScript(t, `echo '{"kind":"module","name":"data","version":"1","protocols":[1],"prefixes":["/v1/chains"],"messageArrayPrefixes":["/v1"],"future":true}'`, 0o755)
	d, err := Describe(context.Background(), path)
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	if d.Kind != pluginv1.KindModule || d.Name != "data" || d.Version != "1" || !slices.Equal(d.Prefixes, []string{"/v1/chains"}) ||
		!slices.Equal(d.MessageArrayPrefixes, []string{"/v1"}) {
		t.Errorf("Describe = %+v", d)
	}
	bad := writeScript(t, `echo '{"kind":"module","name":"data","version":"1","protocols":[1],"prefixes":["/v1/chains"],"messageArrayPrefixes":["v1"]}'`, 0o755)
	if d, err := Describe(context.Background(), bad); err == nil || !strings.Contains(err.Error(), `path prefix "v1": must start with /`) {
		t.Errorf("Describe of a bad message array prefix = %+v, %v", d, err)
	}
}

// TestRunningDescription: a process of protocol version 2 is what the
// description of its InitializeResponse says, which must name the kind,
// name and VM ID its binary described; one of version 1 sends none and is
// what its binary described.
func TestRunningDescription(t *testing.T) {
	described := pluginv1.Description{Kind: pluginv1.KindVM, Name: "kv", VMID: "id", Version: "0.1.0", Protocols: []int{1}}
	tests := []struct {
		name    string
		version int
		raw     string
		want    string // the version recorded, or a piece of the error
		fails   bool
	}{
		{name: "protocol 1", version: 1, want: "0.1.0"},
		{name: "protocol 1 sending one anyway", version: 1, raw: `{"kind":"vm","name":"kv","vmID":"id","version":"9","protocols":[2]}`, want: "0.1.0"},
		{name: "protocol 2", version: 2, raw: `{"kind":"vm","name":"kv","vmID":"id","version":"0.2.0","protocols":[2]}`, want: "0.2.0"},
		{name: "protocol 2 sending none", version: 2, fails: true, want: "speaks protocol version 2 but sent no description"},
		{name: "not JSON", version: 2, raw: `kv`, fails: true, want: `the description it sent: not a chainhost plugin: it printed "kv"`},
		{name: "another name", version: 2, raw: `{"kind":"vm","name":"other","vmID":"id","protocols":[2]}`, fails: true, want: `runs as vm "other" (vmID "id"), but its binary describes vm "kv"`},
		{name: "another VM ID", version: 2, raw: `{"kind":"vm","name":"kv","vmID":"id2","protocols":[2]}`, fails: true, want: `(vmID "id2")`},
		{name: "another kind", version: 2, raw: `{"kind":"module","name":"kv","protocols":[2]}`, fails: true, want: `runs as module "kv"`},
		{name: "no protocol the host speaks", version: 2, raw: `{"kind":"vm","name":"kv","vmID":"id","protocols":[7]}`, fails: true, want: "this host speaks [2 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := runningDescription(tt.version, described, []byte(tt.raw))
			switch {
			case tt.fails && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("runningDescription = %+v, %v; want an error with %q", d, err, tt.want)
			case !tt.fails && (err != nil || d.Version != tt.want):
				t.Errorf("runningDescription = %+v, %v; want version %s", d, err, tt.want)
			}
		})
	}
}
