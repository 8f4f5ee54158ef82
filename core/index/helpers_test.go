package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

// testChain is the chain of most tests.
var testChain = ids.Derive([]byte("test chain"))

// openDB opens a database in a fresh directory, closed at the end of the
// test, and returns it with its directory.
func openDB(t testing.TB) (*storage.DB, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "db")
	return openDBAt(t, dir), dir
}

// openDBAt opens the database in dir, closed at the end of the test.
func openDBAt(t testing.TB, dir string) *storage.DB {
	t.Helper()
	db, err := storage.Open(dir)
	if err != nil {
		t.Fatalf("open db: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// newIndexes returns the indexes of db's "index" namespace, stamping with
// now (nil: time.Now), closed at the end of the test (before db).
func newIndexes(t testing.TB, db *storage.DB, now func() time.Time) *Indexes {
	t.Helper()
	x, err := New(Options{NS: db.Namespace("index"), DB: db, Now: now})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(x.Close)
	return x
}

// entry returns the k-th test container: a derived ID, k%7*100 bytes of
// content, and a timestamp k seconds and k nanoseconds after a base time.
func entry(k uint64) Entry {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], k)
	size := int(k%7) * 100
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(int(k) + i)
	}
	return Entry{
		ID:        ids.Derive([]byte("container"), n[:]),
		Bytes:     b,
		Timestamp: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC).Add(time.Duration(k)*time.Second + time.Duration(k)),
	}
}

// mustAccept appends entries k in [from, to) one at a time.
func mustAccept(t testing.TB, ix *Index, from, to uint64) {
	t.Helper()
	for k := from; k < to; k++ {
		e := entry(k)
		if _, err := ix.Accept(e.ID, e.Bytes, e.Timestamp, nil); err != nil {
			t.Fatalf("Accept %d: %v", k, err)
		}
	}
}

// checkContainer fails unless c is entry k at index k.
func checkContainer(t testing.TB, c Container, k uint64) {
	t.Helper()
	if err := mismatch(c, k); err != nil {
		t.Fatal(err)
	}
}

// mismatch says how c differs from entry k at index k, or returns nil.
func mismatch(c Container, k uint64) error {
	want := entry(k)
	switch {
	case c.Index != k:
		return fmt.Errorf("container index = %d, want %d", c.Index, k)
	case c.ID != want.ID:
		return fmt.Errorf("container %d: ID = %s, want %s", k, c.ID, want.ID)
	case !bytes.Equal(c.Bytes, want.Bytes):
		return fmt.Errorf("container %d: bytes = %x, want %x", k, c.Bytes, want.Bytes)
	case !c.Timestamp.Equal(want.Timestamp):
		return fmt.Errorf("container %d: timestamp = %s, want %s", k, c.Timestamp, want.Timestamp)
	}
	return nil
}

// rawKeys counts the keys stored in ix's namespace.
func rawKeys(t testing.TB, ix *Index) int {
	t.Helper()
	n := 0
	if err := ix.ns.Iterate(nil, nil, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatalf("iterate: %v", err)
	}
	return n
}
