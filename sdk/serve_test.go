package sdk_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/chainhost/chainhost/internal/syncbuf"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/internal/memhost"
	"github.com/chainhost/chainhost/transport/grpcplugin"
	"github.com/chainhost/chainhost/transport/host/proxy"
)

// buildTinyVM builds testdata/tinyvm into a temporary binary.
func buildTinyVM(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the test plugin: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "tinyvm")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(goBin, "build", "-o", bin, "./testdata/tinyvm").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./testdata/tinyvm: %v\n%s", err, out)
	}
	return bin
}

// serveResultEnv names the file where tinyvm's main writes what Serve
// returned.
const serveResultEnv = "TINYVM_SERVE_RESULT"

// envWithout returns the process environment without the magic cookie,
// plus extra.
func envWithout(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, pluginv1.MagicCookieKey+"=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// run runs bin with args and env and returns stdout, stderr and exit code.
func run(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %s %v: %v", bin, args, err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

func TestPluginBinary(t *testing.T) {
	bin := buildTinyVM(t)

	t.Run("describe", func(t *testing.T) {
		stdout, stderr, code := run(t, bin, envWithout(), pluginv1.DescribeCommand)
		if code != 0 || stderr != "" {
			t.Fatalf("describe exited %d, stderr %q", code, stderr)
		}
		if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
			t.Errorf("describe printed %q, want one line of JSON", stdout)
		}
		var got pluginv1.Description
		dec := json.NewDecoder(strings.NewReader(stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("describe output %q: %v", stdout, err)
		}
		vmID, err := ids.FromName("tinyvm")
		if err != nil {
			t.Fatalf("VM ID: %v", err)
		}
		want := pluginv1.Description{Kind: pluginv1.KindVM, VMID: vmID.String(), Name: "tinyvm", Version: "1.2.3",
			Aliases: []string{"tiny"}, Protocols: []int{pluginv1.ProtocolVersion}}
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("describe = %+v, want %+v", got, want)
		}
	})

	t.Run("run by hand", func(t *testing.T) {
		tests := []struct {
			name string
			env  []string
			args []string
		}{
			{name: "no cookie", env: envWithout()},
			{name: "wrong cookie", env: envWithout(pluginv1.MagicCookieKey + "=nope")},
			{name: "other argument", env: envWithout(), args: []string{"--help"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				stdout, stderr, code := run(t, bin, tt.env, tt.args...)
				if code != 1 || stdout != "" {
					t.Errorf("exited %d with stdout %q, want 1 and nothing on stdout", code, stdout)
				}
				if strings.Count(stderr, "\n") != 1 {
					t.Errorf("stderr %q, want one line", stderr)
				}
				for _, want := range []string{"tinyvm is a chainhost plugin", "--plugin-dir", "tinyvm describe"} {
					if !strings.Contains(stderr, want) {
						t.Errorf("stderr %q lacks %q", stderr, want)
					}
				}
			})
		}
	})

	t.Run("served over go-plugin", func(t *testing.T) { testServed(t, bin) })
}

// testServed starts the binary the way the node does and talks to it.
func testServed(t *testing.T, bin string) {
	logs := &syncbuf.Buffer{}
	result := filepath.Join(t.TempDir(), "serve-result")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), serveResultEnv+"="+result)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  grpcplugin.Handshake(),
		VersionedPlugins: map[int]plugin.PluginSet{pluginv1.ProtocolVersion: {pluginv1.PluginName: &grpcplugin.Plugin{}}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		GRPCDialOptions:  grpcplugin.DialOptions(),
		Logger:           hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace}),
		Stderr:           io.Discard,
	})
	defer client.Kill()
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("start plugin: %v\n%s", err, logs)
	}
	raw, err := rpc.Dispense(pluginv1.PluginName)
	if err != nil {
		t.Fatalf("dispense: %v", err)
	}
	conn := raw.(*grpcplugin.Client)
	chainID := ids.ID{7}
	mem := memhost.New(memhost.Options{Self: host.ChainInfo{ID: chainID, Aliases: []string{"T"}}})
	hostSrv := grpcplugin.ServeHost(conn.Broker, mem.Services())

	dataDir := t.TempDir()
	resp, err := conn.Initialize(t.Context(), &pluginv1.InitializeRequest{
		HostBrokerId: hostSrv.ID, Kind: pluginv1.KindVM, ChainId: chainID.String(), Name: "T",
		DataDir: dataDir, LogLevel: "DEBUG",
	})
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, logs)
	}
	if got := strings.Join(resp.GetHandlers(), ","); got != "rpc" {
		t.Errorf("handlers = %q, want rpc", got)
	}

	srv := httptest.NewServer(proxy.NewHandler(proxy.Options{
		Handler: "rpc",
		Process: func() (proxy.Process, error) { return proxy.Process{Client: conn}, nil },
	}))
	defer srv.Close()
	httpResp, err := http.Get(srv.URL + "/x")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	body, _ := io.ReadAll(httpResp.Body)
	_ = httpResp.Body.Close()
	if httpResp.StatusCode != 200 || string(body) != "tiny:T:/x" {
		t.Errorf("GET /x = %d %q, want 200 tiny:T:/x", httpResp.StatusCode, body)
	}

	client.Kill()
	<-hostSrv.Done()
	if b, err := os.ReadFile(filepath.Join(dataDir, "shutdown")); err != nil || string(b) != "ok" {
		t.Errorf("Plugin.Shutdown did not run when the host stopped the plugin: %v", err)
	}
	// Serve returned nil to main, which went on to write it down.
	if b, err := os.ReadFile(result); err != nil || string(b) != "<nil>" {
		t.Errorf("main after Serve: %q, %v; want Serve to return <nil>", b, err)
	}
	// The plugin's JSON logs on stderr reached the host's logger, at the
	// level Initialize asked for.
	for _, want := range []string{"tinyvm initialized", "rpc request"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("host log lacks the plugin's %q:\n%s", want, logs)
		}
	}
}
