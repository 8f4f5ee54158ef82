package index

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/storage"
)

// TestAcceptAcross: one batch appends to several kinds of a chain's index
// with the caller's writes; a duplicate in any kind refuses all of it; the
// subscribers of each kind see their containers.
func TestAcceptAcross(t *testing.T) {
	db, _ := openDB(t)
	x := newIndexes(t, db, nil)
	own := db.Namespace("vm")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seen := make(chan Container, 10)
	go func() {
		_ = x.Index(testChain, "tx").Subscribe(ctx, 0, func(c Container) error { seen <- c; return nil })
	}()

	extra := func(key string) func(b *storage.Batch) error {
		return func(b *storage.Batch) error { b.In(own).Put([]byte(key), []byte("v")); return nil }
	}
	out, err := x.AcceptAcross(testChain, []KindEntry{
		{Kind: "block", Entry: entry(1)}, {Kind: "tx", Entry: entry(2)}, {Kind: "tx", Entry: entry(3)},
	}, extra("first"))
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Index != 0 || out[1].Index != 0 || out[2].Index != 1 || out[2].ID != entry(3).ID {
		t.Fatalf("appended at %d %d %d", out[0].Index, out[1].Index, out[2].Index)
	}
	// entry(2) is in the tx index: the whole batch is refused, the new
	// block included.
	_, err = x.AcceptAcross(testChain, []KindEntry{{Kind: "block", Entry: entry(4)}, {Kind: "tx", Entry: entry(2)}}, extra("second"))
	var dup *AlreadyIndexedError
	if !errors.As(err, &dup) || dup.ID != entry(2).ID {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := own.Get([]byte("second")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatal("a refused batch wrote the caller's writes")
	}
	for kind, want := range map[string]uint64{"block": 1, "tx": 2} {
		if n, err := x.Index(testChain, kind).Len(); err != nil || n != want {
			t.Fatalf("%s index holds %d (%v), want %d", kind, n, err, want)
		}
	}
	// The same ID in two kinds is no duplicate.
	if _, err := x.AcceptAcross(testChain, []KindEntry{{Kind: "block", Entry: entry(5)}, {Kind: "tx", Entry: entry(5)}}, nil); err != nil {
		t.Fatal(err)
	}
	for want := range uint64(3) {
		select {
		case c := <-seen:
			if c.Index != want {
				t.Fatalf("subscriber saw index %d, want %d", c.Index, want)
			}
		case <-ctx.Done():
			t.Fatal("the tx subscriber saw nothing")
		}
	}
}
