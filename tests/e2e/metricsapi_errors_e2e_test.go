package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
)

// hostErrorsConfig runs the data and metrics modules without rate limits.
const hostErrorsConfig = `
modules:
  - name: data
    plugin: dataapi
    config:
      rate-limit: {anonymous: {per-second: 0}}
  - name: metrics
    plugin: metricsapi
    config:
      rate-limit: {anonymous: {per-second: 0}}
`

// rawRequest sends a request and returns the answer's status and body as
// sent, the final newline removed.
func rawRequest(t *testing.T, ctx context.Context, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp.StatusCode, strings.TrimSuffix(string(b), "\n")
}

// waitOK polls GET url until it answers 200.
func waitOK(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		status, body := rawRequest(t, ctx, http.MethodGet, url, "")
		if status == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s = %d %s, want 200 within 60s", url, status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMetricsHostErrors: the errors the host answers for the metrics
// module on its v1 routes (413 for a body over http-max-body-size, 504
// when the module does not answer within plugin-request-timeout, 503
// while the killed module waits for its restart) carry `message` as an
// array of strings, as the module's own v1 errors do (docs/metrics-api.md, the
// module's messageArrayPrefixes); on its v2 routes and on the data API's
// they stay a string.
func TestMetricsHostErrors(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: hostErrorsConfig, Args: []string{
		"--http-max-body-size=4096", "--plugin-request-timeout=2s", "--plugin-restart-backoff=10s", "--plugin-restart-max-backoff=10s",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	v1 := n.URL + "/v1/avg_tps/C"
	v2 := n.URL + "/v2/networks/fuji/metrics/validatorCount"
	data := n.URL + "/v1/chains"
	for _, url := range []string{v1, v2, data} {
		waitOK(t, ctx, url)
	}
	check := func(what, method, url, body string, wantStatus int, want string) {
		t.Helper()
		if status, got := rawRequest(t, ctx, method, url, body); status != wantStatus || got != want {
			t.Errorf("%s: %s %s = %d %s, want %d %s", what, method, url, status, got, wantStatus, want)
		}
	}

	big := strings.Repeat(" ", 4097)
	check("413", http.MethodPost, v1, big, http.StatusRequestEntityTooLarge,
		`{"message":["request body too large: 4097 bytes, limit 4096"],"statusCode":413,"error":"Request Entity Too Large"}`)
	check("413", http.MethodPost, v2, big, http.StatusRequestEntityTooLarge,
		`{"message":"request body too large: 4097 bytes, limit 4096","statusCode":413,"error":"Request Entity Too Large"}`)
	check("413", http.MethodPost, data, big, http.StatusRequestEntityTooLarge,
		`{"message":"request body too large: 4097 bytes, limit 4096","statusCode":413,"error":"Request Entity Too Large"}`)
	check("dot segment", http.MethodGet, n.URL+"/v1/avg_tps/%2e%2e/C", "", http.StatusBadRequest,
		`{"message":["path \"/v1/avg_tps/../C\" has a \"..\" segment: send the path with it resolved"],"statusCode":400,"error":"Bad Request"}`)

	// A stopped process answers nothing: 504 once the timeout passes.
	pid := nodetest.PluginPID(t, n, "metricsapi")
	nodetest.Suspend(t, pid)
	check("504", http.MethodGet, v1, "", http.StatusGatewayTimeout,
		`{"message":["plugin did not answer in time: handler module: no answer within 2s"],"statusCode":504,"error":"Gateway Timeout"}`)
	check("504", http.MethodGet, v2, "", http.StatusGatewayTimeout,
		`{"message":"plugin did not answer in time: handler module: no answer within 2s","statusCode":504,"error":"Gateway Timeout"}`)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitOK(t, ctx, v1)

	// Killed: 503 at once, for the 10 s of the restart backoff.
	for _, name := range []string{"metricsapi", "dataapi"} {
		if err := syscall.Kill(nodetest.PluginPID(t, n, name), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	check("503", http.MethodGet, v1, "", http.StatusServiceUnavailable,
		`{"message":["module metrics is restarting: plugin exited: signal: killed"],"statusCode":503,"error":"Service Unavailable"}`)
	check("503", http.MethodGet, v2, "", http.StatusServiceUnavailable,
		`{"message":"module metrics is restarting: plugin exited: signal: killed","statusCode":503,"error":"Service Unavailable"}`)
	check("503", http.MethodGet, data, "", http.StatusServiceUnavailable,
		`{"message":"module data is restarting: plugin exited: signal: killed","statusCode":503,"error":"Service Unavailable"}`)
	for _, url := range []string{v1, v2, data} {
		waitOK(t, ctx, url)
	}
}
