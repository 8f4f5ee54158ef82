package chains

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/index"
	"github.com/chainhost/chainhost/core/sharedmemory"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestChainIndexAccept: the accept-container service appends with the VM's
// state in one write, refuses legacy kinds and appends during a backfill
// without writing anything, and with indexing off writes the state alone.
func TestChainIndexAccept(t *testing.T) {
	db, indexes := openIndexes(t)
	c := &Chain{ID: ids.Derive([]byte("chain")), Alias: "x", Config: config.Chain{Alias: "x", LegacyIndexKinds: []string{"vtx"}}}
	c.setNotRunning("test")
	state := db.Namespace("chains").Namespace("x")
	on := chainIndex{m: &Manager{opts: Options{DB: db, Indexes: indexes}}, chain: c, state: state}
	off := chainIndex{m: &Manager{opts: Options{DB: db}}, chain: c, state: state}
	ctx := context.Background()

	steps := []struct {
		name        string
		svc         chainIndex
		backfilling bool
		kind        string
		wantErr     string // "" for success
		wantIndex   uint64
	}{
		{name: "append", svc: on, kind: "block", wantIndex: 0},
		{name: "during a backfill", svc: on, backfilling: true, kind: "block", wantErr: "retry the append"},
		{name: "after the backfill", svc: on, kind: "block", wantIndex: 1},
		{name: "legacy kind", svc: on, kind: "vtx", wantErr: `index kind "vtx" is legacy`},
		{name: "legacy kind, indexing off", svc: off, kind: "vtx", wantErr: "legacy"},
		{name: "indexing off", svc: off, kind: "block"},
	}
	for i, s := range steps {
		c.setBackfilling(s.backfilling)
		id := ids.Derive([]byte(s.name))
		key := []byte("state-" + s.name)
		acc, err := s.svc.Accept(ctx, s.kind, id, []byte(s.name), []host.Op{{Key: key, Value: []byte{byte(i)}}})
		_, getErr := state.Get(key)
		wrote := getErr == nil
		switch {
		case s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)):
			t.Fatalf("%s: error %v, want %q", s.name, err, s.wantErr)
		case s.wantErr != "" && wrote:
			t.Fatalf("%s: refused, but the VM state was written", s.name)
		case s.wantErr == "" && err != nil:
			t.Fatalf("%s: %v", s.name, err)
		case s.wantErr == "" && !wrote:
			t.Fatalf("%s: accepted, but the VM state is missing: %v", s.name, getErr)
		case s.wantErr == "" && s.svc.m.opts.Indexes != nil && acc.Index != s.wantIndex:
			t.Fatalf("%s: indexed at %d, want %d", s.name, acc.Index, s.wantIndex)
		case s.wantErr == "" && acc.Timestamp.IsZero():
			t.Fatalf("%s: no timestamp", s.name)
		}
		if getErr != nil && !errors.Is(getErr, storage.ErrNotFound) {
			t.Fatal(getErr)
		}
	}
	for kind, want := range map[string]uint64{"block": 2, "vtx": 0} {
		if n, err := indexes.Index(c.ID, kind).Len(); err != nil || n != want {
			t.Fatalf("%s index holds %d containers (%v), want %d", kind, n, err, want)
		}
	}
}

// TestChainIndexAcceptBatch: a batch appends to several kinds, writes the
// VM's state and applies shared memory in one write; any refusal (a
// container already indexed, a shared-memory conflict, an unknown peer, a
// legacy kind) writes none of it. With indexing off the state and shared
// memory still land.
func TestChainIndexAcceptBatch(t *testing.T) {
	db, indexes := openIndexes(t)
	x := &Chain{ID: ids.Derive([]byte("X")), Alias: "X", Config: config.Chain{Alias: "X", LegacyIndexKinds: []string{"vtx"}}}
	c := &Chain{ID: ids.Derive([]byte("C")), Alias: "C", Config: config.Chain{Alias: "C"}}
	x.setNotRunning("test")
	c.setNotRunning("test")
	sm := sharedmemory.New(db.Namespace("shared-memory"))
	opts := Options{DB: db, Indexes: indexes, SharedMemory: sm}
	m := &Manager{opts: opts, byID: map[ids.ID]*Chain{x.ID: x, c.ID: c}}
	state := db.Namespace("chains").Namespace("X")
	on := chainIndex{m: m, chain: x, state: state}
	offOpts := opts
	offOpts.Indexes = nil
	off := chainIndex{m: &Manager{opts: offOpts, byID: m.byID}, chain: x, state: state}
	cIndex := chainIndex{m: m, chain: c, state: db.Namespace("chains").Namespace("C")}
	ctx := context.Background()

	lens := func() (uint64, uint64) {
		b, _ := indexes.Index(x.ID, "block").Len()
		tx, _ := indexes.Index(x.ID, "tx").Len()
		return b, tx
	}
	batch := func(name string, shared ...host.SharedRequests) host.AcceptBatch {
		return host.AcceptBatch{
			Containers: []host.NewContainer{
				{Kind: "block", ID: ids.Derive([]byte(name), []byte("block")), Bytes: []byte("block " + name)},
				{Kind: "tx", ID: ids.Derive([]byte(name), []byte("tx1")), Bytes: []byte("tx1 " + name)},
				{Kind: "tx", ID: ids.Derive([]byte(name), []byte("tx2")), Bytes: []byte("tx2 " + name)},
			},
			State:        []host.Op{{Key: []byte("state " + name), Value: []byte(name)}},
			SharedMemory: shared,
		}
	}
	put := func(key string) host.SharedRequests {
		return host.SharedRequests{Peer: c.ID, Puts: []host.SharedElement{{Key: []byte(key), Value: []byte("utxo"), Traits: [][]byte{[]byte("owner")}}}}
	}
	acc, err := on.AcceptBatch(ctx, batch("b1", put("u1")))
	if err != nil {
		t.Fatal(err)
	}
	if acc[0].Index != 0 || acc[1].Index != 0 || acc[2].Index != 1 {
		t.Fatalf("accepted at %+v", acc)
	}
	if v, err := sm.Get(c.ID, x.ID, [][]byte{[]byte("u1")}); err != nil || string(v[0]) != "utxo" {
		t.Fatalf("the export is not in shared memory for C: %v", err)
	}
	for _, s := range []struct {
		name string
		svc  chainIndex
		b    host.AcceptBatch
		want string
	}{
		{"container indexed already", on, func() host.AcceptBatch {
			b := batch("b2", put("u2"))
			b.Containers[1] = batch("b1").Containers[1]
			return b
		}(), "already indexed"},
		{"remove of a value never put", on, batch("b3", host.SharedRequests{Peer: c.ID, Removes: [][]byte{[]byte("nope")}}), "shared memory conflict"},
		{"put of a key put already", on, batch("b4", put("u1")), "shared memory conflict"},
		{"unknown peer", on, batch("b5", host.SharedRequests{Peer: ids.ID{9}, Puts: put("u5").Puts}), "unknown peer chain"},
		{"legacy kind", on, func() host.AcceptBatch { b := batch("b6", put("u6")); b.Containers[0].Kind = "vtx"; return b }(), "legacy"},
		{"legacy kind, indexing off", off, func() host.AcceptBatch { b := batch("b7", put("u7")); b.Containers[0].Kind = "vtx"; return b }(), "legacy"},
	} {
		_, err := s.svc.AcceptBatch(ctx, s.b)
		if err == nil || !strings.Contains(err.Error(), s.want) {
			t.Fatalf("%s: error %v, want %q", s.name, err, s.want)
		}
		if _, err := state.Get(s.b.State[0].Key); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("%s: refused, but the state was written", s.name)
		}
		for _, r := range s.b.SharedMemory {
			for _, p := range r.Puts {
				if string(p.Key) == "u1" {
					continue
				}
				if _, err := sm.Get(c.ID, x.ID, [][]byte{p.Key}); !errors.Is(err, host.ErrNotFound) {
					t.Fatalf("%s: refused, but shared memory holds %s", s.name, p.Key)
				}
			}
		}
		if b, tx := lens(); b != 1 || tx != 2 {
			t.Fatalf("%s: refused, but the indexes hold %d blocks and %d txs", s.name, b, tx)
		}
	}
	if _, err := on.AcceptBatch(ctx, batch("b3", put("u1"))); !errors.Is(err, host.ErrSharedMemoryConflict) {
		t.Fatalf("a conflict does not match host.ErrSharedMemoryConflict: %v", err)
	}
	// C imports u1: it is consumed once.
	cBatch := host.AcceptBatch{Containers: []host.NewContainer{{Kind: "block", ID: ids.ID{1}, Bytes: []byte("c")}},
		SharedMemory: []host.SharedRequests{{Peer: x.ID, Removes: [][]byte{[]byte("u1")}}}}
	if _, err := cIndex.AcceptBatch(ctx, cBatch); err != nil {
		t.Fatal(err)
	}
	cBatch.Containers[0].ID = ids.ID{2}
	if _, err := cIndex.AcceptBatch(ctx, cBatch); !errors.Is(err, host.ErrSharedMemoryConflict) {
		t.Fatalf("second import of u1: %v", err)
	}
	// Indexing off: the state and shared memory land, no index entry.
	if _, err := off.AcceptBatch(ctx, batch("b8", put("u8"))); err != nil {
		t.Fatal(err)
	}
	if _, err := state.Get([]byte("state b8")); err != nil {
		t.Fatalf("indexing off: state missing: %v", err)
	}
	if _, err := sm.Get(c.ID, x.ID, [][]byte{[]byte("u8")}); err != nil {
		t.Fatalf("indexing off: shared memory missing: %v", err)
	}
	if b, tx := lens(); b != 1 || tx != 2 {
		t.Fatalf("indexing off appended: %d blocks, %d txs", b, tx)
	}
}

// openIndexes opens a database on disk with the indexes in it, both closed
// at the end of the test.
func openIndexes(t *testing.T) (*storage.DB, *index.Indexes) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	indexes, err := index.New(index.Options{NS: db.Namespace("index"), DB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(indexes.Close)
	return db, indexes
}
