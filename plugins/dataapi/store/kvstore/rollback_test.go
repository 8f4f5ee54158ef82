package kvstore_test

import (
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

// TestRollback: the rollback tests (storetest) on both engines.
func TestRollback(t *testing.T) {
	for _, engine := range []string{kvstore.EnginePebble, kvstore.EngineLevelDB} {
		t.Run(engine, func(t *testing.T) {
			dirs := map[store.Store]string{} // the stores open, by directory
			opened := func(t *testing.T, dir string) store.Store {
				s := open(t, engine, dir)
				dirs[s] = dir
				t.Cleanup(func() {
					if _, ok := dirs[s]; ok {
						s.Close()
					}
				})
				return s
			}
			storetest.TestRollback(t, storetest.Backend{
				Open: func(t *testing.T) store.Store { return opened(t, t.TempDir()) },
				Reopen: func(t *testing.T, s store.Store) store.Store {
					dir := dirs[s]
					delete(dirs, s)
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
					return opened(t, dir)
				},
			})
		})
	}
}
