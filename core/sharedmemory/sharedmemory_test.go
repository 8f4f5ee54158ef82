package sharedmemory

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

var (
	chainX = ids.Derive([]byte("X"))
	chainC = ids.Derive([]byte("C"))
	chainP = ids.Derive([]byte("P"))
)

func open(t *testing.T) (*storage.DB, *Memory) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, New(db.Namespace("shared-memory"))
}

// apply stages reqs of self and writes them, as an accept does.
func apply(db *storage.DB, m *Memory, self ids.ID, reqs ...host.SharedRequests) error {
	m.Lock()
	defer m.Unlock()
	b := db.Namespace("other").NewBatch()
	if err := m.Stage(b, self, reqs); err != nil {
		return err
	}
	return db.Write(b, false)
}

func elem(key, owner string) host.SharedElement {
	return host.SharedElement{Key: []byte(key), Value: []byte("value of " + key), Traits: [][]byte{[]byte(owner)}}
}

// TestPutGetRemove: X puts for C; only C sees the values, by key and by
// trait; C consumes one once; a second remove, or a put of a consumed key,
// is a conflict and writes nothing.
func TestPutGetRemove(t *testing.T) {
	db, m := open(t)
	if err := apply(db, m, chainX, host.SharedRequests{Peer: chainC, Puts: []host.SharedElement{elem("k1", "alice"), elem("k2", "bob")}}); err != nil {
		t.Fatal(err)
	}
	vals, err := m.Get(chainC, chainX, [][]byte{[]byte("k2"), []byte("k1")})
	if err != nil || string(vals[0]) != "value of k2" || string(vals[1]) != "value of k1" {
		t.Fatalf("C gets %q, %v", vals, err)
	}
	if _, err := m.Get(chainX, chainC, [][]byte{[]byte("k1")}); !errors.Is(err, host.ErrNotFound) {
		t.Fatalf("X sees its own export as an import: %v", err)
	}
	if _, err := m.Get(chainP, chainX, [][]byte{[]byte("k1")}); !errors.Is(err, host.ErrNotFound) {
		t.Fatalf("P sees what X put for C: %v", err)
	}
	// X cannot remove what it put for C: removes name values the peer put
	// for the remover.
	err = apply(db, m, chainX, host.SharedRequests{Peer: chainC, Removes: [][]byte{[]byte("k1")}})
	if !errors.Is(err, host.ErrSharedMemoryConflict) {
		t.Fatalf("X removes its own export: %v", err)
	}
	if err := apply(db, m, chainC, host.SharedRequests{Peer: chainX, Removes: [][]byte{[]byte("k1")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(chainC, chainX, [][]byte{[]byte("k1")}); !errors.Is(err, host.ErrNotFound) {
		t.Fatalf("k1 after its import: %v", err)
	}
	for name, req := range map[string]host.SharedRequests{
		"second remove":        {Peer: chainX, Removes: [][]byte{[]byte("k1")}},
		"remove twice in one":  {Peer: chainX, Removes: [][]byte{[]byte("k2"), []byte("k2")}},
		"remove of a stranger": {Peer: chainX, Removes: [][]byte{[]byte("k9")}},
	} {
		err := apply(db, m, chainC, req)
		if !errors.Is(err, host.ErrSharedMemoryConflict) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := apply(db, m, chainX, host.SharedRequests{Peer: chainC, Puts: []host.SharedElement{elem("k1", "alice")}}); !errors.Is(err, host.ErrSharedMemoryConflict) ||
		!strings.Contains(err.Error(), "consumed") {
		t.Fatalf("put of a consumed key: %v", err)
	}
	// The failed removes wrote nothing: k2 is still there.
	if _, err := m.Get(chainC, chainX, [][]byte{[]byte("k2")}); err != nil {
		t.Fatalf("k2 after refused requests: %v", err)
	}
	if err := apply(db, m, chainX, host.SharedRequests{Peer: chainX}); err == nil {
		t.Fatal("a chain named itself as the peer")
	}
}

// TestIndexedPaging: values are found by trait, ordered by trait then key,
// in pages that start after the previous page's end, a value with two of
// the traits once per page.
func TestIndexedPaging(t *testing.T) {
	db, m := open(t)
	var puts []host.SharedElement
	for i := range 7 {
		puts = append(puts, elem(fmt.Sprintf("a%d", i), "alice"))
	}
	puts = append(puts, elem("b0", "bob"), host.SharedElement{Key: []byte("both"), Value: []byte("value of both"), Traits: [][]byte{[]byte("alice"), []byte("bob")}})
	puts = append(puts, elem("c0", "carol"))
	if err := apply(db, m, chainX, host.SharedRequests{Peer: chainC, Puts: puts}); err != nil {
		t.Fatal(err)
	}
	traits := [][]byte{[]byte("bob"), []byte("alice")}
	var got []string
	var startTrait, startKey []byte
	for page := 0; ; page++ {
		vals, lt, lk, err := m.Indexed(chainC, chainX, traits, startTrait, startKey, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			got = append(got, strings.TrimPrefix(string(v), "value of "))
		}
		if len(vals) < 3 {
			break
		}
		startTrait, startKey = lt, lk
		if page > 10 {
			t.Fatal("paging does not end")
		}
	}
	want := "a0 a1 a2 a3 a4 a5 a6 both b0 both"
	if strings.Join(got, " ") != want {
		t.Fatalf("pages %q, want %q", strings.Join(got, " "), want)
	}
	vals, lt, lk, err := m.Indexed(chainC, chainX, [][]byte{[]byte("alice"), []byte("bob")}, nil, nil, 100)
	if err != nil || len(vals) != 9 || !bytes.Equal(lt, []byte("bob")) || !bytes.Equal(lk, []byte("both")) {
		t.Fatalf("one page: %d values, last %q %q, %v", len(vals), lt, lk, err)
	}
	// A consumed value leaves the index.
	if err := apply(db, m, chainC, host.SharedRequests{Peer: chainX, Removes: [][]byte{[]byte("both")}}); err != nil {
		t.Fatal(err)
	}
	vals, _, _, _ = m.Indexed(chainC, chainX, [][]byte{[]byte("bob")}, nil, nil, 0)
	if len(vals) != 1 || string(vals[0]) != "value of b0" {
		t.Fatalf("bob's values after the import of both: %q", vals)
	}
	if vals, _, _, _ := m.Indexed(chainC, chainX, [][]byte{[]byte("nobody")}, nil, nil, 0); len(vals) != 0 {
		t.Fatalf("an unknown trait finds %q", vals)
	}
}
