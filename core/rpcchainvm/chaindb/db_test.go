package chaindb

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/database/dbtest"

	"github.com/chainhost/chainhost/core/storage"
)

// openStorage opens a host database on disk, closed when the test ends.
func openStorage(t testing.TB) *storage.DB {
	t.Helper()
	sdb, err := storage.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatalf("open storage: %v", err)
	}
	t.Cleanup(func() {
		if err := sdb.Close(); err != nil {
			t.Errorf("close storage: %v", err)
		}
	})
	return sdb
}

// chain returns the database of chain id, nested like the host's chains.
func chain(sdb *storage.DB, id string) *DB {
	return New(sdb.Namespace("chains").Namespace(id))
}

// pairsOf returns every pair of db, in order, as key=value.
func pairsOf(t *testing.T, db database.Iteratee) []string {
	t.Helper()
	it := db.NewIterator()
	defer it.Release()
	var pairs []string
	for it.Next() {
		pairs = append(pairs, string(it.Key())+"="+string(it.Value()))
	}
	if err := it.Error(); err != nil {
		t.Fatalf("iterate: %v", err)
	}
	return pairs
}

// TestConformance runs avalanchego's own database tests, each on a fresh
// chain beside a neighbour whose keys it must never see.
func TestConformance(t *testing.T) {
	sdb := openStorage(t)
	for name, test := range dbtest.Tests {
		t.Run(name, func(t *testing.T) {
			neighbour := chain(sdb, name+"-neighbour")
			for _, k := range []string{"", "hello", "hello1", "hello2", "z"} {
				if err := neighbour.Put([]byte(k), []byte("neighbour")); err != nil {
					t.Fatal(err)
				}
			}
			test(t, chain(sdb, name))
			if got := len(pairsOf(t, neighbour)); got != 5 {
				t.Errorf("neighbour has %d keys after the test, want 5", got)
			}
		})
	}
}

// fuzzDB returns a chain's database beside a neighbour holding keys the
// fuzzed iterations must never see.
func fuzzDB(f *testing.F) *DB {
	sdb := openStorage(f)
	neighbour := chain(sdb, "neighbour")
	for _, k := range []string{"", "\x00", "a", "ab", "\xff\xff"} {
		if err := neighbour.Put([]byte(k), []byte("neighbour")); err != nil {
			f.Fatal(err)
		}
	}
	return chain(sdb, "fuzzed")
}

func FuzzKeyValue(f *testing.F) {
	f.Add([]byte("a"), []byte("1"))
	f.Add([]byte{}, []byte{})
	f.Add([]byte{0xff, 0x00}, []byte(nil))
	dbtest.FuzzKeyValue(f, fuzzDB(f))
}

func FuzzNewIteratorWithPrefix(f *testing.F) {
	f.Add(int64(1), []byte{}, uint(50))
	f.Add(int64(2), []byte{0x80}, uint(300))
	dbtest.FuzzNewIteratorWithPrefix(f, fuzzDB(f))
}

func FuzzNewIteratorWithStartAndPrefix(f *testing.F) {
	f.Add(int64(1), []byte{}, []byte{}, uint(50))
	f.Add(int64(2), []byte{0x80, 0x40}, []byte{0x80}, uint(300))
	f.Add(int64(3), []byte{0x10}, []byte{0x80}, uint(300))
	dbtest.FuzzNewIteratorWithStartAndPrefix(f, fuzzDB(f))
}

func TestChainsNeverSeeEachOthersKeys(t *testing.T) {
	sdb := openStorage(t)
	a, b := chain(sdb, "A"), chain(sdb, "B")
	// A chain's ID that starts with another's must not see its keys either.
	ab := chain(sdb, "AB")
	for _, db := range []*DB{a, b, ab} {
		for _, k := range []string{"", "k", "k2"} {
			if err := db.Put([]byte(k), []byte(fmt.Sprintf("%p", db))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Delete([]byte("k")); err != nil {
		t.Fatal(err)
	}
	batch := ab.NewBatch()
	if err := batch.Put([]byte("k3"), []byte("ab")); err != nil {
		t.Fatal(err)
	}
	if err := batch.Write(); err != nil {
		t.Fatal(err)
	}
	if err := ab.Close(); err != nil {
		t.Fatal(err)
	}

	own := func(db *DB, keys ...string) []string {
		var want []string
		for _, k := range keys {
			want = append(want, fmt.Sprintf("%s=%p", k, db))
		}
		return want
	}
	if got, want := pairsOf(t, a), own(a, "", "k", "k2"); !slices.Equal(got, want) {
		t.Errorf("chain A = %q, want %q", got, want)
	}
	if got, want := pairsOf(t, b), own(b, "", "k2"); !slices.Equal(got, want) {
		t.Errorf("chain B = %q, want %q", got, want)
	}
	if _, err := a.Get([]byte("k3")); err != database.ErrNotFound {
		t.Errorf("A's Get of AB's key = %v, want ErrNotFound", err)
	}
	// Closing AB's view left the host's storage and the other views open.
	if err := a.Put([]byte("after"), nil); err != nil {
		t.Errorf("Put on A after AB closed: %v", err)
	}
	if got, _ := chain(sdb, "AB").Get([]byte("k3")); string(got) != "ab" {
		t.Errorf("AB reopened: k3 = %q, want ab", got)
	}
}

func TestAddToWritesWithTheHostsBatch(t *testing.T) {
	sdb := openStorage(t)
	vm := chain(sdb, "X")
	host := sdb.Namespace("sharedmemory")
	if err := vm.Put([]byte("gone"), []byte("old")); err != nil {
		t.Fatal(err)
	}

	b := vm.NewBatch().(*Batch)
	for _, op := range []func() error{
		func() error { return b.Put([]byte("utxo"), []byte("1")) },
		func() error { return b.Delete([]byte("gone")) },
		func() error { return b.Put([]byte("twice"), []byte("a")) },
		func() error { return b.Put([]byte("twice"), []byte("b")) },
	} {
		if err := op(); err != nil {
			t.Fatal(err)
		}
	}
	sb := host.NewBatch().Put([]byte("request"), []byte("applied"))
	b.AddTo(sb)

	// Nothing is written before the host writes its batch.
	if got := pairsOf(t, vm); !slices.Equal(got, []string{"gone=old"}) {
		t.Fatalf("chain before the host's write = %q", got)
	}
	// A write that fails lands neither the host's nor the VM's operations.
	other := openStorage(t)
	failing := other.Namespace("sharedmemory").NewBatch().Put([]byte("request"), []byte("lost"))
	b.AddTo(failing)
	if err := other.Write(failing, false); err == nil {
		t.Fatal("Write of a batch holding another database's chain succeeded")
	}
	if ok, _ := other.Namespace("sharedmemory").Has([]byte("request")); ok {
		t.Error("the failed write stored the host's key")
	}

	if err := sdb.Write(sb, false); err != nil {
		t.Fatalf("host write: %v", err)
	}
	if got, want := pairsOf(t, vm), []string{"twice=b", "utxo=1"}; !slices.Equal(got, want) {
		t.Errorf("chain after the host's write = %q, want %q", got, want)
	}
	if v, err := host.Get([]byte("request")); err != nil || string(v) != "applied" {
		t.Errorf("host key = %q, %v", v, err)
	}

	// AddTo left the VM's batch as it was.
	var replayed database.BatchOps
	if err := b.Replay(&replayed); err != nil {
		t.Fatal(err)
	}
	if len(replayed.Ops) != 4 || b.Size() == 0 {
		t.Errorf("batch after AddTo: %d ops, size %d; want 4 ops", len(replayed.Ops), b.Size())
	}
}

func TestCloseReleasesIterators(t *testing.T) {
	sdb, err := storage.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	db := chain(sdb, "X")
	for _, k := range []string{"a", "b"} {
		if err := db.Put([]byte(k), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	// The VM abandons one iterator mid-walk and another unread.
	walked := db.NewIteratorWithPrefix(nil)
	if !walked.Next() {
		t.Fatalf("Next = false, %v", walked.Error())
	}
	_ = db.NewIterator()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if string(walked.Key()) != "a" || string(walked.Value()) != "v" {
		t.Errorf("current pair after Close = %q, %q; want a, v", walked.Key(), walked.Value())
	}
	if walked.Next() || walked.Error() != database.ErrClosed {
		t.Errorf("Next after Close: Error = %v, want false and ErrClosed", walked.Error())
	}

	closed := make(chan error, 1)
	go func() { closed <- sdb.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("close storage: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the host's storage did not close: the chain's iterators still hold it")
	}
	walked.Release()
}

func TestHostStorageClosed(t *testing.T) {
	sdb, err := storage.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	db := chain(sdb, "X")
	if err := db.Put([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := sdb.Close(); err != nil {
		t.Fatal(err)
	}
	_, getErr := db.Get([]byte("k"))
	_, hasErr := db.Has([]byte("k"))
	_, healthErr := db.HealthCheck(t.Context())
	it := db.NewIterator()
	defer it.Release()
	it.Next()
	for name, err := range map[string]error{
		"Get":         getErr,
		"Has":         hasErr,
		"Put":         db.Put([]byte("k"), nil),
		"Delete":      db.Delete([]byte("k")),
		"Batch.Write": db.NewBatch().Write(),
		"Compact":     db.Compact(nil, nil),
		"HealthCheck": healthErr,
		"Iterator":    it.Error(),
	} {
		// rpcdb sends avalanchego's sentinels to the plugin by value.
		if err != database.ErrClosed {
			t.Errorf("%s after the host's storage closed = %v, want database.ErrClosed", name, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Errorf("Close of the view after the storage: %v", err)
	}
}
