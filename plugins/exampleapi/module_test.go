package exampleapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/sdk/rest"
)

var (
	evmChain = host.ChainInfo{ID: ids.ID{1}, VMName: evmapi.VMName, Aliases: []string{"C"}, IndexKinds: []string{"block"},
		Handlers: []string{"rpc"}, InternalHandlers: []string{evmapi.IndexerHandler}, Running: true}
	kvChain = host.ChainInfo{ID: ids.ID{2}, VMName: "example", Aliases: []string{"kv", "example"}, IndexKinds: []string{"block"},
		Handlers: []string{"rpc"}, Running: true}
)

// start runs the module over plugintest with the two chains; the EVM's
// indexer handler answers eth_blockNumber with 42.
func start(t *testing.T, config string) *plugintest.Harness {
	t.Helper()
	return plugintest.StartModule(t, New(), plugintest.Options{
		Name:   "exampleapi",
		Config: []byte(config),
		Chains: []host.ChainInfo{evmChain, kvChain},
		Call: func(_ context.Context, c host.ChainInfo, handlerPath string, body []byte) (int, []byte, error) {
			if c.ID != evmChain.ID || handlerPath != evmapi.IndexerHandler || !strings.Contains(string(body), "eth_blockNumber") {
				return 0, nil, fmt.Errorf("unexpected call %s/%s %s", c.Aliases[0], handlerPath, body)
			}
			return 200, []byte(`{"jsonrpc":"2.0","id":1,"result":"0x2a"}`), nil
		},
	})
}

// get GETs a path of the module: status, headers and body.
func get(t *testing.T, h *plugintest.Harness, path string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(h.ModuleURL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// restError decodes a REST error body, failing unless it has status.
func restError(t *testing.T, what string, status int, body []byte, want int) string {
	t.Helper()
	var e rest.ErrorBody
	if err := json.Unmarshal(body, &e); err != nil || status != want || e.StatusCode != want || e.Error != rest.StatusName(want) {
		t.Fatalf("%s = %d %s, want the REST body of %d", what, status, body, want)
	}
	msg, _ := e.Message.(string)
	return msg
}

func TestChains(t *testing.T) {
	h := start(t, `{}`)
	status, _, body := get(t, h, "/v1/example/chains")
	var got struct {
		Chains []Chain `json:"chains"`
	}
	if err := json.Unmarshal(body, &got); status != 200 || err != nil || len(got.Chains) != 2 ||
		got.Chains[0].Name != "C" || got.Chains[1].Name != "kv" || !got.Chains[1].Running {
		t.Fatalf("GET /chains = %d %s", status, body)
	}
	// The watch sees the chain stop.
	stopped := kvChain
	stopped.Running = false
	h.SetChain(stopped)
	plugintest.Eventually(t, 10*time.Second, func() error {
		_, _, body = get(t, h, "/v1/example/chains")
		if !strings.Contains(string(body), `"name":"kv","aliases":["kv","example"],"vmName":"example","running":false`) {
			return fmt.Errorf("the stop of kv is not seen: %s", body)
		}
		return nil
	})
	details, err := h.HealthDetails(t.Context())
	if err != nil || details["chains"] != 2.0 || details["running"] != 1.0 {
		t.Errorf("HealthDetails = %v, %v; want 2 chains, 1 running", details, err)
	}
}

func TestContainersPages(t *testing.T) {
	h := start(t, `{}`)
	for i := range 25 {
		h.AppendContainer(kvChain.ID, "block", ids.ID{byte(i + 1)}, []byte(strings.Repeat("x", i)))
	}
	var seen []uint64
	token := ""
	for page := 0; ; page++ {
		path := "/v1/example/chains/example/containers?pageSize=10"
		if token != "" {
			path += "&pageToken=" + token
		}
		status, _, body := get(t, h, path)
		var p containersPage
		if err := json.Unmarshal(body, &p); status != 200 || err != nil {
			t.Fatalf("page %d = %d %s", page, status, body)
		}
		for _, c := range p.Containers {
			if c.Size != int(c.Index) || c.ID != (ids.ID{byte(c.Index + 1)}).String() {
				t.Errorf("container %+v", c)
			}
			seen = append(seen, c.Index)
		}
		if p.NextPageToken == "" {
			break
		}
		token = p.NextPageToken
	}
	if len(seen) != 25 || seen[0] != 0 || seen[24] != 24 {
		t.Errorf("pages held %v, want 0..24", seen)
	}
	tampered := []byte(token)
	tampered[len(tampered)/2] ^= 1
	for _, tc := range []struct{ what, path string }{
		{"a tampered token", "/v1/example/chains/kv/containers?pageToken=" + string(tampered)},
		{"a token of another chain", "/v1/example/chains/C/containers?pageToken=" + token},
		{"a truncated token", "/v1/example/chains/kv/containers?pageToken=" + token[:len(token)-4]},
	} {
		status, _, body := get(t, h, tc.path)
		if msg := restError(t, tc.what, status, body, 400); !strings.Contains(msg, "pageToken") {
			t.Errorf("%s: message %q does not name pageToken", tc.what, msg)
		}
	}
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/v1/example/chains/kv/containers?pageSize=0&kind=x", 400, "pageSize"},
		{"/v1/example/chains/kv/containers?kind=tx", 404, `chain kv has no "tx" index`},
		{"/v1/example/chains/nope/containers", 404, `chain "nope" not found`},
		{"/v1/example/nothing", 404, "no endpoint GET /v1/example/nothing"},
	} {
		status, _, body := get(t, h, tc.path)
		if msg := restError(t, tc.path, status, body, tc.status); !strings.Contains(msg, tc.want) {
			t.Errorf("GET %s: message %q lacks %q", tc.path, msg, tc.want)
		}
	}
}

func TestBlockNumber(t *testing.T) {
	h := start(t, `{}`)
	status, _, body := get(t, h, "/v1/example/chains/C/blockNumber")
	if status != 200 || !strings.Contains(string(body), `"blockNumber":"42"`) {
		t.Errorf("GET C/blockNumber = %d %s", status, body)
	}
	status, _, body = get(t, h, "/v1/example/chains/kv/blockNumber")
	if msg := restError(t, "kv/blockNumber", status, body, 404); !strings.Contains(msg, "no internal indexer handler") {
		t.Errorf("kv/blockNumber: %q", msg)
	}
	families, err := h.Metrics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range families {
		if mf.GetName() == "exampleapi_requests_total" {
			found = len(mf.GetMetric()) == 2
		}
	}
	if !found {
		t.Errorf("Metrics = %v, want exampleapi_requests_total for the two answers", families)
	}
}

func TestRateLimit(t *testing.T) {
	h := start(t, `{"rate-limit": {"anonymous": {"per-second": 0.001, "burst": 2}, "keys": [{"name": "ops", "key": "s3cret-key", "limit": {"per-second": 0}}]}}`)
	for i := range 2 {
		if status, hdr, body := get(t, h, "/v1/example/chains"); status != 200 || hdr.Get("RateLimit-Remaining") != fmt.Sprint(1-i) {
			t.Fatalf("request %d = %d %v %s", i, status, hdr, body)
		}
	}
	status, hdr, body := get(t, h, "/v1/example/chains")
	restError(t, "third request", status, body, http.StatusTooManyRequests)
	if hdr.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	req, _ := http.NewRequest(http.MethodGet, h.ModuleURL()+"/v1/example/chains", nil)
	req.Header.Set("x-glacier-api-key", "s3cret-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the key: %d, want 200", resp.StatusCode)
	}
}

func TestBadConfig(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{`{"colour": "red"}`, `unknown field "colour"`},
		{`{"rate-limit": {"anonymous": {"per-second": 1}}}`, "anonymous.burst"},
	} {
		err := New().Initialize(t.Context(), &sdk.Env{Name: "exampleapi", Config: []byte(tc.config), DataDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "module exampleapi config") {
			t.Errorf("Initialize with %s = %v, want an error with %q", tc.config, err, tc.want)
		}
	}
}
