package index

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

func TestNewRequiresNamespaceAndDB(t *testing.T) {
	db, _ := openDB(t)
	tests := []struct {
		name string
		opts Options
	}{
		{"no namespace", Options{DB: db}},
		{"no database", Options{NS: db.Namespace("index")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.opts); err == nil {
				t.Fatal("New succeeded")
			}
		})
	}
}

func TestLookups(t *testing.T) {
	db, _ := openDB(t)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	mustAccept(t, ix, 0, 5)
	unknown := ids.Derive([]byte("never accepted"))

	if n, err := ix.Len(); err != nil || n != 5 {
		t.Fatalf("Len = %d, %v; want 5", n, err)
	}
	for k := range uint64(5) {
		c, err := ix.GetByIndex(k)
		if err != nil {
			t.Fatalf("GetByIndex(%d): %v", k, err)
		}
		checkContainer(t, c, k)
		if c, err = ix.GetByID(entry(k).ID); err != nil {
			t.Fatalf("GetByID(%d): %v", k, err)
		}
		checkContainer(t, c, k)
		if i, err := ix.IndexOf(entry(k).ID); err != nil || i != k {
			t.Fatalf("IndexOf(%d) = %d, %v", k, i, err)
		}
	}
	last, err := ix.Last()
	if err != nil {
		t.Fatalf("Last: %v", err)
	}
	checkContainer(t, last, 4)

	empty := newIndexes(t, db, nil).Index(testChain, "tx")
	misses := []struct {
		name    string
		call    func() error
		wantMsg string
	}{
		{"index past the end", func() error { _, err := ix.GetByIndex(5); return err }, "no container at index 5"},
		{"huge index", func() error { _, err := ix.GetByIndex(math.MaxUint64); return err }, "no container at index 18446744073709551615"},
		{"unknown ID", func() error { _, err := ix.GetByID(unknown); return err }, "no container with ID " + unknown.String()},
		{"index of unknown ID", func() error { _, err := ix.IndexOf(unknown); return err }, "no container with ID " + unknown.String()},
		{"last of empty index", func() error { _, err := empty.Last(); return err }, "no containers have been accepted"},
		{"first of empty index", func() error { _, err := empty.GetByIndex(0); return err }, "no container at index 0"},
	}
	for _, tc := range misses {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("error %v does not match ErrNotFound", err)
			}
			if err.Error() != tc.wantMsg {
				t.Fatalf("error %q, want %q", err, tc.wantMsg)
			}
		})
	}
}

func TestWalkByIndexAndRange(t *testing.T) {
	db, _ := openDB(t)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	const total = 37
	mustAccept(t, ix, 0, total)

	// Walk by index.
	for k := range uint64(total) {
		c, err := ix.GetByIndex(k)
		if err != nil {
			t.Fatalf("GetByIndex(%d): %v", k, err)
		}
		checkContainer(t, c, k)
	}
	// Walk by pages of 5: the last page is short.
	var walked []Container
	for start := uint64(0); start < total; start += 5 {
		page, err := ix.Range(start, 5)
		if err != nil {
			t.Fatalf("Range(%d, 5): %v", start, err)
		}
		walked = append(walked, page...)
	}
	if len(walked) != total {
		t.Fatalf("walked %d containers by range, want %d", len(walked), total)
	}
	for k, c := range walked {
		checkContainer(t, c, uint64(k))
	}

	tests := []struct {
		name     string
		start, n uint64
		want     []uint64 // first and one past the last index returned
	}{
		{"none wanted", 3, 0, []uint64{3, 3}},
		{"inside", 10, 4, []uint64{10, 14}},
		{"short tail", 35, 10, []uint64{35, 37}},
		{"exactly to the end", 30, 7, []uint64{30, 37}},
		{"at the end", 37, 1, []uint64{37, 37}},
		{"past the end", 100, 1, []uint64{100, 100}},
		{"everything", 0, math.MaxUint64, []uint64{0, 37}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ix.Range(tc.start, tc.n)
			if err != nil {
				t.Fatalf("Range: %v", err)
			}
			if got == nil {
				t.Fatal("Range returned nil, want an empty slice at least")
			}
			if want := tc.want[1] - tc.want[0]; uint64(len(got)) != want {
				t.Fatalf("Range returned %d containers, want %d", len(got), want)
			}
			for i, c := range got {
				checkContainer(t, c, tc.want[0]+uint64(i))
			}
		})
	}
}

func TestAcceptStamps(t *testing.T) {
	db, _ := openDB(t)
	clock := time.Date(2030, 1, 2, 3, 4, 5, 123456789, time.FixedZone("X", 3600))
	ix := newIndexes(t, db, func() time.Time { return clock }).Index(testChain, "block")
	tests := []struct {
		name    string
		ts      time.Time
		want    time.Time
		wantErr string
	}{
		{"zero means now", time.Time{}, clock, ""},
		{"given time kept to the nanosecond", time.Date(2021, 11, 4, 0, 42, 55, 16434140, time.UTC), time.Date(2021, 11, 4, 0, 42, 55, 16434140, time.UTC), ""},
		{"other zone, same instant", time.Date(2021, 11, 4, 2, 42, 55, 1, time.FixedZone("Y", 7200)), time.Date(2021, 11, 4, 0, 42, 55, 1, time.UTC), ""},
		{"before 1678", time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}, "outside the years 1678 to 2262"},
		{"after 2262", time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}, "outside the years 1678 to 2262"},
	}
	for k, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := ids.Derive([]byte(tc.name))
			c, err := ix.Accept(id, []byte{byte(k)}, tc.ts, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Accept error = %v, want containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Accept: %v", err)
			}
			stored, err := ix.GetByID(id)
			if err != nil {
				t.Fatalf("GetByID: %v", err)
			}
			for _, got := range []time.Time{c.Timestamp, stored.Timestamp} {
				if !got.Equal(tc.want) || got.Location() != time.UTC {
					t.Fatalf("timestamp = %s, want %s in UTC", got, tc.want)
				}
			}
		})
	}
}

func TestAcceptIsAtomic(t *testing.T) {
	db, _ := openDB(t)
	other, _ := openDB(t)
	vmNS := db.Namespace("vm")
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	mustAccept(t, ix, 0, 3)
	keysBefore := rawKeys(t, ix)
	fresh, fresh2 := entry(3), entry(4)
	vmWrite := func(b *storage.Batch) error {
		b.In(vmNS).Put([]byte("state"), []byte("v"))
		return nil
	}

	tests := []struct {
		name    string
		entries []Entry
		extra   func(b *storage.Batch) error
		wantDup *AlreadyIndexedError
		wantErr string
	}{
		{
			name:    "stored ID again",
			entries: []Entry{entry(1)},
			extra:   vmWrite,
			wantDup: &AlreadyIndexedError{ID: entry(1).ID, Index: 1},
			wantErr: "container " + entry(1).ID.String() + " already indexed at 1",
		},
		{
			name:    "stored ID later in a batch",
			entries: []Entry{fresh, entry(2)},
			extra:   vmWrite,
			wantDup: &AlreadyIndexedError{ID: entry(2).ID, Index: 2},
			wantErr: "already indexed at 2",
		},
		{
			name:    "same ID twice in a batch",
			entries: []Entry{fresh, fresh2, fresh},
			extra:   vmWrite,
			wantDup: &AlreadyIndexedError{ID: fresh.ID, Index: 3},
			wantErr: "container " + fresh.ID.String() + " already indexed at 3",
		},
		{
			name:    "extra fails after writing",
			entries: []Entry{fresh},
			extra: func(b *storage.Batch) error {
				b.In(vmNS).Put([]byte("state"), []byte("v"))
				return errors.New("vm state broken")
			},
			wantErr: "extra writes: vm state broken",
		},
		{
			name:    "extra writes another database",
			entries: []Entry{fresh},
			extra: func(b *storage.Batch) error {
				b.In(other.Namespace("vm")).Put([]byte("state"), []byte("v"))
				return nil
			},
			wantErr: "two databases",
		},
		{
			name:    "no containers",
			entries: nil,
			extra:   vmWrite,
			wantErr: "no containers",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ix.AcceptMany(tc.entries, tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("AcceptMany error = %v, want containing %q", err, tc.wantErr)
			}
			if tc.wantDup != nil {
				var dup *AlreadyIndexedError
				if !errors.As(err, &dup) || *dup != *tc.wantDup {
					t.Fatalf("error %v, want %+v", err, tc.wantDup)
				}
			}
			// Nothing written: counter, keys, VM state.
			if n, err := ix.Len(); err != nil || n != 3 {
				t.Fatalf("Len = %d, %v; want 3", n, err)
			}
			if got := rawKeys(t, ix); got != keysBefore {
				t.Fatalf("index holds %d keys, want %d", got, keysBefore)
			}
			if _, err := vmNS.Get([]byte("state")); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("VM state written: Get error %v", err)
			}
			if _, err := ix.IndexOf(fresh.ID); !errors.Is(err, ErrNotFound) {
				t.Fatalf("IndexOf(fresh) error = %v, want ErrNotFound", err)
			}
		})
	}

	// The same append succeeds, VM state and index together.
	got, err := ix.AcceptMany([]Entry{fresh, fresh2}, vmWrite)
	if err != nil {
		t.Fatalf("AcceptMany: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("AcceptMany returned %d containers, want 2", len(got))
	}
	checkContainer(t, got[0], 3)
	checkContainer(t, got[1], 4)
	if v, err := vmNS.Get([]byte("state")); err != nil || string(v) != "v" {
		t.Fatalf("VM state = %q, %v; want v", v, err)
	}
	for k := range uint64(5) {
		c, err := ix.GetByIndex(k)
		if err != nil {
			t.Fatalf("GetByIndex(%d): %v", k, err)
		}
		checkContainer(t, c, k)
	}
}

func TestReopenKeepsIndex(t *testing.T) {
	db, dir := openDB(t)
	mustAccept(t, newIndexes(t, db, nil).Index(testChain, "block"), 0, 3)
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	db = openDBAt(t, dir)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	if n, err := ix.Len(); err != nil || n != 3 {
		t.Fatalf("Len after reopen = %d, %v; want 3", n, err)
	}
	last, err := ix.Last()
	if err != nil {
		t.Fatalf("Last: %v", err)
	}
	checkContainer(t, last, 2)
	if _, err := ix.Accept(entry(0).ID, nil, time.Time{}, nil); err == nil {
		t.Fatal("Accept of a container indexed before the reopen succeeded")
	}
	c, err := ix.Accept(entry(3).ID, entry(3).Bytes, entry(3).Timestamp, nil)
	if err != nil {
		t.Fatalf("Accept after reopen: %v", err)
	}
	checkContainer(t, c, 3)
}

func TestIndexesAreSeparate(t *testing.T) {
	db, _ := openDB(t)
	x := newIndexes(t, db, nil)
	chainB := ids.Derive([]byte("other chain"))
	first, second := x.Index(testChain, "block"), x.Index(testChain, "block")
	if first != second {
		t.Fatal("Index returned two values for one pair")
	}
	counts := []struct {
		chain ids.ID
		kind  string
		n     uint64
	}{
		{testChain, "block", 4},
		{testChain, "tx", 2},
		{chainB, "block", 1},
		{chainB, "vtx", 0},
	}
	for _, c := range counts {
		mustAccept(t, x.Index(c.chain, c.kind), 0, c.n)
	}
	for _, c := range counts {
		ix := x.Index(c.chain, c.kind)
		if n, err := ix.Len(); err != nil || n != c.n {
			t.Fatalf("%s Len = %d, %v; want %d", ix, n, err, c.n)
		}
		if c.n > 0 {
			if got, err := ix.Last(); err != nil || got.Index != c.n-1 {
				t.Fatalf("%s Last = %+v, %v", ix, got, err)
			}
		}
	}
}

func TestConcurrentAccepts(t *testing.T) {
	db, _ := openDB(t)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range uint64(writers) {
		wg.Go(func() {
			for k := w * each; k < (w+1)*each; k++ {
				e := entry(k)
				if _, err := ix.Accept(e.ID, e.Bytes, e.Timestamp, nil); err != nil {
					t.Errorf("Accept %d: %v", k, err)
					return
				}
			}
		})
	}
	wg.Wait()
	all, err := ix.Range(0, writers*each+1)
	if err != nil {
		t.Fatalf("Range: %v", err)
	}
	if len(all) != writers*each {
		t.Fatalf("index holds %d containers, want %d", len(all), writers*each)
	}
	seen := make(map[ids.ID]bool)
	for i, c := range all {
		if c.Index != uint64(i) || seen[c.ID] {
			t.Fatalf("container %d: index %d, seen before %v", i, c.Index, seen[c.ID])
		}
		seen[c.ID] = true
		if got, err := ix.IndexOf(c.ID); err != nil || got != uint64(i) {
			t.Fatalf("IndexOf(%s) = %d, %v; want %d", c.ID, got, err, i)
		}
	}
}

func TestAcceptAfterClose(t *testing.T) {
	db, _ := openDB(t)
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	mustAccept(t, ix, 0, 2)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	e := entry(2)
	if _, err := ix.Accept(e.ID, e.Bytes, e.Timestamp, nil); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Accept after Close: error %v, want storage.ErrClosed", err)
	}
	if n, err := ix.Len(); err != nil || n != 2 {
		t.Fatalf("Len = %d, %v; want 2", n, err)
	}
	if _, err := ix.GetByIndex(1); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("GetByIndex after Close: error %v, want storage.ErrClosed", err)
	}
}

func TestRefusedAppendLeavesNothingForTheNext(t *testing.T) {
	db, _ := openDB(t)
	other, _ := openDB(t)
	vmNS := db.Namespace("vm")
	ix := newIndexes(t, db, nil).Index(testChain, "block")
	mustAccept(t, ix, 0, 2)
	refused := []struct {
		name    string
		entries []Entry
		extra   func(b *storage.Batch) error
	}{
		{"duplicate", []Entry{entry(2), entry(0)}, func(b *storage.Batch) error {
			b.In(vmNS).Put([]byte("dup"), []byte("v"))
			return nil
		}},
		{"extra fails", []Entry{entry(2)}, func(b *storage.Batch) error {
			b.In(vmNS).Put([]byte("failed"), []byte("v"))
			return errors.New("broken")
		}},
		{"extra writes another database", []Entry{entry(2)}, func(b *storage.Batch) error {
			b.In(other.Namespace("vm")).Put([]byte("other"), []byte("v"))
			return nil
		}},
	}
	for _, r := range refused {
		if _, err := ix.AcceptMany(r.entries, r.extra); err == nil {
			t.Fatalf("%s: AcceptMany succeeded", r.name)
		}
	}
	keysBefore := rawKeys(t, ix)
	c, err := ix.Accept(entry(2).ID, entry(2).Bytes, entry(2).Timestamp, nil)
	if err != nil {
		t.Fatalf("Accept after refusals: %v", err)
	}
	checkContainer(t, c, 2)
	// A record and an ID entry; the counter is rewritten.
	if got := rawKeys(t, ix); got != keysBefore+2 {
		t.Fatalf("index holds %d keys, want %d", got, keysBefore+2)
	}
	if err := vmNS.Iterate(nil, nil, func(k, _ []byte) error {
		return fmt.Errorf("VM key %q written by a refused append", k)
	}); err != nil {
		t.Fatal(err)
	}
}
