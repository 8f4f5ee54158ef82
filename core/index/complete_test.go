package index

import "testing"

// TestMarkComplete: after MarkComplete the index is complete again, until
// the next run with indexing off marks it incomplete anew; the rule of
// SPEC 7.2 rule 4 still applies.
func TestMarkComplete(t *testing.T) {
	first, dir := openDB(t)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name           string
		enabled, allow bool
		complete       bool // call MarkComplete after the check
		wantIncomplete bool
		wantErr        bool
	}{
		{name: "on", enabled: true},
		{name: "off, allowed", allow: true, wantIncomplete: true},
		{name: "on, still incomplete", enabled: true, wantIncomplete: true, complete: true},
		{name: "on after MarkComplete", enabled: true},
		{name: "off without allow: refused", wantErr: true},
		{name: "off, allowed again", allow: true, wantIncomplete: true},
		{name: "on, incomplete again", enabled: true, wantIncomplete: true},
		{name: "MarkComplete twice", enabled: true, wantIncomplete: true, complete: true},
		{name: "complete", enabled: true},
	}
	for i, s := range steps {
		db := openDBAt(t, dir)
		ns := db.Namespace("node")
		incomplete, err := CheckStartup(ns, s.enabled, s.allow)
		switch {
		case s.wantErr && err == nil:
			t.Fatalf("step %d (%s): CheckStartup succeeded, want refusal", i, s.name)
		case !s.wantErr && err != nil:
			t.Fatalf("step %d (%s): %v", i, s.name, err)
		case !s.wantErr && incomplete != s.wantIncomplete:
			t.Fatalf("step %d (%s): incomplete = %v, want %v", i, s.name, incomplete, s.wantIncomplete)
		}
		if s.complete {
			for range 2 {
				if err := MarkComplete(ns); err != nil {
					t.Fatalf("step %d (%s): MarkComplete: %v", i, s.name, err)
				}
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
