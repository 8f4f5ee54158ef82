// Package loglevel defines chainhost's log levels once: their names as
// operators write them (config, flags, the admin APIs), their order, and
// what each lets through in hclog (the loggers of the host and of every
// plugin) and in slog (go-ethereum's logger in the EVM).
package loglevel

import (
	"fmt"
	"log/slog"
	"math"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// Level is a log level. Levels are ordered from the most verbose (Verbo)
// to Off.
type Level int

// The levels, most verbose first. The order follows avalanchego, where
// TRACE sits between DEBUG and INFO.
const (
	Verbo Level = iota
	Debug
	Trace
	Info
	Warn
	Error
	Fatal
	Off
)

var names = [...]string{"VERBO", "DEBUG", "TRACE", "INFO", "WARN", "ERROR", "FATAL", "OFF"}

// Names lists the accepted level names, most verbose first.
func Names() []string { return append([]string(nil), names[:]...) }

// Parse reads a level name, case-insensitively.
func Parse(s string) (Level, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown log level %q (want one of %s)", s, strings.Join(names[:], ", "))
}

// String returns the level's canonical upper-case name.
func (l Level) String() string {
	if !l.Valid() {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return names[l]
}

// Valid reports whether l is one of the levels.
func (l Level) Valid() bool { return l >= Verbo && l <= Off }

// MarshalText writes the canonical name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Hclog maps the level to the hclog level used for filtering. hclog has no
// level between Debug and Info, so TRACE filters like DEBUG, and FATAL like
// ERROR; the name given by the operator is kept and reported back as set.
func (l Level) Hclog() hclog.Level {
	switch l {
	case Verbo:
		return hclog.Trace
	case Debug, Trace:
		return hclog.Debug
	case Info:
		return hclog.Info
	case Warn:
		return hclog.Warn
	case Error, Fatal:
		return hclog.Error
	default:
		return hclog.Off
	}
}

// The slog levels go-ethereum adds around slog's own (its log.LevelTrace
// and log.LevelCrit), and one above every level for Off.
const (
	slogTrace = slog.Level(-8)
	slogCrit  = slog.Level(12)
	slogOff   = slog.Level(math.MaxInt32)
)

// Slog maps the level to the slog level of go-ethereum's logger: VERBO is
// go-ethereum's trace, TRACE filters like DEBUG, FATAL is its crit, and
// OFF is above every level.
func (l Level) Slog() slog.Level {
	switch l {
	case Verbo:
		return slogTrace
	case Debug, Trace:
		return slog.LevelDebug
	case Info:
		return slog.LevelInfo
	case Warn:
		return slog.LevelWarn
	case Error:
		return slog.LevelError
	case Fatal:
		return slogCrit
	default:
		return slogOff
	}
}
