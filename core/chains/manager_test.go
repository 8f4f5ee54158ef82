package chains_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/metrics"
	"github.com/chainhost/chainhost/core/storage"
)

// newManager registers cs on a new database.
func newManager(t *testing.T, cs ...config.Chain) (*chains.Manager, error) {
	t.Helper()
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	al, err := aliases.NewChains(db.Namespace("chain-aliases"))
	if err != nil {
		t.Fatal(err)
	}
	return chains.New(chains.Options{
		Config: &config.Config{DataDir: dir, Chains: cs}, DB: db, Aliases: al,
		Plugins: catalog.New(t.TempDir(), t.TempDir()), Metrics: metrics.New(), Log: hclog.NewNullLogger(),
	})
}

// TestChainID: a chain's config names its ID, or it is derived; an ID
// named for one chain may not be another's, derived or named.
func TestChainID(t *testing.T) {
	const xID = "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
	m, err := newManager(t, config.Chain{Alias: "a", VM: "example", ID: xID}, config.Chain{Alias: "b", VM: "example"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Resolve("a")
	b, _ := m.Resolve("b")
	if a == nil || a.ID.String() != xID || b == nil || b.ID.String() == xID {
		t.Fatalf("chains a %+v, b %+v; want a with ID %s, b with its derived ID", a, b, xID)
	}
	if c, ok := m.Resolve(xID); !ok || c != a {
		t.Errorf("Resolve(%s) = %+v, %v; want chain a", xID, c, ok)
	}

	derived := b.ID.String()
	_, err = newManager(t, config.Chain{Alias: "b", VM: "example"}, config.Chain{Alias: "c", VM: "example", ID: derived})
	if want := "chain c: its ID " + derived + " is already chain b's"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a named ID that is another chain's derived ID: %v, want %q", err, want)
	}
}
