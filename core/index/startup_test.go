package index

import (
	"errors"
	"testing"
)

func TestCheckStartup(t *testing.T) {
	type run struct {
		enabled, allow bool
		wantIncomplete bool
		wantRefused    bool
	}
	on := run{enabled: true}
	off := run{wantIncomplete: true}
	offRefused := run{wantRefused: true}
	offAllowed := run{allow: true, wantIncomplete: true}
	onIncomplete := run{enabled: true, wantIncomplete: true}

	tests := []struct {
		name string
		runs []run
	}{
		{"first run on", []run{on}},
		{"on, on again", []run{on, on, on}},
		{"first run off", []run{off}},
		{"off, then on: incomplete", []run{off, onIncomplete}},
		{"on, then off: refused", []run{on, offRefused}},
		{"on, then off refused, then on: still complete", []run{on, offRefused, on}},
		{"on, then off allowed: incomplete for good", []run{on, offAllowed, onIncomplete, offAllowed, onIncomplete}},
		{"on, then off with allow but refused without", []run{on, offAllowed, offRefused}},
		{"allow alone changes nothing when on", []run{{enabled: true, allow: true}, on}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first, dir := openDB(t)
			if err := first.Close(); err != nil {
				t.Fatal(err)
			}
			for i, r := range tc.runs {
				// Each run reopens the database, as a restart would.
				db := openDBAt(t, dir)
				incomplete, err := CheckStartup(db.Namespace("node"), r.enabled, r.allow)
				switch {
				case r.wantRefused && !errors.Is(err, ErrWouldBeIncomplete):
					t.Fatalf("run %d: error = %v, want ErrWouldBeIncomplete", i, err)
				case !r.wantRefused && err != nil:
					t.Fatalf("run %d: %v", i, err)
				case !r.wantRefused && incomplete != r.wantIncomplete:
					t.Fatalf("run %d: incomplete = %v, want %v", i, incomplete, r.wantIncomplete)
				}
				if err := db.Close(); err != nil {
					t.Fatalf("close: %v", err)
				}
			}
		})
	}
}

func TestCheckStartupMessage(t *testing.T) {
	db, _ := openDB(t)
	ns := db.Namespace("node")
	if _, err := CheckStartup(ns, true, false); err != nil {
		t.Fatal(err)
	}
	_, err := CheckStartup(ns, false, false)
	const want = "the index was enabled on a previous run; starting with --index-enabled=false " +
		"would leave it incomplete. Pass --index-allow-incomplete to start anyway"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}
