package index

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// filterIndexes returns the indexes of db's "index" namespace with ID
// filters sized by p (zero sizes keep the defaults), closed at the end of
// the test. Set x.params.hook before the first x.Index call.
func filterIndexes(t *testing.T, db *storage.DB, p filterParams) *Indexes {
	t.Helper()
	x := newIndexes(t, db, nil)
	d := defaultFilterParams()
	if p.minCapacity == 0 {
		p.minCapacity = d.minCapacity
	}
	if p.maxCapacity == 0 {
		p.maxCapacity = max(d.maxCapacity, p.minCapacity)
	}
	if p.chunk == 0 {
		p.chunk = d.chunk
	}
	x.params = p
	return x
}

// store appends entries [0, n) to the test chain's block index in db, 100
// per write, through indexes of their own that it closes.
func store(t *testing.T, db *storage.DB, n uint64) {
	t.Helper()
	x := newIndexes(t, db, nil)
	ix := x.Index(testChain, "block")
	for from := uint64(0); from < n; from += 100 {
		var batch []Entry
		for k := from; k < min(from+100, n); k++ {
			batch = append(batch, entry(k))
		}
		if _, err := ix.AcceptMany(batch, nil); err != nil {
			t.Fatalf("AcceptMany at %d: %v", from, err)
		}
	}
	x.Close()
}

// filterState is a copy of an index's filter state.
type filterState struct {
	ready, building bool
	readyCap        uint64
	built           chan struct{}
	off             bool
	err             error
	lookups         uint64
}

// stateOf returns ix's filter state.
func stateOf(ix *Index) filterState {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	f := ix.filter
	return filterState{
		ready: f.ready != nil, building: f.building != nil, readyCap: f.readyCap,
		built: f.built, off: f.off, err: f.err, lookups: f.lookups,
	}
}

// waitFilter waits until no builder of ix runs, at most 20 s, and returns
// the state then.
func waitFilter(t *testing.T, ix *Index) filterState {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s := stateOf(ix)
		if !s.building {
			return s
		}
		select {
		case <-s.built:
		case <-deadline:
			t.Fatal("the ID filter builder did not return within 20 s")
		}
	}
}

// gate holds a builder at one point of one of its builds until opened.
type gate struct {
	build   int32         // which build to hold, from 1
	at      int           // the IDs read when it holds
	builds  atomic.Int32  // builds begun
	held    atomic.Bool   // it has held one
	reached chan struct{} // closed when the builder is held
	open    chan struct{} // closed to let it go
	once    sync.Once
}

// newGate returns a gate for the build-th build at at IDs read, opened at
// the end of the test. Make it after the indexes, so that it opens before
// they close.
func newGate(t *testing.T, build int32, at int) *gate {
	g := &gate{build: build, at: at, reached: make(chan struct{}), open: make(chan struct{})}
	t.Cleanup(g.release)
	return g
}

// hook is the builder's hook.
func (g *gate) hook(read int) {
	if read == 0 {
		g.builds.Add(1)
	}
	if g.builds.Load() == g.build && read == g.at && g.held.CompareAndSwap(false, true) {
		close(g.reached)
		<-g.open
	}
}

// wait waits until the builder is held, at most 20 s.
func (g *gate) wait(t *testing.T) {
	t.Helper()
	select {
	case <-g.reached:
	case <-time.After(20 * time.Second):
		t.Fatal("the builder did not reach the gate")
	}
}

// release lets the builder go.
func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// accept appends entry k, failing the test on an error.
func accept(t *testing.T, ix *Index, k uint64) Container {
	t.Helper()
	e := entry(k)
	c, err := ix.Accept(e.ID, e.Bytes, e.Timestamp, nil)
	if err != nil {
		t.Fatalf("Accept %d: %v", k, err)
	}
	return c
}

// checkRefused fails unless appending entry k fails with an
// *AlreadyIndexedError naming index k.
func checkRefused(t *testing.T, ix *Index, k uint64, err error) {
	t.Helper()
	var already *AlreadyIndexedError
	if !errors.As(err, &already) || already.ID != entry(k).ID || already.Index != k {
		t.Fatalf("append of container %d again: error %v, want it already indexed at %d", k, err, k)
	}
}

func TestFilterRefusesDuplicates(t *testing.T) {
	// Each setup returns an index that holds entries [0, held) at their
	// own positions, its filter in the state the case names, and the gate
	// that holds its builder there, if any.
	tests := []struct {
		name  string
		setup func(t *testing.T) (ix *Index, held uint64, g *gate)
	}{
		{"no filter before the first append", func(t *testing.T) (*Index, uint64, *gate) {
			db, _ := openDB(t)
			store(t, db, 300)
			ix := filterIndexes(t, db, filterParams{}).Index(testChain, "block")
			if s := stateOf(ix); s.ready || s.building {
				t.Fatalf("state %+v, want no filter", s)
			}
			return ix, 300, nil
		}},
		{"building, nothing read yet", func(t *testing.T) (*Index, uint64, *gate) {
			db, _ := openDB(t)
			store(t, db, 300)
			x := filterIndexes(t, db, filterParams{})
			g := newGate(t, 1, 0)
			x.params.hook = g.hook
			ix := x.Index(testChain, "block")
			accept(t, ix, 300)
			g.wait(t)
			accept(t, ix, 301)
			if s := stateOf(ix); s.ready || !s.building {
				t.Fatalf("state %+v, want building", s)
			}
			return ix, 302, g
		}},
		{"building, part read", func(t *testing.T) (*Index, uint64, *gate) {
			db, _ := openDB(t)
			store(t, db, 300)
			x := filterIndexes(t, db, filterParams{chunk: 64})
			g := newGate(t, 1, 64)
			x.params.hook = g.hook
			ix := x.Index(testChain, "block")
			accept(t, ix, 300)
			g.wait(t)
			// Appended after the builder's iterator was made.
			mustAccept(t, ix, 301, 311)
			if s := stateOf(ix); s.ready || !s.building {
				t.Fatalf("state %+v, want building", s)
			}
			return ix, 311, g
		}},
		{"ready", func(t *testing.T) (*Index, uint64, *gate) {
			db, _ := openDB(t)
			store(t, db, 300)
			ix := filterIndexes(t, db, filterParams{}).Index(testChain, "block")
			accept(t, ix, 300)
			waitFilter(t, ix)
			mustAccept(t, ix, 301, 311)
			if s := stateOf(ix); !s.ready || s.building {
				t.Fatalf("state %+v, want ready", s)
			}
			return ix, 311, nil
		}},
		{"regrowing, the old filter in use", func(t *testing.T) (*Index, uint64, *gate) {
			db, _ := openDB(t)
			x := filterIndexes(t, db, filterParams{minCapacity: 64})
			g := newGate(t, 2, 0)
			x.params.hook = g.hook
			ix := x.Index(testChain, "block")
			accept(t, ix, 0)
			waitFilter(t, ix)
			mustAccept(t, ix, 1, 65)
			g.wait(t)
			mustAccept(t, ix, 65, 100)
			if s := stateOf(ix); !s.ready || !s.building || s.readyCap != 64 {
				t.Fatalf("state %+v, want a ready filter of 64 and a build", s)
			}
			return ix, 100, g
		}},
		{"after regrowths", func(t *testing.T) (*Index, uint64, *gate) {
			db, _ := openDB(t)
			ix := filterIndexes(t, db, filterParams{minCapacity: 64}).Index(testChain, "block")
			for k := range uint64(300) {
				accept(t, ix, k)
				waitFilter(t, ix)
			}
			if s := stateOf(ix); !s.ready || s.readyCap < 300 {
				t.Fatalf("state %+v, want a ready filter grown to at least 300", s)
			}
			return ix, 300, nil
		}},
		{"past its largest capacity", func(t *testing.T) (*Index, uint64, *gate) {
			db, _ := openDB(t)
			ix := filterIndexes(t, db, filterParams{minCapacity: 64, maxCapacity: 64}).Index(testChain, "block")
			accept(t, ix, 0)
			waitFilter(t, ix)
			mustAccept(t, ix, 1, 500)
			if s := stateOf(ix); !s.ready || s.building || s.readyCap != 64 {
				t.Fatalf("state %+v, want a ready filter of 64", s)
			}
			return ix, 500, nil
		}},
		{"after reopening the database, building", func(t *testing.T) (*Index, uint64, *gate) {
			db, dir := openDB(t)
			store(t, db, 300)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = openDBAt(t, dir)
			x := filterIndexes(t, db, filterParams{chunk: 100})
			g := newGate(t, 1, 100)
			x.params.hook = g.hook
			ix := x.Index(testChain, "block")
			accept(t, ix, 300)
			g.wait(t)
			accept(t, ix, 301)
			if s := stateOf(ix); s.ready || !s.building {
				t.Fatalf("state %+v, want building", s)
			}
			return ix, 302, g
		}},
		{"after reopening the database, ready", func(t *testing.T) (*Index, uint64, *gate) {
			db, dir := openDB(t)
			ix := filterIndexes(t, db, filterParams{}).Index(testChain, "block")
			mustAccept(t, ix, 0, 300)
			if s := waitFilter(t, ix); !s.ready {
				t.Fatalf("state %+v before the reopen, want ready", s)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = openDBAt(t, dir)
			ix = filterIndexes(t, db, filterParams{}).Index(testChain, "block")
			accept(t, ix, 300)
			if s := waitFilter(t, ix); !s.ready {
				t.Fatalf("state %+v after the reopen, want ready", s)
			}
			return ix, 301, nil
		}},
		{"indexes closed, no filter", func(t *testing.T) (*Index, uint64, *gate) {
			db, _ := openDB(t)
			store(t, db, 300)
			x := filterIndexes(t, db, filterParams{})
			x.Close()
			ix := x.Index(testChain, "block")
			accept(t, ix, 300)
			if s := stateOf(ix); s.ready || s.building || !s.off {
				t.Fatalf("state %+v, want no filter and no build", s)
			}
			return ix, 301, nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix, held, g := tc.setup(t)
			checkDuplicates(t, ix, held)
			checkContainer(t, accept(t, ix, held), held)
			// Then the same once the builder is done, in whatever state
			// that leaves the filter.
			if g != nil {
				g.release()
			}
			s := waitFilter(t, ix)
			checkDuplicates(t, ix, held+1)
			if s.ready {
				checkIndexed(t, ix, held+1)
			}
		})
	}
}

// checkDuplicates fails unless ix holds exactly held containers and
// refuses to append any of them again, alone or in a batch.
func checkDuplicates(t *testing.T, ix *Index, held uint64) {
	t.Helper()
	for k := range held {
		_, err := ix.Accept(entry(k).ID, []byte("again"), time.Time{}, nil)
		checkRefused(t, ix, k, err)
	}
	// In a batch after a new container: nothing is written.
	_, err := ix.AcceptMany([]Entry{entry(held), entry(held / 2)}, nil)
	checkRefused(t, ix, held/2, err)
	if n, err := ix.Len(); err != nil || n != held {
		t.Fatalf("Len = %d, %v; want %d", n, err, held)
	}
}

func TestFilterNoFalseDuplicates(t *testing.T) {
	tests := []struct {
		name   string
		params filterParams
	}{
		{"default size", filterParams{}},
		{"regrowing from 64", filterParams{minCapacity: 64, chunk: 16}},
		{"saturated at 64", filterParams{minCapacity: 64, maxCapacity: 64}},
	}
	const n = 3000
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := openDB(t)
			ix := filterIndexes(t, db, tc.params).Index(testChain, "block")
			for k := uint64(0); k < n; {
				if k%300 == 0 {
					// A batch, then singles.
					var batch []Entry
					for j := k; j < k+50; j++ {
						batch = append(batch, entry(j))
					}
					if _, err := ix.AcceptMany(batch, nil); err != nil {
						t.Fatalf("AcceptMany at %d: %v", k, err)
					}
					k += 50
					continue
				}
				accept(t, ix, k)
				k++
			}
			s := waitFilter(t, ix)
			if !s.ready || s.err != nil {
				t.Fatalf("state %+v, want a ready filter", s)
			}
			if got, err := ix.Len(); err != nil || got != n {
				t.Fatalf("Len = %d, %v; want %d", got, err, n)
			}
			checkIndexed(t, ix, n)
		})
	}
}

// checkIndexed fails unless the ready filter of ix holds every ID of its
// n containers.
func checkIndexed(t *testing.T, ix *Index, n uint64) {
	t.Helper()
	ix.mu.Lock()
	f := ix.filter.ready
	ix.mu.Unlock()
	if f == nil {
		t.Fatal("no ready filter")
	}
	var seen uint64
	err := ix.ns.Iterate([]byte{prefixID}, nil, func(key, _ []byte) error {
		seen++
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if !f.Test(key[1:]) {
			return errors.New("the ready filter misses indexed ID " + ids.ID(key[1:]).String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != n {
		t.Fatalf("found %d ID entries, want %d", seen, n)
	}
}

func TestFilterSkipsLookups(t *testing.T) {
	db, _ := openDB(t)
	ix := filterIndexes(t, db, filterParams{}).Index(testChain, "block")
	accept(t, ix, 0)
	before := waitFilter(t, ix)
	if !before.ready {
		t.Fatalf("state %+v, want ready", before)
	}
	const n = 2000
	mustAccept(t, ix, 1, n+1)
	// At 1% false positives, about 20 of them read the database.
	if got := stateOf(ix).lookups - before.lookups; got > n/20 {
		t.Fatalf("%d appends of new IDs made %d database lookups, want at most %d", n, got, n/20)
	}
	_, err := ix.Accept(entry(7).ID, nil, time.Time{}, nil)
	checkRefused(t, ix, 7, err)
}

func TestFilterBuildRacesAppends(t *testing.T) {
	db, _ := openDB(t)
	const stored, writers, each = 3000, 4, 1500
	store(t, db, stored)
	x := filterIndexes(t, db, filterParams{minCapacity: 64, chunk: 8})
	// Slow builds, so that many appends land while they run.
	x.params.hook = func(int) { time.Sleep(500 * time.Microsecond) }
	ix := x.Index(testChain, "block")

	var wg sync.WaitGroup
	for w := range uint64(writers) {
		wg.Go(func() {
			from := stored + w*each
			for k := from; k < from+each; {
				if k%4 == 0 {
					batch := []Entry{entry(k), entry(k + 1), entry(k + 2)}
					if _, err := ix.AcceptMany(batch, nil); err != nil {
						t.Errorf("AcceptMany %d: %v", k, err)
						return
					}
					k += 3
					continue
				}
				e := entry(k)
				if _, err := ix.Accept(e.ID, e.Bytes, e.Timestamp, nil); err != nil {
					t.Errorf("Accept %d: %v", k, err)
					return
				}
				k++
			}
		})
	}
	for d := range uint64(2) {
		wg.Go(func() {
			for k := d; k < stored; k += 7 {
				var already *AlreadyIndexedError
				if _, err := ix.Accept(entry(k).ID, nil, time.Time{}, nil); !errors.As(err, &already) || already.Index != k {
					t.Errorf("append of stored container %d again: error %v, want it already indexed at %d", k, err, k)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	const total = stored + writers*each
	if s := waitFilter(t, ix); !s.ready || s.err != nil {
		t.Fatalf("state %+v, want a ready filter", s)
	}
	checkIndexed(t, ix, total)
	// One more append regrows a filter that the appends outgrew while a
	// build ran.
	accept(t, ix, total)
	s := waitFilter(t, ix)
	if !s.ready || s.err != nil || s.readyCap < total+1 {
		t.Fatalf("state %+v, want a ready filter of at least %d", s, total+1)
	}
	checkIndexed(t, ix, total+1)
}

func TestFilterStopsCleanly(t *testing.T) {
	tests := []struct {
		name string
		stop func(t *testing.T, db *storage.DB, x *Indexes, g *gate)
	}{
		{"database closed", func(t *testing.T, db *storage.DB, _ *Indexes, g *gate) {
			closed := make(chan error, 1)
			go func() { closed <- db.Close() }()
			// Close waits for the builder's iteration; let it go once Close
			// has begun, so that the builder sees the database closing.
			probe := db.Namespace("probe")
			plugintest.Eventually(t, 20*time.Second, func() error {
				if _, err := probe.Has([]byte("k")); !errors.Is(err, storage.ErrClosed) {
					return fmt.Errorf("Close did not begin: Has = %v", err)
				}
				return nil
			})
			g.release()
			select {
			case err := <-closed:
				if err != nil {
					t.Fatalf("Close: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Close did not return")
			}
		}},
		{"indexes closed", func(t *testing.T, _ *storage.DB, x *Indexes, g *gate) {
			done := make(chan struct{})
			go func() {
				x.Close()
				close(done)
			}()
			// Let the builder go once Close has asked it to stop, so that
			// it does not finish first.
			<-x.work.stop
			g.release()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Close did not return")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := openDB(t)
			store(t, db, 2000)
			x := filterIndexes(t, db, filterParams{chunk: 64})
			g := newGate(t, 1, 64)
			x.params.hook = g.hook
			ix := x.Index(testChain, "block")
			accept(t, ix, 2000)
			g.wait(t)
			building := stateOf(ix)

			tc.stop(t, db, x, g)
			select {
			case <-building.built:
			case <-time.After(20 * time.Second):
				t.Fatal("the builder did not return")
			}
			if s := stateOf(ix); s.ready || s.building || !s.off || s.err != nil {
				t.Fatalf("state %+v, want no filter, no build, no error", s)
			}
		})
	}
}

func TestFilterBuildFailureFallsBack(t *testing.T) {
	db, _ := openDB(t)
	store(t, db, 100)
	x := filterIndexes(t, db, filterParams{})
	ix := x.Index(testChain, "block")
	// An ID entry with a short key: the builder must not trust the data.
	if err := ix.ns.Put([]byte{prefixID, 1, 2, 3}, encodeUint64(5)); err != nil {
		t.Fatal(err)
	}
	accept(t, ix, 100)
	s := waitFilter(t, ix)
	if s.ready || s.err == nil || !errors.Is(s.err, errCorrupt) {
		t.Fatalf("state %+v, want no filter and a corruption error", s)
	}
	_, err := ix.Accept(entry(42).ID, nil, time.Time{}, nil)
	checkRefused(t, ix, 42, err)
	checkContainer(t, accept(t, ix, 101), 101)
	if s := stateOf(ix); s.building {
		t.Fatalf("state %+v: a failed build was retried", s)
	}
}
