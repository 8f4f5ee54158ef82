package kvstore

import (
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

// backend opens stores in temporary directories.
func backend() storetest.Backend {
	dirs := map[store.Store]string{}
	opened := func(t *testing.T, dir string) store.Store {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		dirs[s] = dir
		t.Cleanup(func() {
			if _, open := dirs[s]; open {
				s.Close()
			}
		})
		return s
	}
	return storetest.Backend{
		Open: func(t *testing.T) store.Store { return opened(t, t.TempDir()) },
		Reopen: func(t *testing.T, s store.Store) store.Store {
			dir := dirs[s]
			delete(dirs, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return opened(t, dir)
		},
	}
}

func TestContractReads(t *testing.T) { storetest.TestContractReads(t, backend()) }

// TestBackfillTokenTransfers: a data directory of the previous release
// (no token transfer lists, no record of the backfill) gets the lists on
// open.
func TestBackfillTokenTransfers(t *testing.T) {
	be := backend()
	storetest.TestBackfill(t, be, func(t *testing.T, st store.Store) store.Store {
		s := st.(*Store)
		wb := s.eng.newBatch()
		it := s.eng.iter([]byte{tTokenXfer}, []byte{tTokenXfer + 1})
		for ok := it.First(); ok; ok = it.Next() {
			wb.del(append([]byte(nil), it.Key()...))
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		it = s.eng.iter([]byte{tUndo}, []byte{tUndo + 1})
		for ok := it.First(); ok; ok = it.Next() {
			var entries, kept []undoEntry
			if err := decode(it.Value(), &entries); err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Key[0] != tTokenXfer {
					kept = append(kept, e)
				}
			}
			wb.put(append([]byte(nil), it.Key()...), encode(kept))
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		wb.del(append([]byte{tDone}, backfillTokenXfers...))
		if err := wb.commit(); err != nil {
			t.Fatal(err)
		}
		return be.Reopen(t, s)
	})
}
