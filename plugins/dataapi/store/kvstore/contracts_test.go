package kvstore

import (
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

func TestContractReads(t *testing.T) { storetest.TestContractReads(t, backend(EnginePebble)) }

// TestBackfillTokenTransfers: a data directory of the previous release
// (no token transfer lists, no record of the backfill) gets the lists on
// open.
func TestBackfillTokenTransfers(t *testing.T) {
	be := backend(EnginePebble)
	storetest.TestBackfillTokenTransfers(t, be, func(t *testing.T, st store.Store) store.Store {
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
		wb.del(metaKey(backfillTokenXfers))
		if err := wb.commit(); err != nil {
			t.Fatal(err)
		}
		return be.Reopen(t, s)
	})
}
