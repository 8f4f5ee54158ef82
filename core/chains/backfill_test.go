package chains

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/index"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// fakeVM is an acceptedSource: a VM that accepted count[kind] containers
// of each kind, and fails reading the one at failAt (when set).
type fakeVM struct {
	kinds  []string
	count  map[string]uint64
	failAt map[string]uint64
}

func (v *fakeVM) IndexKinds() []string { return v.kinds }

func (v *fakeVM) AcceptedCount(_ context.Context, kind string) (uint64, error) {
	return v.count[kind], nil
}

func (v *fakeVM) GetAccepted(_ context.Context, kind string, position uint64) (host.Container, error) {
	if at, ok := v.failAt[kind]; ok && position == at {
		return host.Container{}, errors.New("the VM lost it")
	}
	if position >= v.count[kind] {
		return host.Container{}, fmt.Errorf("position %d: %w", position, host.ErrNotFound)
	}
	id, b := fakeContainer(kind, position)
	return host.Container{ID: id, Bytes: b}, nil
}

// fakeContainer is the ID and bytes of a fakeVM's container.
func fakeContainer(kind string, position uint64) (ids.ID, []byte) {
	b := []byte(fmt.Sprintf("%s-%d", kind, position))
	return ids.Derive(b), b
}

// backfillEnv is a manager on a real goleveldb index with two chains.
type backfillEnv struct {
	m        *Manager
	indexes  *index.Indexes
	a, b     *Chain
	complete int // OnIndexComplete calls
}

func newBackfillEnv(t *testing.T) *backfillEnv {
	t.Helper()
	db, indexes := openIndexes(t)
	e := &backfillEnv{indexes: indexes}
	e.a = &Chain{ID: ids.Derive([]byte("a")), Alias: "a", Config: config.Chain{Alias: "a", LegacyIndexKinds: []string{"vtx"}}}
	e.b = &Chain{ID: ids.Derive([]byte("b")), Alias: "b", Config: config.Chain{Alias: "b"}}
	e.m = &Manager{
		opts:   Options{DB: db, Indexes: indexes, Log: hclog.NewNullLogger(), OnIndexComplete: func() { e.complete++ }},
		chains: []*Chain{e.a, e.b},
	}
	return e
}

// appendVM appends the fakeVM's containers [from, to) of kind to c's index
// as the VM would have, stamped at.
func (e *backfillEnv) appendVM(t *testing.T, c *Chain, kind string, from, to uint64, at time.Time) {
	t.Helper()
	for p := from; p < to; p++ {
		id, b := fakeContainer(kind, p)
		if _, err := e.indexes.Index(c.ID, kind).Accept(id, b, at, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// checkIndex checks that c's index of kind holds the fakeVM's first n
// containers in order, those before stampedFrom at the VM's time and the
// rest at the bootstrap time.
func (e *backfillEnv) checkIndex(t *testing.T, c *Chain, kind string, n, stampedFrom uint64, vmTime, bootstrap time.Time) {
	t.Helper()
	ix := e.indexes.Index(c.ID, kind)
	if got, err := ix.Len(); err != nil || got != n {
		t.Fatalf("%s/%s holds %d containers (%v), want %d", c.Alias, kind, got, err, n)
	}
	for p := range n {
		got, err := ix.GetByIndex(p)
		if err != nil {
			t.Fatalf("%s/%s container %d: %v", c.Alias, kind, p, err)
		}
		id, b := fakeContainer(kind, p)
		want := vmTime
		if p >= stampedFrom {
			want = bootstrap
		}
		if got.ID != id || string(got.Bytes) != string(b) || !got.Timestamp.Equal(want) {
			t.Fatalf("%s/%s container %d = %s %q at %s, want %s %q at %s", c.Alias, kind, p, got.ID, got.Bytes, got.Timestamp, id, b, want)
		}
	}
}

// TestBackfill: the containers a VM accepted but the index lacks are
// appended in order, across write batches, stamped with the bootstrap
// time; a legacy kind is never appended to; OnIndexComplete runs once,
// when every chain is backfilled; an index that is not behind is left
// alone; a VM that cannot give a container fails the backfill with what
// was appended kept, and a later backfill goes on from there.
func TestBackfill(t *testing.T) {
	e := newBackfillEnv(t)
	ctx := context.Background()
	vmTime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	bootstrap := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	const total = 2*backfillBatch + 10

	e.appendVM(t, e.a, "block", 0, 7, vmTime)
	a := &fakeVM{kinds: []string{"block", "tx", "vtx"}, count: map[string]uint64{"block": total, "tx": 3, "vtx": 5}}
	if err := e.m.backfill(ctx, e.a, a, bootstrap); err != nil {
		t.Fatal(err)
	}
	e.checkIndex(t, e.a, "block", total, 7, vmTime, bootstrap)
	e.checkIndex(t, e.a, "tx", 3, 0, vmTime, bootstrap)
	e.checkIndex(t, e.a, "vtx", 0, 0, vmTime, bootstrap)
	if e.complete != 0 {
		t.Fatalf("OnIndexComplete ran %d times with chain b not backfilled", e.complete)
	}

	// b's index is as long as its VM: nothing to do.
	e.appendVM(t, e.b, "block", 0, 4, vmTime)
	if err := e.m.backfill(ctx, e.b, &fakeVM{kinds: []string{"block"}, count: map[string]uint64{"block": 4}}, bootstrap); err != nil {
		t.Fatal(err)
	}
	e.checkIndex(t, e.b, "block", 4, 4, vmTime, bootstrap)
	if e.complete != 1 {
		t.Fatalf("OnIndexComplete ran %d times once both chains were backfilled, want 1", e.complete)
	}

	// A VM that loses container backfillBatch+3: the first batch is kept.
	lossy := &fakeVM{kinds: []string{"block"}, count: map[string]uint64{"block": total + backfillBatch + 20},
		failAt: map[string]uint64{"block": total + backfillBatch + 3}}
	err := e.m.backfill(ctx, e.a, lossy, bootstrap)
	if err == nil || !containsAll(err.Error(), "backfill a/block", fmt.Sprintf("container %d", total+backfillBatch+3), "the VM lost it") {
		t.Fatalf("backfill with a lost container: %v", err)
	}
	e.checkIndex(t, e.a, "block", total+backfillBatch, 7, vmTime, bootstrap)
	delete(lossy.failAt, "block")
	if err := e.m.backfill(ctx, e.a, lossy, bootstrap); err != nil {
		t.Fatal(err)
	}
	e.checkIndex(t, e.a, "block", total+backfillBatch+20, 7, vmTime, bootstrap)
	if e.complete != 1 {
		t.Fatalf("OnIndexComplete ran %d times, want once", e.complete)
	}
}

// TestBackfillRefusesTheVMsAppends: while a backfill appends, the VM's own
// appends are refused (to be retried), so none lands among the backfilled
// containers; they are taken again once it is done.
func TestBackfillRefusesTheVMsAppends(t *testing.T) {
	e := newBackfillEnv(t)
	ctx := context.Background()
	svc := chainIndex{m: e.m, chain: e.a, state: e.m.opts.DB.Namespace("chains").Namespace("a")}
	refused := 0
	vm := &appendingVM{fakeVM: fakeVM{kinds: []string{"block"}, count: map[string]uint64{"block": 3}}, during: func() {
		id, b := fakeContainer("block", 99)
		if _, err := svc.Accept(ctx, "block", id, b, nil); err != nil {
			refused++
		}
	}}
	bootstrap := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := e.m.backfill(ctx, e.a, vm, bootstrap); err != nil {
		t.Fatal(err)
	}
	if refused == 0 {
		t.Fatal("the VM's append during the backfill was taken")
	}
	e.checkIndex(t, e.a, "block", 3, 0, time.Time{}, bootstrap)
	id, b := fakeContainer("block", 3)
	if acc, err := svc.Accept(ctx, "block", id, b, nil); err != nil || acc.Index != 3 {
		t.Fatalf("the VM's append after the backfill: %+v, %v", acc, err)
	}
}

// appendingVM is a fakeVM that calls during each time a container is read.
type appendingVM struct {
	fakeVM
	during func()
}

func (v *appendingVM) GetAccepted(ctx context.Context, kind string, position uint64) (host.Container, error) {
	v.during()
	return v.fakeVM.GetAccepted(ctx, kind, position)
}

// containsAll reports whether s holds every part.
func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
