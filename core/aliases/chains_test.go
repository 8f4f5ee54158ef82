package aliases

import (
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/ids"
)

func open(t *testing.T, dir string) (*storage.DB, *Chains) {
	t.Helper()
	db, err := storage.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChains(db.Namespace("aliases"))
	if err != nil {
		t.Fatal(err)
	}
	return db, c
}

func TestRegisterResolve(t *testing.T) {
	dir := t.TempDir()
	db, c := open(t, dir)
	a, b, d := ids.Derive([]byte("a")), ids.Derive([]byte("b")), ids.Derive([]byte("d"))
	steps := []struct {
		id      ids.ID
		alias   string
		persist bool
		wantErr string
	}{
		{a, "C", false, ""},
		{a, "C", false, ""},
		{b, "C", false, "already used by chain"},
		{b, "X", true, ""},
		{b, "", false, "empty"},
		{b, strings.Repeat("x", maxLen), true, ""},
		{b, strings.Repeat("x", maxLen+1), true, "513 characters"},
		{b, "a/b", true, "not allowed"},
		{b, "a%2Fb", true, "not allowed"},
		{b, "a\x00b", true, "not allowed"},
		{b, "a\x1bb", true, "not allowed"},
		{b, "a\u0085b", true, "not allowed"},
		{b, ".", true, "relative path segment"},
		{b, "..", true, "relative path segment"},
		{d, "...", true, ""},
		{d, "é", true, ""},
		{b, a.String(), true, "ID of another chain"},
	}
	for _, s := range steps {
		_, err := c.Register(s.id, s.alias, s.persist)
		if s.wantErr == "" && err != nil {
			t.Fatalf("Register(%q): %v", s.alias, err)
		}
		if s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)) {
			t.Fatalf("Register(%q) = %v, want error containing %q", s.alias, err, s.wantErr)
		}
	}
	for in, want := range map[string]ids.ID{"C": a, "X": b, a.String(): a} {
		if got, ok := c.Resolve(in); !ok || got != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", in, got, ok, want)
		}
	}
	if _, ok := c.Resolve("nope"); ok {
		t.Error("Resolve(nope) succeeded")
	}
	if got := c.Aliases(b); len(got) != 2 || got[0] != "X" {
		t.Errorf("Aliases(b) = %v", got)
	}
	db.Close()

	// Only persisted aliases come back; config aliases, registered again at
	// start, come first, and win over a stored alias of another chain.
	db, c = open(t, dir)
	defer db.Close()
	if _, ok := c.Resolve("X"); !ok {
		t.Error("persisted alias X lost")
	}
	if _, ok := c.Resolve("C"); ok {
		t.Error("config alias C was persisted")
	}
	if _, err := c.Register(b, "B", false); err != nil {
		t.Fatal(err)
	}
	if got := c.Aliases(b); len(got) != 3 || got[0] != "B" || got[1] != "X" {
		t.Errorf("Aliases(b) after restart = %v, want B first, then the stored ones", got)
	}
	replaced, err := c.Register(a, "X", false)
	if err != nil || replaced == nil || *replaced != b {
		t.Fatalf("config alias over a stored one: replaced %v, %v", replaced, err)
	}
	if got, _ := c.Resolve("X"); got != a {
		t.Errorf("X resolves to %s, want %s", got, a)
	}
	if ok, _ := db.Namespace("aliases").Has([]byte("X")); ok {
		t.Error("the replaced stored alias is still stored")
	}
}
