package plugintest_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// counterVM is a tiny VM: POST /accept to its "rpc" handler accepts the body
// as a block, with the height and the block's bytes as state; "ws" echoes.
type counterVM struct {
	env       *sdk.Env
	unhealthy atomic.Bool
	shutdowns atomic.Int32
}

var (
	_ sdk.HealthChecker   = (*counterVM)(nil)
	_ sdk.ContainerSource = (*counterVM)(nil)
)

var heightKey = []byte("height")

func blockKey(n uint64) []byte { return fmt.Appendf(nil, "blk/%08d", n) }

func (v *counterVM) Initialize(ctx context.Context, env *sdk.Env) error {
	v.env = env
	if string(env.Config) == `{"fail":true}` {
		return errors.New("config asks to fail")
	}
	env.Logger.Debug("initializing", "genesis", string(env.Genesis))
	return env.Host.DB.Put(ctx, []byte("name"), []byte(env.Name))
}

func (v *counterVM) Handlers() map[string]http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /accept", v.accept)
	mux.HandleFunc("GET /env", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"name": v.env.Name, "chainID": v.env.ChainID, "aliases": v.env.Aliases, "networkID": v.env.NetworkID,
			"genesis": string(v.env.Genesis), "config": string(v.env.Config), "dataDir": v.env.DataDir, "path": r.URL.Path, "query": r.URL.RawQuery,
		})
	})
	mux.HandleFunc("POST /call-self", func(w http.ResponseWriter, r *http.Request) {
		code, body, err := v.env.Host.Calls.Call(r.Context(), v.env.Name, "rpc", []byte(`{"ping":1}`))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		fmt.Fprintf(w, "%d %s", code, body)
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "echo:%s", b)
	})
	return map[string]http.Handler{"rpc": mux, "ws": http.HandlerFunc(echoWS), "nil": nil}
}

// accept appends the request body as the next block; ?bad=1 adds an invalid
// state op, which must fail the whole accept.
func (v *counterVM) accept(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	n, err := v.AcceptedCount(ctx, "block")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	state := []host.Op{
		{Key: heightKey, Value: binary.BigEndian.AppendUint64(nil, n+1)},
		{Key: blockKey(n), Value: body},
	}
	if r.URL.Query().Get("bad") != "" {
		state = append(state, host.Op{Key: nil, Value: []byte("no key")})
	}
	acc, err := v.env.Host.Index.Accept(ctx, "block", ids.Derive(body), body, state)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprint(w, acc.Index)
}

func (v *counterVM) IndexKinds() []string { return []string{"block"} }

func (v *counterVM) AcceptedCount(ctx context.Context, kind string) (uint64, error) {
	if kind != "block" {
		return 0, fmt.Errorf("kind %q: %w", kind, host.ErrNotFound)
	}
	b, err := v.env.Host.DB.Get(ctx, heightKey)
	if errors.Is(err, host.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b), nil
}

func (v *counterVM) GetAccepted(ctx context.Context, kind string, pos uint64) (host.Container, error) {
	if kind != "block" {
		return host.Container{}, fmt.Errorf("kind %q: %w", kind, host.ErrNotFound)
	}
	b, err := v.env.Host.DB.Get(ctx, blockKey(pos))
	if err != nil {
		return host.Container{}, fmt.Errorf("block %d: %w", pos, err)
	}
	return host.Container{ID: ids.Derive(b), Bytes: b, Index: pos}, nil
}

func (v *counterVM) Health(context.Context) error {
	if v.unhealthy.Load() {
		return errors.New("stalled")
	}
	return nil
}

func (v *counterVM) Shutdown(context.Context) error {
	v.shutdowns.Add(1)
	return nil
}

var upgrader = websocket.Upgrader{}

// echoWS echoes every message back, prefixed.
func echoWS(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	for {
		typ, msg, err := conn.ReadMessage()
		if err != nil {
			return
		}
		if err := conn.WriteMessage(typ, append([]byte("echo:"), msg...)); err != nil {
			return
		}
	}
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

func TestStartDescribesPlugin(t *testing.T) {
	vm := &counterVM{}
	h := plugintest.Start(t, vm, plugintest.Options{Name: "C", NetworkID: 12345, Genesis: []byte(`{"g":1}`)})
	if got := fmt.Sprint(h.Handlers()); got != "[rpc ws]" {
		t.Errorf("Handlers = %s, want [rpc ws] (sorted, nil handler dropped)", got)
	}
	if got := fmt.Sprint(h.IndexKinds()); got != "[block]" {
		t.Errorf("IndexKinds = %s, want [block]", got)
	}
	name, err := h.DB().Get(t.Context(), []byte("name"))
	if err != nil || string(name) != "C" {
		t.Errorf("DB name = %q, %v; want the plugin's write during Initialize", name, err)
	}
	code, body := get(t, h.URL("rpc")+"/env?x=1")
	var env struct {
		Name, Genesis, DataDir, Path, Query string
		ChainID                             ids.ID
		Aliases                             []string
		NetworkID                           uint32
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil || code != 200 {
		t.Fatalf("GET /env = %d %q (%v)", code, body, err)
	}
	if env.Name != "C" || env.ChainID != h.ChainID() || env.ChainID.IsZero() || env.NetworkID != 12345 ||
		env.Genesis != `{"g":1}` || env.DataDir == "" || env.Path != "/env" || env.Query != "x=1" || fmt.Sprint(env.Aliases) != "[C]" {
		t.Errorf("plugin saw env %+v", env)
	}
}

// TestStartDefaultsAsTheNode: a genesis and a config left out reach the
// VM as `{}`, as the node hands what a chain's config omits.
func TestStartDefaultsAsTheNode(t *testing.T) {
	h := plugintest.Start(t, &counterVM{}, plugintest.Options{})
	_, body := get(t, h.URL("rpc")+"/env")
	var env struct{ Genesis, Config string }
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatal(err)
	}
	if env.Genesis != "{}" || env.Config != "{}" {
		t.Errorf("genesis %q and config %q, want {} and {}", env.Genesis, env.Config)
	}
}

// devVM is counterVM with the unsafe APIs its config names, each twice.
type devVM struct{ counterVM }

var _ sdk.UnsafeAPISource = (*devVM)(nil)

func (v *devVM) UnsafeAPIs() []string {
	var apis []string
	_ = json.Unmarshal(v.env.Config, &apis)
	return append(apis, apis...)
}

// TestStartReportsUnsafeAPIs: the unsafe APIs a VM declares reach the host
// sorted and once each; a VM without sdk.UnsafeAPISource declares none.
func TestStartReportsUnsafeAPIs(t *testing.T) {
	h := plugintest.Start(t, &devVM{}, plugintest.Options{Config: []byte(`["personal","dev"]`)})
	if got := fmt.Sprint(h.UnsafeAPIs()); got != "[dev personal]" {
		t.Errorf("UnsafeAPIs = %s, want [dev personal]", got)
	}
	if got := plugintest.Start(t, &counterVM{}, plugintest.Options{}).UnsafeAPIs(); len(got) != 0 {
		t.Errorf("UnsafeAPIs of a VM that declares none = %v", got)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

func TestAcceptIsAtomicWithState(t *testing.T) {
	h := plugintest.Start(t, &counterVM{}, plugintest.Options{})
	url := h.URL("rpc")
	ctx := t.Context()

	// A watcher checks, while blocks are accepted, that the index never runs
	// ahead of or behind the state written with it.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			before := uint64(len(h.Containers("block")))
			height := uint64(0)
			if b, err := h.DB().Get(ctx, []byte("height")); err == nil {
				height = binary.BigEndian.Uint64(b)
			}
			after := uint64(len(h.Containers("block")))
			if height < before || height > after {
				t.Errorf("height %d outside index length %d..%d: state and index diverged", height, before, after)
				return
			}
		}
	})
	const n = 20
	for i := range n {
		code, body := post(t, url+"/accept", fmt.Sprintf("block-%d", i))
		if code != 200 || body != strconv.Itoa(i) {
			t.Fatalf("accept %d = %d %q, want 200 %q", i, code, body, strconv.Itoa(i))
		}
	}
	close(stop)
	wg.Wait()

	// A failing accept leaves neither a container nor any of its state.
	code, body := post(t, url+"/accept?bad=1", "bad-block")
	if code != 500 || !strings.Contains(body, "empty key") {
		t.Errorf("accept with bad state = %d %q, want 500 naming the empty key", code, body)
	}
	if _, err := h.DB().Get(ctx, blockKey(n)); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("failed accept wrote its block state: %v", err)
	}

	got := h.Containers("block")
	if len(got) != n {
		t.Fatalf("index holds %d containers, want %d", len(got), n)
	}
	for i, c := range got {
		want := fmt.Sprintf("block-%d", i)
		if c.Index != uint64(i) || string(c.Bytes) != want || c.ID != ids.Derive([]byte(want)) || c.Timestamp.IsZero() {
			t.Errorf("container %d = {%d %q %s %v}, want {%d %q}", i, c.Index, c.Bytes, c.ID, c.Timestamp, i, want)
		}
	}
	count, err := h.AcceptedCount(ctx, "block")
	if err != nil || count != n {
		t.Errorf("AcceptedCount = %d, %v; want %d", count, err, n)
	}
	c, err := h.GetAccepted(ctx, "block", 7)
	if err != nil || string(c.Bytes) != "block-7" || c.ID != got[7].ID {
		t.Errorf("GetAccepted(7) = %+v, %v; want block-7", c, err)
	}
	if _, err := h.GetAccepted(ctx, "block", n); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("GetAccepted past the end error = %v, want ErrNotFound", err)
	}
	if _, err := h.AcceptedCount(ctx, "vtx"); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("AcceptedCount of an unknown kind error = %v, want ErrNotFound", err)
	}
}

func TestHTTPThroughHarness(t *testing.T) {
	h := plugintest.Start(t, &counterVM{}, plugintest.Options{Name: "X"})
	tests := []struct {
		name       string
		url        string
		body       string
		wantStatus int
		wantBody   string
	}{
		{name: "echo", url: h.URL("rpc") + "/", body: "hello", wantStatus: 200, wantBody: "echo:hello"},
		{name: "large body", url: h.URL("rpc") + "/", body: strings.Repeat("a", 2<<20), wantStatus: 200, wantBody: "echo:" + strings.Repeat("a", 2<<20)},
		{name: "call own chain", url: h.URL("rpc") + "/call-self", wantStatus: 200, wantBody: `200 echo:{"ping":1}`},
		{name: "unknown handler", url: h.URL("nope") + "/", wantStatus: 404},
		{name: "nil handler is not served", url: h.URL("nil") + "/", wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, tt.url, tt.body)
			if code != tt.wantStatus {
				t.Fatalf("status %d (%q), want %d", code, body, tt.wantStatus)
			}
			if tt.wantBody != "" && body != tt.wantBody {
				t.Errorf("body %.60q, want %.60q", body, tt.wantBody)
			}
		})
	}
}

func TestWebSocketThroughHarness(t *testing.T) {
	h := plugintest.Start(t, &counterVM{}, plugintest.Options{})
	wsURL := "ws" + strings.TrimPrefix(h.URL("ws"), "http") + "/"
	conn, _, err := websocket.DefaultDialer.DialContext(t.Context(), wsURL, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", wsURL, err)
	}
	defer conn.Close()
	tests := []struct {
		typ  int
		data string
	}{
		{websocket.TextMessage, `{"jsonrpc":"2.0"}`},
		{websocket.BinaryMessage, "\x00\x01\x02"},
		{websocket.TextMessage, strings.Repeat("x", 100<<10)},
	}
	for _, tt := range tests {
		if err := conn.WriteMessage(tt.typ, []byte(tt.data)); err != nil {
			t.Fatalf("write: %v", err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		typ, got, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if typ != tt.typ || string(got) != "echo:"+tt.data {
			t.Errorf("echo = type %d %.40q, want type %d %.40q", typ, got, tt.typ, "echo:"+tt.data)
		}
	}
}

func TestHealthAndShutdown(t *testing.T) {
	vm := &counterVM{}
	t.Run("run", func(t *testing.T) {
		h := plugintest.Start(t, vm, plugintest.Options{})
		if err := h.Health(t.Context()); err != nil {
			t.Errorf("Health = %v, want healthy", err)
		}
		vm.unhealthy.Store(true)
		if err := h.Health(t.Context()); err == nil || !strings.Contains(err.Error(), "stalled") {
			t.Errorf("Health = %v, want the plugin's reason", err)
		}
		if n := vm.shutdowns.Load(); n != 0 {
			t.Errorf("Shutdown called %d times while running", n)
		}
	})
	if n := vm.shutdowns.Load(); n != 1 {
		t.Errorf("Shutdown called %d times by the harness, want 1", n)
	}
}
