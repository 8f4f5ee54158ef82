package e2e

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/nodetest"
)

// TestTLSAndCORS: with a certificate and key the node serves HTTPS (its
// banner says so), and with an allowed origin in the environment browsers
// of that origin get CORS headers, others none.
func TestTLSAndCORS(t *testing.T) {
	t.Parallel()
	cert, key, pool := nodetest.SelfSignedCert(t)
	n := nodetest.Start(t, nodetest.Options{
		Config: "modules: []\n",
		Args:   []string{"--http-tls-cert-file=" + cert, "--http-tls-key-file=" + key},
		Env:    []string{"CHAINHOST_HTTP_CORS_ALLOWED_ORIGINS=https://app.example,https://ops.example"},
	})
	if !strings.HasPrefix(n.URL, "https://") {
		t.Fatalf("node URL %s, want https", n.URL)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, tc := range []struct{ origin, want string }{
		{"https://ops.example", "https://ops.example"},
		{"https://evil.example", ""},
	} {
		req, _ := http.NewRequest(http.MethodPost, n.URL+"/ext/info", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", tc.origin)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"networkID":"12345"`) {
			t.Fatalf("info over HTTPS: %d %s", resp.StatusCode, body)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tc.want {
			t.Errorf("origin %s: Access-Control-Allow-Origin %q, want %q", tc.origin, got, tc.want)
		}
	}
}
