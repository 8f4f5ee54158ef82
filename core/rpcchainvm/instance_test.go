package rpcchainvm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/database"
	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/core/rpcchainvm"
	"github.com/chainhost/chainhost/core/rpcchainvm/chaindb"
	"github.com/chainhost/chainhost/core/rpcchainvm/hostsvc"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/transport/httpserve"
)

// buildNoteVM builds the test plugin, internal/notevm, once.
var buildNoteVM = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "notevm-*")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "notevm")
	out, err := exec.Command("go", "build", "-o", path, "./internal/notevm").CombinedOutput()
	if err != nil {
		return "", &buildError{string(out), err}
	}
	return path, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// chain is a notevm chain run by an Instance on real storage, with the
// host's index played by a list of the blocks Accepted gave.
type chain struct {
	inst       *rpcchainvm.Instance
	listenAddr string

	mu      sync.Mutex
	indexed [][]byte
}

func (c *chain) index() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.indexed...)
}

func start(t *testing.T, config string, listener *pluginhost.Listener) *chain {
	t.Helper()
	path, err := buildNoteVM()
	if err != nil {
		t.Fatalf("build the test VM: %v", err)
	}
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	id, err := hostsvc.LoadIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	chainID := avaids.GenerateTestID()
	aliases := avaids.NewAliaser()
	if err := aliases.Alias(chainID, "notes"); err != nil {
		t.Fatal(err)
	}
	state := db.Namespace("chains").Namespace(chainID.String())
	c := &chain{}
	if listener != nil {
		c.listenAddr = listener.Addr
	}
	subnetOf := func(avaids.ID) (avaids.ID, bool) { return avaids.Empty, true }
	c.inst, err = rpcchainvm.Start(t.Context(), rpcchainvm.Options{
		Path:           path,
		Alias:          "notes",
		NetworkID:      12345,
		ChainID:        chainID,
		NodeID:         id.NodeID,
		PublicKey:      id.PublicKey(),
		DataDir:        dir,
		Genesis:        []byte("genesis"),
		Config:         []byte(config),
		NewDB:          func() database.Database { return chaindb.New(state) },
		Aliases:        aliases,
		ValidatorState: hostsvc.NewAlone(id, subnetOf),
		WarpSigner:     id.WarpSigner(12345, chainID),
		AppSender: func(vm common.AppHandler) common.AppSender {
			return hostsvc.NewAppSender(id.NodeID, vm, func(err error) { t.Errorf("app message: %v", err) })
		},
		Accepted: func(_ context.Context, _ avaids.ID, b []byte) error {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.indexed = append(c.indexed, b)
			return nil
		},
		Indexed: func(ctx context.Context, from uint64, fn func([]byte) error) error {
			for _, b := range c.index()[from:] {
				if err := fn(b); err != nil {
					return err
				}
			}
			return nil
		},
		Listener:       listener,
		Names:          []string{"notes", chainID.String()},
		Log:            hclog.New(&hclog.LoggerOptions{Name: t.Name(), Output: testWriter{t}, Level: hclog.Debug}),
		RestartBackoff: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = c.inst.Stop(context.Background()) })
	return c
}

type note struct {
	Parent avaids.ID `json:"parent"`
	Height uint64    `json:"height"`
	Notes  []string  `json:"notes"`
}

// post posts a note through the VM's handler, served by the instance.
func (c *chain) post(t *testing.T, text string) {
	t.Helper()
	w := httptest.NewRecorder()
	c.inst.Handler("notes", nil).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewBufferString(text)))
	if w.Code != http.StatusOK {
		t.Fatalf("post %q: %d %s", text, w.Code, w.Body)
	}
}

// notes lists the VM's chain through its handler.
func (c *chain) notes(t *testing.T) []note {
	t.Helper()
	w := httptest.NewRecorder()
	c.inst.Handler("notes", nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	var out []note
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &out) != nil {
		t.Fatalf("list notes: %d %s", w.Code, w.Body)
	}
	return out
}

// waitIndexed waits until the host has indexed n blocks.
func (c *chain) waitIndexed(t *testing.T, n int) {
	t.Helper()
	plugintest.Eventually(t, 30*time.Second, func() error {
		if got := len(c.index()); got < n {
			return fmt.Errorf("%d blocks indexed, want %d", got, n)
		}
		return nil
	})
}

// listen opens a chain's own listener, as the chain manager does.
func listen(t *testing.T) *pluginhost.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return &pluginhost.Listener{File: f, Addr: ln.Addr().String(), Limits: httpserve.Limits{
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute,
		IdleTimeout: time.Minute, MaxBodyBytes: 1 << 20, MaxWebSockets: 10,
	}}
}

// TestInstance: the host drives an avalanchego plugin over the real
// protocol: a note posted to its handler makes it ask for a block, which
// the host builds, verifies and accepts on a one-node network and indexes
// in order; the VM's health, metrics, handlers and the index's view of it
// (AcceptedCount, GetAccepted) agree; the chain's own listener serves its
// handlers; Stop ends its process.
func TestInstance(t *testing.T) {
	c := start(t, "", listen(t))
	if got := c.inst.Handlers(); len(got) != 1 || got[0] != "notes" {
		t.Fatalf("handlers %q, want [notes]", got)
	}
	for i, text := range []string{"one", "two", "three"} {
		c.post(t, text)
		c.waitIndexed(t, i+1)
	}
	chain := c.notes(t)
	if len(chain) != 4 {
		t.Fatalf("the VM's chain has %d blocks, want genesis and 3", len(chain))
	}
	index := c.index()
	for i, b := range index {
		var n note
		if err := json.Unmarshal(b, &n); err != nil || n.Height != uint64(i+1) || n.Notes[0] != chain[i+1].Notes[0] {
			t.Errorf("index position %d holds %s, want the block at height %d", i, b, i+1)
		}
		got, err := c.inst.GetAccepted(t.Context(), rpcchainvm.BlockKind, uint64(i))
		if err != nil || !bytes.Equal(got.Bytes, b) {
			t.Errorf("GetAccepted(%d) = %s, %v; want what the host indexed", i, got.Bytes, err)
		}
	}
	if n, err := c.inst.AcceptedCount(t.Context(), rpcchainvm.BlockKind); err != nil || n != 3 {
		t.Errorf("AcceptedCount = %d, %v; want 3", n, err)
	}
	if _, err := c.inst.AcceptedCount(t.Context(), "tx"); err == nil {
		t.Error("AcceptedCount of a kind the chain has not: want an error")
	}
	if h := c.inst.Health(t.Context()); !h.Healthy || !bytes.Contains(h.Details, []byte(`"notes":"ok"`)) {
		t.Errorf("health %+v, want healthy with the VM's details", h)
	}
	if mfs, err := c.inst.Metrics(t.Context()); err != nil || len(mfs) == 0 {
		t.Errorf("metrics: %d families, %v", len(mfs), err)
	}
	h, ok := c.inst.HeaderHandler(nil)
	if !ok {
		t.Fatal("no header-routed handler, want the VM's NewHTTPHandler")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/any/path", nil))
	if w.Body.String() != "notevm by header" {
		t.Errorf("header-routed answer %q", w.Body)
	}
	// The chain's own listener, which the host serves for the plugin, at
	// the root and below /ext/bc/<chain>/.
	for _, path := range []string{"/notes", "/ext/bc/notes/notes"} {
		resp, err := http.Get("http://" + c.listenAddr + path)
		if err != nil {
			t.Fatal(err)
		}
		var got []note
		err = json.NewDecoder(resp.Body).Decode(&got)
		_ = resp.Body.Close()
		if err != nil || len(got) != 4 {
			t.Errorf("GET %s on the chain's listener: %d notes (%v), want 4", path, len(got), err)
		}
	}
	pid := c.inst.PID()
	if err := c.inst.Stop(t.Context()); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("process %d still runs after Stop", pid)
	}
	if s, _ := c.inst.State(); s != pluginhost.Stopped {
		t.Errorf("state %s after Stop", s)
	}
}

// TestRestartReplays: a plugin SIGKILLed is started again from its
// database; one that lost the blocks it had accepted (its state in memory
// only) gets them again from the host's index, and the chain goes on from
// the last block the host acknowledged, not from genesis.
func TestRestartReplays(t *testing.T) {
	for _, tc := range []struct{ name, config string }{
		{"kept", ""},
		{"forgotten", `{"forget": true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := start(t, tc.config, nil)
			for i, text := range []string{"a", "b", "c"} {
				c.post(t, text)
				c.waitIndexed(t, i+1)
			}
			pid := c.inst.PID()
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			plugintest.Eventually(t, 30*time.Second, func() error {
				if s, why := c.inst.State(); c.inst.Restarts() != 1 || s != pluginhost.Running {
					return fmt.Errorf("%d restarts, state %s (%s)", c.inst.Restarts(), s, why)
				}
				return nil
			})
			if c.inst.PID() == pid {
				t.Fatal("the same process runs after it was killed")
			}
			if n, err := c.inst.AcceptedCount(t.Context(), rpcchainvm.BlockKind); err != nil || n != 3 {
				t.Fatalf("after the restart the VM has accepted %d blocks (%v), want the 3 it had", n, err)
			}
			c.post(t, "d")
			c.waitIndexed(t, 4)
			chain := c.notes(t)
			if len(chain) != 5 || chain[4].Height != 4 || chain[4].Notes[0] != "d" {
				t.Fatalf("chain after the restart: %+v; want d at height 4", chain)
			}
			var third note
			if err := json.Unmarshal(c.index()[2], &third); err != nil {
				t.Fatal(err)
			}
			if chain[3].Notes[0] != third.Notes[0] || chain[4].Parent == (avaids.ID{}) {
				t.Errorf("block 4 does not extend the indexed block 3: %+v", chain)
			}
		})
	}
}

// testWriter logs to the test.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// TestPinRefused: a plugin whose binary differs from its plugin-sha256 pin
// is never run.
func TestPinRefused(t *testing.T) {
	path, err := buildNoteVM()
	if err != nil {
		t.Fatalf("build the test VM: %v", err)
	}
	_, err = rpcchainvm.Start(t.Context(), rpcchainvm.Options{Path: path, SHA256: make([]byte, 32), Log: hclog.NewNullLogger(),
		AppSender: func(common.AppHandler) common.AppSender { return nil }})
	if !errors.Is(err, pluginhost.ErrChecksumMismatch) {
		t.Fatalf("start with a wrong pin: %v, want %v", err, pluginhost.ErrChecksumMismatch)
	}
}
