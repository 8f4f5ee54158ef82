package evm

import (
	"context"
	"log/slog"
	"strings"

	"github.com/ethereum/go-ethereum/log"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/sdk/loglevel"
)

// parseLevel reads a level name of the node (sdk/loglevel), or
// go-ethereum's "crit" for FATAL, in any case, and returns the level of
// go-ethereum's logger.
func parseLevel(name string) (slog.Level, error) {
	name = strings.TrimSpace(name)
	if strings.EqualFold(name, "crit") {
		return loglevel.Fatal.Slog(), nil
	}
	l, err := loglevel.Parse(name)
	if err != nil {
		return 0, err
	}
	return l.Slog(), nil
}

// hclogHandler is a slog.Handler that writes go-ethereum's log records to
// the chain's hclog logger (which the host forwards to its log), filtered
// by a level the admin API can change.
type hclogHandler struct {
	out   hclog.Logger
	level *slog.LevelVar
	attrs []any
}

// newLogHandler returns the handler writing to out at level.
func newLogHandler(out hclog.Logger, level *slog.LevelVar) *hclogHandler {
	return &hclogHandler{out: out, level: level}
}

// Enabled reports whether records at l pass the level.
func (h *hclogHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// Handle writes one record.
func (h *hclogHandler) Handle(_ context.Context, r slog.Record) error {
	args := make([]any, 0, len(h.attrs)+2*r.NumAttrs())
	args = append(args, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		args = append(args, a.Key, a.Value.Resolve().Any())
		return true
	})
	h.out.Log(hclogLevel(r.Level), r.Message, args...)
	return nil
}

// WithAttrs returns a handler adding attrs to every record.
func (h *hclogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := &hclogHandler{out: h.out, level: h.level, attrs: append([]any(nil), h.attrs...)}
	for _, a := range attrs {
		n.attrs = append(n.attrs, a.Key, a.Value.Resolve().Any())
	}
	return n
}

// WithGroup is not used by go-ethereum; groups are flattened.
func (h *hclogHandler) WithGroup(string) slog.Handler { return h }

func hclogLevel(l slog.Level) hclog.Level {
	switch {
	case l >= log.LevelError:
		return hclog.Error
	case l >= log.LevelWarn:
		return hclog.Warn
	case l >= log.LevelInfo:
		return hclog.Info
	case l >= log.LevelDebug:
		return hclog.Debug
	}
	return hclog.Trace
}
