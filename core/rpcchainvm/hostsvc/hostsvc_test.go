package hostsvc

import (
	"path/filepath"
	"testing"

	"github.com/chainhost/chainhost/core/storage"
)

// openDB opens a real host database in a temp dir.
func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
