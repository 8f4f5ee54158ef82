package index

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/ids"
)

// benchContainerSize is the size of every benchmark container.
const benchContainerSize = 1024

// benchID returns a distinct ID for n, cheaper to make than a hash.
func benchID(n uint64) ids.ID {
	var id ids.ID
	binary.BigEndian.PutUint64(id[:8], n)
	binary.BigEndian.PutUint64(id[24:], ^n)
	return id
}

// BenchmarkAccept appends 1 KiB containers one at a time, each in its own
// batch, with and without waiting for the disk.
func BenchmarkAccept(b *testing.B) {
	for _, sync := range []bool{false, true} {
		name := "nosync"
		if sync {
			name = "sync"
		}
		b.Run(name, func(b *testing.B) {
			db, _ := openDB(b)
			x, err := New(Options{NS: db.Namespace("index"), DB: db, Sync: sync})
			if err != nil {
				b.Fatal(err)
			}
			ix := x.Index(testChain, "block")
			body := make([]byte, benchContainerSize)
			ts := time.Now()
			b.SetBytes(benchContainerSize)
			b.ReportAllocs()
			n := uint64(0)
			for b.Loop() {
				if _, err := ix.Accept(benchID(n), body, ts, nil); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
	}
}

// BenchmarkAcceptMany appends 1 KiB containers in batches of 100 per
// write; one op is one batch.
func BenchmarkAcceptMany(b *testing.B) {
	const perBatch = 100
	db, _ := openDB(b)
	ix := newIndexes(b, db, nil).Index(testChain, "block")
	body := make([]byte, benchContainerSize)
	ts := time.Now()
	entries := make([]Entry, perBatch)
	b.SetBytes(perBatch * benchContainerSize)
	b.ReportAllocs()
	n := uint64(0)
	for b.Loop() {
		for i := range entries {
			entries[i] = Entry{ID: benchID(n), Bytes: body, Timestamp: ts}
			n++
		}
		if _, err := ix.AcceptMany(entries, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSize returns the number of containers of the big benchmark index:
// CHAINHOST_BENCH_CONTAINERS, 100000 by default.
func benchSize(b *testing.B) uint64 {
	s := os.Getenv("CHAINHOST_BENCH_CONTAINERS")
	if s == "" {
		return 100_000
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		b.Fatalf("CHAINHOST_BENCH_CONTAINERS=%q: want a positive integer", s)
	}
	return n
}

// bigIndex returns an index of benchSize 1 KiB containers, IDs benchID(0)
// and on.
func bigIndex(b *testing.B) (*Index, uint64) {
	b.Helper()
	size := benchSize(b)
	db, _ := openDB(b)
	ix := newIndexes(b, db, nil).Index(testChain, "block")
	body := make([]byte, benchContainerSize)
	ts := time.Now()
	const perBatch = 1000
	entries := make([]Entry, 0, perBatch)
	for n := uint64(0); n < size; n++ {
		entries = append(entries, Entry{ID: benchID(n), Bytes: body, Timestamp: ts})
		if len(entries) == perBatch || n == size-1 {
			if _, err := ix.AcceptMany(entries, nil); err != nil {
				b.Fatal(err)
			}
			entries = entries[:0]
		}
	}
	return ix, size
}

// BenchmarkRange1024 reads pages of 1024 containers at random places of
// the big index.
func BenchmarkRange1024(b *testing.B) {
	ix, size := bigIndex(b)
	const page = MaxFetchedByRange
	rng := rand.New(rand.NewPCG(1, 2))
	b.SetBytes(page * benchContainerSize)
	b.ReportAllocs()
	for b.Loop() {
		start := uint64(0)
		if size > page {
			start = rng.Uint64N(size - page)
		}
		cs, err := ix.Range(start, page)
		if err != nil {
			b.Fatal(err)
		}
		if want := min(page, size-start); uint64(len(cs)) != want {
			b.Fatalf("Range returned %d containers, want %d", len(cs), want)
		}
	}
}

// BenchmarkGetByID looks random containers of the big index up by ID.
func BenchmarkGetByID(b *testing.B) {
	ix, size := bigIndex(b)
	rng := rand.New(rand.NewPCG(3, 4))
	b.ReportAllocs()
	for b.Loop() {
		n := rng.Uint64N(size)
		c, err := ix.GetByID(benchID(n))
		if err != nil {
			b.Fatal(err)
		}
		if c.Index != n {
			b.Fatalf("GetByID(%d) found index %d", n, c.Index)
		}
	}
}
