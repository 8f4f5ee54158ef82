package host_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/sdk/host"
)

// TestChainTransportRefuses: a request that no chain call can carry (not a
// POST, or a path that names no chain handler) fails before any call,
// saying why.
func TestChainTransportRefuses(t *testing.T) {
	for _, tc := range []struct {
		method, url, want string
	}{
		{http.MethodGet, host.ChainURL("C", "rpc"), "only POST is carried, not GET"},
		{http.MethodPost, "http://chainhost/ext/bc/C", `path "/ext/bc/C" does not name a chain handler`},
		{http.MethodPost, "http://chainhost/ext/bc//rpc", `path "/ext/bc//rpc" does not name a chain handler`},
		{http.MethodPost, "http://chainhost/rpc", `path "/rpc" does not name a chain handler`},
	} {
		req, err := http.NewRequest(tc.method, tc.url, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = host.ChainTransport{}.RoundTrip(req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want %q", tc.method, tc.url, err, tc.want)
		}
	}
}
