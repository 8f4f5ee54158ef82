package logging

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// Level is a log level as operators name it (docs/api/admin.md).
// Levels are ordered from the most verbose (Verbo) to Off.
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

var levelNames = [...]string{"VERBO", "DEBUG", "TRACE", "INFO", "WARN", "ERROR", "FATAL", "OFF"}

// LevelNames lists the accepted level names, most verbose first.
func LevelNames() []string { return append([]string(nil), levelNames[:]...) }

// ParseLevel reads a level name, case-insensitively.
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if strings.EqualFold(s, n) {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown log level %q (want one of %s)", s, strings.Join(levelNames[:], ", "))
}

// String returns the level's canonical upper-case name.
func (l Level) String() string {
	if l < Verbo || l > Off {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// MarshalText writes the canonical name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
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
