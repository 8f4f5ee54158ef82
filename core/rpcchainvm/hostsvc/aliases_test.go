package hostsvc

import (
	"errors"
	"slices"
	"testing"

	avaids "github.com/ava-labs/avalanchego/ids"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestAliases: a chain's primary alias is its first config alias, its ID
// string is its last alias and names it too; a chain without aliases has
// its ID string as primary alias; an unknown alias is avalanchego's error.
func TestAliases(t *testing.T) {
	chains, err := aliases.NewChains(openDB(t).Namespace("aliases"))
	if err != nil {
		t.Fatal(err)
	}
	x, other := ids.Derive([]byte("X")), ids.Derive([]byte("other"))
	for _, a := range []string{"X", "avm"} {
		if _, err := chains.Register(x, a, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := chains.Register(x, "my-x", true); err != nil {
		t.Fatal(err)
	}
	r := NewAliases(chains)
	xID := avaids.ID(x)
	if got, err := r.PrimaryAlias(xID); err != nil || got != "X" {
		t.Fatalf("primary alias of X: %q, %v", got, err)
	}
	if got, _ := r.Aliases(xID); !slices.Equal(got, []string{"X", "avm", "my-x", xID.String()}) {
		t.Fatalf("aliases of X: %q", got)
	}
	for _, a := range []string{"X", "avm", "my-x", xID.String()} {
		if got, err := r.Lookup(a); err != nil || got != xID {
			t.Fatalf("lookup %q: %s, %v", a, got, err)
		}
	}
	if got, err := r.PrimaryAlias(avaids.ID(other)); err != nil || got != avaids.ID(other).String() {
		t.Fatalf("primary alias of a chain without aliases: %q, %v", got, err)
	}
	if _, err := r.Lookup("nope"); !errors.Is(err, avaids.ErrNoIDWithAlias) {
		t.Fatalf("lookup of an unknown alias: %v", err)
	}
}
