package chains

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/index"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestChainIndexAccept: the accept-container service appends with the VM's
// state in one write, refuses legacy kinds and appends during a backfill
// without writing anything, and with indexing off writes the state alone.
func TestChainIndexAccept(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	indexes, err := index.New(index.Options{NS: db.Namespace("index"), DB: db})
	if err != nil {
		t.Fatal(err)
	}
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
