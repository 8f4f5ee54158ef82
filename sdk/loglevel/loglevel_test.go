package loglevel

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestLevels(t *testing.T) {
	tests := []struct {
		name  string
		want  Level
		hclog hclog.Level
		slog  slog.Level
	}{
		{"VERBO", Verbo, hclog.Trace, slog.Level(-8)},
		{"debug", Debug, hclog.Debug, slog.LevelDebug},
		{"Trace", Trace, hclog.Debug, slog.LevelDebug},
		{"INFO", Info, hclog.Info, slog.LevelInfo},
		{"warn", Warn, hclog.Warn, slog.LevelWarn},
		{"ERROR", Error, hclog.Error, slog.LevelError},
		{"fatal", Fatal, hclog.Error, slog.Level(12)},
		{"OFF", Off, hclog.Off, slogOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.name)
			if err != nil || l != tt.want {
				t.Fatalf("Parse(%q) = %v, %v; want %v", tt.name, l, err, tt.want)
			}
			if got := l.Hclog(); got != tt.hclog {
				t.Errorf("%v.Hclog() = %v, want %v", l, got, tt.hclog)
			}
			if got := l.Slog(); got != tt.slog {
				t.Errorf("%v.Slog() = %v, want %v", l, got, tt.slog)
			}
			if got := l.String(); got != strings.ToUpper(tt.name) {
				t.Errorf("String() = %q, want %q", got, strings.ToUpper(tt.name))
			}
			var back Level
			b, _ := l.MarshalText()
			if err := back.UnmarshalText(b); err != nil || back != l {
				t.Errorf("text round trip of %v: %v, %v", l, back, err)
			}
		})
	}
	if len(tests) != len(Names()) {
		t.Errorf("the table has %d levels, Names %d", len(tests), len(Names()))
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"", "LOUD", "WARNING", "crit", " INFO"} {
		_, err := Parse(s)
		if err == nil {
			t.Errorf("Parse(%q) accepted", s)
			continue
		}
		want := `(want one of VERBO, DEBUG, TRACE, INFO, WARN, ERROR, FATAL, OFF)`
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error %q does not list the levels", s, err)
		}
	}
}

func TestValid(t *testing.T) {
	if Level(-1).Valid() || Level(8).Valid() || !Verbo.Valid() || !Off.Valid() {
		t.Error("Valid is wrong at the bounds")
	}
	if got := Level(42).String(); got != "Level(42)" {
		t.Errorf("String of an invalid level = %q", got)
	}
}
