package linear_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/internal/memhost"
	"github.com/chainhost/chainhost/sdk/linear"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// sumVM is a linear chain whose blocks add a number to a sum: POST
// /add?n=k to its "rpc" handler builds one and answers its height.
type sumVM struct {
	*linear.Chain // the VM's sdk.ContainerSource
	db            host.Database
}

var _ sdk.ContainerSource = (*sumVM)(nil)

// block is a sumVM block.
type block struct {
	Height uint64 `json:"height"`
	Parent ids.ID `json:"parent"`
	Add    uint64 `json:"add"`
}

var sumKey = []byte("sum")

func (v *sumVM) Initialize(ctx context.Context, env *sdk.Env) error {
	v.db = env.Host.DB
	c, err := linear.Open(ctx, env.Host, linear.Options{Replay: v.replay})
	v.Chain = c
	return err
}

// apply is the state transition: the sum plus n.
func (v *sumVM) apply(ctx context.Context, n uint64) ([]host.Op, error) {
	s, err := readSum(ctx, v.db)
	if err != nil {
		return nil, err
	}
	return []host.Op{{Key: sumKey, Value: strconv.AppendUint(nil, s+n, 10)}}, nil
}

func (v *sumVM) replay(ctx context.Context, _ uint64, b []byte) ([]host.Op, error) {
	var blk block
	if err := json.Unmarshal(b, &blk); err != nil {
		return nil, err
	}
	return v.apply(ctx, blk.Add)
}

func readSum(ctx context.Context, db host.Database) (uint64, error) {
	b, err := db.Get(ctx, sumKey)
	if errors.Is(err, host.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(string(b), 10, 64)
}

func (v *sumVM) Handlers() map[string]http.Handler {
	return map[string]http.Handler{"rpc": http.HandlerFunc(v.add)}
}

func (v *sumVM) add(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.ParseUint(r.URL.Query().Get("n"), 10, 64)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	acc, err := v.Next(r.Context(), func(tip linear.Tip) (linear.Block, error) {
		b, err := json.Marshal(block{Height: tip.Height, Parent: tip.Parent, Add: n})
		if err != nil {
			return linear.Block{}, err
		}
		state, err := v.apply(r.Context(), n)
		return linear.Block{ID: sha256.Sum256(b), Bytes: b, State: state}, err
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprint(w, acc.Height)
}

func (v *sumVM) Shutdown(context.Context) error { return nil }

// add posts to the VM's add and returns the status and body.
func add(t *testing.T, h *plugintest.Harness, n int) (int, string) {
	t.Helper()
	resp, err := http.Post(h.URL("rpc")+"/add?n="+strconv.Itoa(n), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// mustAdd adds n and checks the height of the block.
func mustAdd(t *testing.T, h *plugintest.Harness, n int, height uint64) {
	t.Helper()
	if code, body := add(t, h, n); code != 200 || body != strconv.FormatUint(height, 10) {
		t.Fatalf("add %d = %d %q, want 200 %d", n, code, body, height)
	}
}

// checkChain checks that the index holds want blocks, each at its height
// with the one below as parent, that the VM's ContainerSource answers the
// same over gRPC, and that the sum is sum.
func checkChain(t *testing.T, h *plugintest.Harness, want int, sum uint64) {
	t.Helper()
	ctx := t.Context()
	got := h.Containers(linear.DefaultKind)
	if len(got) != want {
		t.Fatalf("index holds %d blocks, want %d", len(got), want)
	}
	var parent ids.ID
	for i, c := range got {
		var blk block
		if err := json.Unmarshal(c.Bytes, &blk); err != nil {
			t.Fatal(err)
		}
		if blk.Height != uint64(i) || blk.Parent != parent || c.ID != sha256.Sum256(c.Bytes) {
			t.Errorf("block at %d = %+v (ID %s), want height %d on parent %s", i, blk, c.ID, i, parent)
		}
		parent = c.ID
		if vm, err := h.GetAccepted(ctx, linear.DefaultKind, uint64(i)); err != nil || vm.ID != c.ID || string(vm.Bytes) != string(c.Bytes) {
			t.Errorf("GetAccepted(%d) = %s, %v; want the indexed %s", i, vm.ID, err, c.ID)
		}
	}
	if n, err := h.AcceptedCount(ctx, linear.DefaultKind); err != nil || n != uint64(want) {
		t.Errorf("AcceptedCount = %d, %v; want %d", n, err, want)
	}
	if s, err := readSum(ctx, h.DB()); err != nil || s != sum {
		t.Errorf("sum = %d, %v; want %d", s, err, sum)
	}
}

func TestNextChainsBlocks(t *testing.T) {
	h := plugintest.Start(t, &sumVM{}, plugintest.Options{})
	for i, n := range []int{1, 2, 3} {
		mustAdd(t, h, n, uint64(i))
	}
	checkChain(t, h, 3, 6)
	if _, err := h.AcceptedCount(t.Context(), "tx"); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("AcceptedCount of another kind: %v, want host.ErrNotFound", err)
	}
}

func TestRestartGoesOnFromTheTip(t *testing.T) {
	h := plugintest.Start(t, &sumVM{}, plugintest.Options{})
	mustAdd(t, h, 1, 0)
	mustAdd(t, h, 2, 1)
	h.Restart(t, &sumVM{})
	mustAdd(t, h, 3, 2)
	checkChain(t, h, 3, 6)
}

// TestCutAccept: after an accept cut once the host committed it, the next
// block goes on top of the cut one, whether the VM runs on or crashes and
// restarts.
func TestCutAccept(t *testing.T) {
	for _, crash := range []bool{false, true} {
		t.Run(fmt.Sprintf("crash=%v", crash), func(t *testing.T) {
			h := plugintest.Start(t, &sumVM{}, plugintest.Options{})
			mustAdd(t, h, 1, 0)
			h.CutNextAccept()
			if code, body := add(t, h, 2); code != 500 || !strings.Contains(body, "cut") {
				t.Fatalf("cut add = %d %q, want 500 saying it was cut", code, body)
			}
			if crash {
				h.Crash(t)
				h.Restart(t, &sumVM{})
			}
			mustAdd(t, h, 3, 2)
			checkChain(t, h, 3, 6)
		})
	}
}

// TestReplayFromTheIndex: blocks the host's index holds above the VM's
// height (its database lost them) are replayed at Open.
func TestReplayFromTheIndex(t *testing.T) {
	h := plugintest.Start(t, &sumVM{}, plugintest.Options{})
	mustAdd(t, h, 1, 0)
	h.Crash(t)
	parent := h.Containers(linear.DefaultKind)[0].ID
	for i, n := range []uint64{2, 3} {
		b, err := json.Marshal(block{Height: uint64(i + 1), Parent: parent, Add: n})
		if err != nil {
			t.Fatal(err)
		}
		parent = sha256.Sum256(b)
		h.AppendContainer(h.ChainID(), linear.DefaultKind, parent, b)
	}
	h.Restart(t, &sumVM{})
	checkChain(t, h, 3, 6)
	mustAdd(t, h, 4, 3)
	checkChain(t, h, 4, 10)
}

// TestOpenWithoutReplay: blocks the index holds above the VM's height are
// an error that names the missing Replay, not a silent gap in the state.
func TestOpenWithoutReplay(t *testing.T) {
	self := host.ChainInfo{ID: ids.Derive([]byte("chain"))}
	mem := memhost.New(memhost.Options{Self: self})
	mem.AppendContainer(self.ID, linear.DefaultKind, ids.Derive([]byte("b")), []byte("b"))
	_, err := linear.Open(t.Context(), mem.Services(), linear.Options{})
	if err == nil || !strings.Contains(err.Error(), "Replay is nil") {
		t.Fatalf("Open = %v, want an error naming the nil Replay", err)
	}
}
