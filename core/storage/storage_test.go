package storage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func openTest(t testing.TB) (*DB, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db, dir
}

// keysOf returns every key of ns, in order.
func keysOf(t *testing.T, ns *Namespace) []string {
	t.Helper()
	var keys []string
	if err := ns.Iterate(nil, nil, func(k, _ []byte) error {
		keys = append(keys, string(k))
		return nil
	}); err != nil {
		t.Fatalf("Iterate: %v", err)
	}
	return keys
}

func mustPut(t *testing.T, ns *Namespace, k, v string) {
	t.Helper()
	if err := ns.Put([]byte(k), []byte(v)); err != nil {
		t.Fatalf("Put %q: %v", k, err)
	}
}

func TestGetPutHasDelete(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("C")
	mustPut(t, ns, "k", "v1")
	mustPut(t, ns, "k", "v2")
	mustPut(t, ns, "", "empty key")

	tests := []struct {
		key     string
		want    string
		wantErr error
	}{
		{"k", "v2", nil},
		{"", "empty key", nil},
		{"missing", "", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got, err := ns.Get([]byte(tt.key))
			if !errors.Is(err, tt.wantErr) || string(got) != tt.want {
				t.Errorf("Get = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
			has, err := ns.Has([]byte(tt.key))
			if err != nil || has != (tt.wantErr == nil) {
				t.Errorf("Has = %v, %v; want %v", has, err, tt.wantErr == nil)
			}
		})
	}

	if err := ns.Delete([]byte("k")); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Get([]byte("k")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := ns.Delete([]byte("never there")); err != nil {
		t.Errorf("Delete of an absent key: %v", err)
	}
}

func TestNamespacesIsolated(t *testing.T) {
	db, _ := openTest(t)
	a := db.Namespace("a")
	ab := db.Namespace("ab")
	nested := a.Namespace("b")
	empty := db.Namespace("")

	// Keys chosen so that a naive "name + key" layout would collide.
	mustPut(t, a, "bx", "a/bx")
	mustPut(t, ab, "x", "ab/x")
	mustPut(t, nested, "x", "a.b/x")
	mustPut(t, empty, "ax", "empty/ax")
	// The encoded child path used as a key in the parent.
	mustPut(t, a, "\x01\x01bx", "a/raw")

	tests := []struct {
		name string
		ns   *Namespace
		want []string
	}{
		{"a", a, []string{"\x01\x01bx", "bx"}},
		{"ab", ab, []string{"x"}},
		{"a/b", nested, []string{"x"}},
		{"empty name", empty, []string{"ax"}},
		{"a again", db.Namespace("a"), []string{"\x01\x01bx", "bx"}},
		{"unused", db.Namespace("b"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keysOf(t, tt.ns); !slices.Equal(got, tt.want) {
				t.Errorf("keys = %q, want %q", got, tt.want)
			}
		})
	}
	if v, err := nested.Get([]byte("x")); err != nil || string(v) != "a.b/x" {
		t.Errorf("nested Get = %q, %v", v, err)
	}
	if _, err := a.Get([]byte("x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("parent sees nested key: %v", err)
	}
	if bytes.HasPrefix(ab.Prefix(), a.Prefix()) || bytes.HasPrefix(a.Prefix(), ab.Prefix()) {
		t.Errorf("prefixes overlap: %x, %x", a.Prefix(), ab.Prefix())
	}
	if bytes.HasPrefix(nested.Prefix(), a.Prefix()) {
		t.Errorf("nested prefix %x lies inside parent prefix %x", nested.Prefix(), a.Prefix())
	}
}

func TestPrefixIsACopy(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("C")
	p := ns.Prefix()
	p[0] ^= 0xff
	mustPut(t, ns, "k", "v")
	if v, err := ns.Get([]byte("k")); err != nil || string(v) != "v" {
		t.Errorf("Get after modifying Prefix() = %q, %v", v, err)
	}
}

func TestBatchAcrossNamespaces(t *testing.T) {
	db, _ := openTest(t)
	vm := db.Namespace("vm")
	host := db.Namespace("host")
	mustPut(t, vm, "old", "x")

	b := vm.NewBatch()
	b.Put([]byte("state"), []byte("s1")).Delete([]byte("old"))
	b.In(host).Put([]byte("index/0"), []byte("block0"))

	if b.Len() != 3 {
		t.Errorf("Len = %d, want 3", b.Len())
	}
	wantSize := len(vm.Prefix())*2 + len("state") + len("s1") + len("old") + len(host.Prefix()) + len("index/0") + len("block0")
	if b.Size() != wantSize {
		t.Errorf("Size = %d, want %d", b.Size(), wantSize)
	}
	// Nothing is visible before Write.
	if _, err := host.Get([]byte("index/0")); !errors.Is(err, ErrNotFound) {
		t.Errorf("batch visible before Write: %v", err)
	}
	if err := db.Write(b, false); err != nil {
		t.Fatalf("Write: %v", err)
	}
	checks := []struct {
		ns      *Namespace
		key     string
		want    string
		wantErr error
	}{
		{vm, "state", "s1", nil},
		{vm, "old", "", ErrNotFound},
		{host, "index/0", "block0", nil},
		{vm, "index/0", "", ErrNotFound},
	}
	for _, c := range checks {
		got, err := c.ns.Get([]byte(c.key))
		if !errors.Is(err, c.wantErr) || string(got) != c.want {
			t.Errorf("Get %q = %q, %v; want %q, %v", c.key, got, err, c.want, c.wantErr)
		}
	}

	b.Reset()
	if b.Len() != 0 || b.Size() != 0 {
		t.Errorf("after Reset Len, Size = %d, %d", b.Len(), b.Size())
	}
}

func TestBatchIsAtomic(t *testing.T) {
	db, _ := openTest(t)
	vm := db.Namespace("vm")
	host := db.Namespace("host")
	const rounds = 300

	// The writer commits the VM height and the index position in one batch;
	// a reader that reads the height first must never find the index
	// behind it, as it would between two separate writes.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range rounds {
			v := []byte(fmt.Sprint(i))
			b := vm.NewBatch().Put([]byte("height"), v)
			b.In(host).Put([]byte("indexed"), v)
			if err := db.Write(b, false); err != nil {
				t.Errorf("Write: %v", err)
				return
			}
		}
	})
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			h, err1 := vm.Get([]byte("height"))
			i, err2 := host.Get([]byte("indexed"))
			if errors.Is(err1, ErrNotFound) {
				continue
			}
			if err1 != nil || err2 != nil {
				t.Errorf("Get: %v, %v", err1, err2)
				return
			}
			var hn, in int
			fmt.Sscan(string(h), &hn)
			fmt.Sscan(string(i), &in)
			if in < hn {
				t.Errorf("index %d behind height %d: batch not atomic", in, hn)
				return
			}
		}
	})
	wg.Wait()
	if v, err := host.Get([]byte("indexed")); err != nil || string(v) != fmt.Sprint(rounds-1) {
		t.Errorf("final index = %q, %v", v, err)
	}
}

func TestBatchOfAnotherDB(t *testing.T) {
	db1, _ := openTest(t)
	db2, _ := openTest(t)
	b := db1.Namespace("a").NewBatch()
	b.Put([]byte("k"), []byte("v"))
	if err := db2.Write(b, false); err == nil {
		t.Error("Write accepted a batch of another database")
	}
	b.In(db2.Namespace("a")).Put([]byte("k2"), []byte("v"))
	if err := db1.Write(b, false); err == nil || !strings.Contains(err.Error(), "two databases") {
		t.Errorf("Write of a batch mixing databases: %v", err)
	}
}

func TestIterate(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("idx")
	for _, k := range []string{"b/2", "a/1", "b/1", "a/2", "b/10", "c", "b"} {
		mustPut(t, ns, k, "v:"+k)
	}
	mustPut(t, db.Namespace("idy"), "a/0", "other")
	mustPut(t, ns.Namespace("sub"), "a/0", "nested")

	tests := []struct {
		name          string
		prefix, start string
		stopAt        string // fn returns ErrStopIteration at this key
		want          []string
	}{
		{"all in order", "", "", "", []string{"a/1", "a/2", "b", "b/1", "b/10", "b/2", "c"}},
		{"prefix", "b/", "", "", []string{"b/1", "b/10", "b/2"}},
		{"start inside prefix", "b/", "b/10", "", []string{"b/10", "b/2"}},
		{"start between keys", "", "b/11", "", []string{"b/2", "c"}},
		{"start before prefix", "b/", "a", "", []string{"b/1", "b/10", "b/2"}},
		{"start after prefix", "a/", "b", "", nil},
		{"no match", "z", "", "", nil},
		{"stop", "", "", "b", []string{"a/1", "a/2", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := ns.Iterate([]byte(tt.prefix), []byte(tt.start), func(k, v []byte) error {
				if string(v) != "v:"+string(k) {
					t.Errorf("value of %q = %q", k, v)
				}
				got = append(got, string(k))
				if string(k) == tt.stopAt {
					return ErrStopIteration
				}
				return nil
			})
			if err != nil {
				t.Fatalf("Iterate: %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("keys = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIterateCallbackError(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("n")
	mustPut(t, ns, "a", "1")
	mustPut(t, ns, "b", "2")
	boom := errors.New("boom")
	var calls int
	err := ns.Iterate(nil, nil, func(_, _ []byte) error { calls++; return boom })
	if !errors.Is(err, boom) || calls != 1 {
		t.Errorf("Iterate = %v after %d calls, want boom after 1", err, calls)
	}
}

func TestIterateCopiesAreSafe(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("n")
	for i := range 50 {
		mustPut(t, ns, fmt.Sprintf("k%02d", i), fmt.Sprintf("v%02d", i))
	}
	var keys, vals [][]byte
	if err := ns.Iterate(nil, nil, func(k, v []byte) error {
		keys, vals = append(keys, k), append(vals, v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		if string(keys[i]) != fmt.Sprintf("k%02d", i) || string(vals[i]) != fmt.Sprintf("v%02d", i) {
			t.Fatalf("kept pair %d = %q, %q", i, keys[i], vals[i])
		}
	}
}

func TestIterateMayWrite(t *testing.T) {
	db, _ := openTest(t)
	src, dst := db.Namespace("src"), db.Namespace("dst")
	mustPut(t, src, "a", "1")
	mustPut(t, src, "b", "2")
	if err := src.Iterate(nil, nil, func(k, v []byte) error { return dst.Put(k, v) }); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(t, dst); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("copied keys = %q", got)
	}
}

func TestIteratorReadsASnapshot(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("n")
	mustPut(t, ns, "a", "1")
	mustPut(t, ns, "b", "2")
	it := ns.NewIterator(nil, nil)
	defer it.Release()
	mustPut(t, ns, "c", "3")
	if err := ns.Delete([]byte("a")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for it.Next() {
		got = append(got, string(it.Key())+"="+string(it.Value()))
	}
	if err := it.Error(); err != nil {
		t.Fatalf("Error: %v", err)
	}
	if want := []string{"a=1", "b=2"}; !slices.Equal(got, want) {
		t.Errorf("pairs = %q, want %q (the keys when the iterator was made)", got, want)
	}
	if it.Next() || it.Key() != nil || it.Value() != nil {
		t.Errorf("after the end: Next true or Key %q, Value %q not nil", it.Key(), it.Value())
	}
}

func TestIteratorHoldsCloseUntilRelease(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("n")
	mustPut(t, ns, "a", "1")
	mustPut(t, ns, "b", "2")
	it := ns.NewIterator(nil, nil)
	if !it.Next() {
		t.Fatalf("Next = false, %v", it.Error())
	}
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	for !db.closed.Load() {
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while an iterator was held", err)
	default:
	}
	if string(it.Key()) != "a" || string(it.Value()) != "1" {
		t.Errorf("current pair during Close = %q, %q; want a, 1", it.Key(), it.Value())
	}
	if it.Next() {
		t.Error("Next after Close began = true")
	}
	if !errors.Is(it.Error(), ErrClosed) {
		t.Errorf("Error = %v, want ErrClosed", it.Error())
	}
	// Next returning false let Close finish; Release is still harmless.
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	it.Release()
}

func TestIteratorReleaseLetsCloseFinish(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("n")
	mustPut(t, ns, "a", "1")
	it := ns.NewIterator(nil, nil)
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	for !db.closed.Load() {
	}
	it.Release()
	it.Release()
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	if it.Next() || it.Error() != nil {
		t.Errorf("Next after Release = true or Error = %v", it.Error())
	}
}

func TestCompactKeepsKeys(t *testing.T) {
	db, _ := openTest(t)
	ns, other := db.Namespace("n"), db.Namespace("o")
	for i := range 100 {
		mustPut(t, ns, fmt.Sprintf("k%02d", i), "v")
		mustPut(t, other, fmt.Sprintf("k%02d", i), "v")
	}
	for i := range 50 {
		if err := ns.Delete([]byte(fmt.Sprintf("k%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range [][2][]byte{{nil, nil}, {[]byte("k10"), []byte("k60")}, {[]byte("z"), []byte("a")}} {
		if err := ns.Compact(r[0], r[1]); err != nil {
			t.Fatalf("Compact(%q, %q): %v", r[0], r[1], err)
		}
	}
	if got := keysOf(t, ns); len(got) != 50 || got[0] != "k50" {
		t.Errorf("keys after Compact: %d from %q, want 50 from k50", len(got), got)
	}
	if got := keysOf(t, other); len(got) != 100 {
		t.Errorf("other namespace after Compact: %d keys, want 100", len(got))
	}
}

func TestReopenPersists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ns := db.Namespace("C")
	mustPut(t, ns, "plain", "1")
	b := ns.NewBatch()
	b.Put([]byte("synced"), []byte("2"))
	if err := db.Write(b, true); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(dir)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	if got := keysOf(t, db.Namespace("C")); !slices.Equal(got, []string{"plain", "synced"}) {
		t.Errorf("keys after reopen = %q", got)
	}
}

func TestSecondOpenFails(t *testing.T) {
	_, dir := openTest(t)
	db2, err := Open(dir)
	if err == nil {
		db2.Close()
		t.Fatal("second Open of the same dir succeeded")
	}
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "in use by another chainhost") || !strings.Contains(err.Error(), dir) {
		t.Errorf("second Open error = %v, want ErrInUse naming %s", err, dir)
	}
}

func TestOpenBadDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(file, "db")); err == nil {
		t.Error("Open under a regular file succeeded")
	}
}

func TestOpsAfterClose(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("n")
	mustPut(t, ns, "k", "v")
	b := ns.NewBatch().Put([]byte("k2"), []byte("v"))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ops := []struct {
		name string
		op   func() error
	}{
		{"Get", func() error { _, err := ns.Get([]byte("k")); return err }},
		{"Has", func() error { _, err := ns.Has([]byte("k")); return err }},
		{"Put", func() error { return ns.Put([]byte("k"), nil) }},
		{"Delete", func() error { return ns.Delete([]byte("k")) }},
		{"Write", func() error { return db.Write(b, true) }},
		{"Iterate", func() error { return ns.Iterate(nil, nil, func(_, _ []byte) error { return nil }) }},
		{"NewIterator", func() error {
			it := ns.NewIterator(nil, nil)
			defer it.Release()
			if it.Next() {
				return errors.New("Next = true")
			}
			return it.Error()
		}},
		{"Compact", func() error { return ns.Compact(nil, nil) }},
		{"Namespace made after Close", func() error { return db.Namespace("new").Put([]byte("k"), nil) }},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			if err := o.op(); !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close = %v, want ErrClosed", o.name, err)
			}
		})
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

func TestCloseStopsIteration(t *testing.T) {
	db, _ := openTest(t)
	ns := db.Namespace("n")
	for i := range 10 {
		mustPut(t, ns, fmt.Sprint(i), "v")
	}
	closed := make(chan error)
	var seen int
	err := ns.Iterate(nil, nil, func(_, _ []byte) error {
		seen++
		if seen == 2 {
			go func() { closed <- db.Close() }()
			// Close now waits for this iteration; give it time to begin.
			for !db.closed.Load() {
			}
			// Operations started during Close fail instead of deadlocking.
			if _, err := ns.Get([]byte("0")); !errors.Is(err, ErrClosed) {
				t.Errorf("Get during Close = %v, want ErrClosed", err)
			}
		}
		return nil
	})
	if !errors.Is(err, ErrClosed) || seen != 2 {
		t.Errorf("Iterate = %v after %d keys, want ErrClosed after 2", err, seen)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestConcurrentUseAndClose(t *testing.T) {
	db, _ := openTest(t)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			ns := db.Namespace(fmt.Sprint("w", w))
			for i := 0; ; i++ {
				k := []byte(fmt.Sprint(i))
				var err error
				switch i % 4 {
				case 0:
					err = ns.Put(k, k)
				case 1:
					_, err = ns.Get([]byte("0"))
				case 2:
					err = db.Write(ns.NewBatch().Put(k, k).In(db.Namespace("shared")).Put(k, k), false)
				case 3:
					err = ns.Iterate(nil, nil, func(_, _ []byte) error { return nil })
				}
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("op %d: %v", i, err)
					return
				}
				if i == 400 && w == 0 {
					go db.Close()
				}
			}
		})
	}
	wg.Wait()
	if err := db.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestNames(t *testing.T) {
	db, _ := openTest(t)
	chains := db.Namespace("chains")
	if names, err := chains.Names(); err != nil || len(names) != 0 {
		t.Fatalf("Names of an empty namespace = %q, %v", names, err)
	}
	put := func(ns *Namespace, k string) {
		t.Helper()
		if err := ns.Put([]byte(k), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	put(chains, "own key") // not a nested namespace
	for _, name := range []string{"b", "a", "ab", strings.Repeat("z", 300)} {
		put(chains.Namespace(name), "k1")
		put(chains.Namespace(name), "k2")
		put(chains.Namespace(name).Namespace("deeper"), "k")
	}
	put(db.Namespace("chainsx").Namespace("other"), "k") // a sibling of chains
	names, err := chains.Names()
	want := []string{"a", "ab", "b", strings.Repeat("z", 300)}
	if err != nil || !slices.Equal(names, want) {
		t.Fatalf("Names = %q, %v; want %q", names, err, want)
	}
}
