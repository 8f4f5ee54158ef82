package logging

import (
	"io"
	"log"

	"github.com/hashicorp/go-hclog"
)

// logger is the hclog.Logger handed out by the registry. It writes every
// line to two hclog loggers, one per sink, whose levels the registry sets;
// hclog shares a logger's level with the sub-loggers made from it, so a
// change reaches every logger already handed out.
type logger struct {
	e       *entry
	file    hclog.Logger
	display hclog.Logger
	// plugin makes GetLevel report Trace so that go-plugin, which reads the
	// level once, forwards every line and the sinks do the filtering.
	plugin bool
}

var _ hclog.Logger = (*logger)(nil)

func (l *logger) derive(file, display hclog.Logger) *logger {
	return &logger{e: l.e, file: file, display: display, plugin: l.plugin}
}

// Log writes msg at level to both sinks, each filtering by its own level.
func (l *logger) Log(level hclog.Level, msg string, args ...any) {
	l.file.Log(level, msg, args...)
	l.display.Log(level, msg, args...)
}

// Trace logs at hclog's TRACE, which passes only at VERBO.
func (l *logger) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }

// Debug logs at DEBUG.
func (l *logger) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }

// Info logs at INFO.
func (l *logger) Info(msg string, args ...any) { l.Log(hclog.Info, msg, args...) }

// Warn logs at WARN.
func (l *logger) Warn(msg string, args ...any) { l.Log(hclog.Warn, msg, args...) }

// Error logs at ERROR.
func (l *logger) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

// IsTrace reports whether TRACE lines may be written.
func (l *logger) IsTrace() bool { return l.GetLevel() <= hclog.Trace }

// IsDebug reports whether DEBUG lines may be written.
func (l *logger) IsDebug() bool { return l.GetLevel() <= hclog.Debug }

// IsInfo reports whether INFO lines may be written.
func (l *logger) IsInfo() bool { return l.GetLevel() <= hclog.Info }

// IsWarn reports whether WARN lines may be written.
func (l *logger) IsWarn() bool { return l.GetLevel() <= hclog.Warn }

// IsError reports whether ERROR lines may be written.
func (l *logger) IsError() bool { return l.GetLevel() <= hclog.Error }

// ImpliedArgs returns the key/value pairs added with With.
func (l *logger) ImpliedArgs() []any { return l.file.ImpliedArgs() }

// With returns a sub-logger that adds args to every line.
func (l *logger) With(args ...any) hclog.Logger {
	return l.derive(l.file.With(args...), l.display.With(args...))
}

// Name returns the logger's full name.
func (l *logger) Name() string { return l.file.Name() }

// Named returns a sub-logger whose name is this name plus "." plus name.
func (l *logger) Named(name string) hclog.Logger {
	return l.derive(l.file.Named(name), l.display.Named(name))
}

// ResetNamed returns a sub-logger named name; it keeps this logger's levels.
func (l *logger) ResetNamed(name string) hclog.Logger {
	return l.derive(l.file.ResetNamed(name), l.display.ResetNamed(name))
}

// SetLevel does nothing: the levels belong to the registry (SetLevels), so
// a library handed this logger cannot override what the operator chose.
func (l *logger) SetLevel(hclog.Level) {}

// GetLevel reports the more verbose of the two levels, or Trace for a
// plugin logger.
func (l *logger) GetLevel() hclog.Level {
	if l.plugin {
		return hclog.Trace
	}
	return l.e.levels().Min().Hclog()
}

// StandardLogger returns a standard library logger that writes through l.
func (l *logger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

// StandardWriter returns a writer whose lines are logged through l.
func (l *logger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	if opts == nil {
		opts = &hclog.StandardLoggerOptions{}
	}
	return io.MultiWriter(l.file.StandardWriter(opts), l.display.StandardWriter(opts))
}
