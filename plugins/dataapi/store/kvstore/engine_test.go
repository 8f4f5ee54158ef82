package kvstore

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// model is what an engine must hold: a sorted map of keys to values.
type model map[string]string

// keys returns the model's keys in [lower, upper), in order.
func (m model) keys(lower, upper []byte) []string {
	var out []string
	for k := range m {
		if bytes.Compare([]byte(k), lower) >= 0 && bytes.Compare([]byte(k), upper) < 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// randomKey is a key of 1 to 3 bytes from an alphabet that holds both
// ends of the byte range, so that the bounds the store computes (a
// prefix's successor, 0xff runs) are met. Every key of the store starts
// with its table's byte: none is empty (and pebble's race build refuses
// an empty bound).
func randomKey(rng *rand.Rand) []byte {
	alphabet := []byte{0x00, 0x01, 0x7f, 0xfe, 0xff}
	key := make([]byte, 1+rng.IntN(3))
	for i := range key {
		key[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return key
}

// TestEngineContract checks the one layer where the two engines differ,
// the engine interface the Store is written against, against a model: a
// random sequence of batches, each checked, while a snapshot taken before
// it still reads the state before it, by gets and by walks with every
// move over random ranges, and again after a reopen. The store's own
// tests (storetest) run on the default engine alone; TestEngines compares
// the two engines' answers to the same blocks.
func TestEngineContract(t *testing.T) {
	for _, name := range []string{EnginePebble, EngineLevelDB} {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(name))))
			dir := t.TempDir()
			eng, err := openEngine(name, dir, 8)
			if err != nil {
				t.Fatal(err)
			}
			want := model{}
			for round := range 60 {
				before := maps.Clone(want)
				snap := eng.snapshot()
				b := eng.newBatch()
				for range 1 + rng.IntN(20) {
					k := randomKey(rng)
					if rng.IntN(3) == 0 {
						b.del(k)
						delete(want, string(k))
						continue
					}
					v := fmt.Sprintf("v%d-%d", round, rng.IntN(1000))
					b.put(k, []byte(v))
					want[string(k)] = v
				}
				// Nothing of a batch shows before its commit.
				checkReads(t, fmt.Sprintf("round %d, before the commit", round), eng, before, rng)
				if err := b.commit(); err != nil {
					t.Fatal(err)
				}
				checkReads(t, fmt.Sprintf("round %d", round), eng, want, rng)
				checkReads(t, fmt.Sprintf("round %d, the snapshot before it", round), snap, before, rng)
				snap.release()
			}
			if err := eng.close(); err != nil {
				t.Fatal(err)
			}
			if eng, err = openEngine(name, dir, 8); err != nil {
				t.Fatal(err)
			}
			defer eng.close()
			checkReads(t, "reopened", eng, want, rng)
		})
	}
}

// checkReads compares r with want: a get of every key the model has and
// of missing ones (a get's answer is the caller's to change), then walks
// over random ranges.
func checkReads(t *testing.T, what string, r reader, want model, rng *rand.Rand) {
	t.Helper()
	for k, v := range want {
		got, err := r.get([]byte(k))
		if err != nil || string(got) != v {
			t.Fatalf("%s: get %x = %q, %v; want %q", what, k, got, err, v)
		}
		if len(got) > 0 {
			got[0] ^= 0xff
			if again, _ := r.get([]byte(k)); string(again) != v {
				t.Fatalf("%s: changing what a get of %x answered changed the engine", what, k)
			}
		}
	}
	for range 10 {
		k := randomKey(rng)
		if _, ok := want[string(k)]; ok {
			continue
		}
		if got, err := r.get(k); !errors.Is(err, errMissing) {
			t.Fatalf("%s: get of the missing key %x = %q, %v", what, k, got, err)
		}
	}
	for range 20 {
		lower, upper := randomKey(rng), randomKey(rng)
		if rng.IntN(4) == 0 {
			upper = []byte{0xff, 0xff, 0xff, 0xff}
		}
		if bytes.Compare(lower, upper) > 0 {
			lower, upper = upper, lower
		}
		checkWalk(t, what, r, want, lower, upper, rng)
	}
}

// checkWalk makes random moves of an iterator over [lower, upper) and
// checks each against the model's keys of the range.
func checkWalk(t *testing.T, what string, r reader, want model, lower, upper []byte, rng *rand.Rand) {
	t.Helper()
	keys := want.keys(lower, upper)
	it := r.iter(lower, upper)
	defer func() {
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	pos := -1 // the model's position; -1 or len(keys): off the range
	for range 12 {
		var ok bool
		var move string
		switch rng.IntN(6) {
		case 0:
			move, ok, pos = "First", it.First(), 0
		case 1:
			move, ok, pos = "Last", it.Last(), len(keys)-1
		case 2:
			// Seek keys within the range: the store seeks nothing else.
			k := randomKey(rng)
			if bytes.Compare(k, lower) < 0 || bytes.Compare(k, upper) >= 0 {
				k = lower
			}
			move, ok = fmt.Sprintf("SeekGE(%x)", k), it.SeekGE(k)
			pos, _ = slices.BinarySearch(keys, string(k))
		case 3:
			k := randomKey(rng)
			if bytes.Compare(k, lower) <= 0 || bytes.Compare(k, upper) > 0 {
				k = upper
			}
			move, ok = fmt.Sprintf("SeekLT(%x)", k), it.SeekLT(k)
			at, _ := slices.BinarySearch(keys, string(k))
			pos = at - 1
		case 4:
			if pos < 0 || pos >= len(keys) {
				continue // a step from off the range is not the store's
			}
			move, ok = "Next", it.Next()
			pos++
		case 5:
			if pos < 0 || pos >= len(keys) {
				continue
			}
			move, ok = "Prev", it.Prev()
			pos--
		}
		on := pos >= 0 && pos < len(keys)
		if ok != on {
			t.Fatalf("%s: over [%x, %x) holding %x, %s = %v, want %v", what, lower, upper, keys, move, ok, on)
		}
		if on && (string(it.Key()) != keys[pos] || string(it.Value()) != want[keys[pos]]) {
			t.Fatalf("%s: over [%x, %x), %s is at %x = %q, want %x = %q", what, lower, upper, move, it.Key(), it.Value(), keys[pos], want[keys[pos]])
		}
	}
}
