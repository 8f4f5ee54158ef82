package logging

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/chainhost/chainhost/sdk/loglevel"

	"github.com/hashicorp/go-hclog"
)

// Options configures a Registry.
type Options struct {
	// Dir is the log directory, created if missing; each logger appends
	// JSON lines to <Dir>/<name>.log. Empty means no log files.
	Dir string
	// Display receives the human-readable lines of every logger; nil means
	// os.Stderr.
	Display io.Writer
	// LogLevel is the log (file) level of new loggers. The zero value is
	// VERBO, so callers set it from config.
	LogLevel loglevel.Level
	// DisplayLevel is the display level of new loggers. The zero value is
	// VERBO, so callers set it from config.
	DisplayLevel loglevel.Level
}

// Registry hands out named loggers and changes their levels at run time.
// It is safe for concurrent use.
type Registry struct {
	dir       string
	display   io.Writer
	displayMu *sync.Mutex // shared by every display logger: one writer, whole lines

	// changeMu orders level changes together with their notifications, so
	// observers see the changes of one name in the order they were made.
	changeMu sync.Mutex

	mu        sync.Mutex
	entries   map[string]*entry
	defaults  LevelPair
	observers []func(name string, p LevelPair)
	closed    bool
}

// entry is one named logger: its levels, its file and the root logger that
// every logger handed out for the name derives from.
type entry struct {
	pair atomic.Pointer[LevelPair]
	file *fileWriter // nil without a log file
	root *logger
}

func (e *entry) levels() LevelPair { return *e.pair.Load() }

// apply stores p and sets the sinks' levels; hclog shares a logger's level
// with all its sub-loggers, so the change reaches them at once.
func (e *entry) apply(p LevelPair) {
	e.pair.Store(&p)
	fileLevel := p.LogLevel.Hclog()
	if e.file == nil {
		fileLevel = hclog.Off
	}
	e.root.file.SetLevel(fileLevel)
	e.root.display.SetLevel(p.DisplayLevel.Hclog())
}

// NewRegistry creates the log directory (if any) and returns an empty
// registry.
func NewRegistry(opts Options) (*Registry, error) {
	if !opts.LogLevel.Valid() || !opts.DisplayLevel.Valid() {
		return nil, fmt.Errorf("new log registry: invalid default levels %s, %s", opts.LogLevel, opts.DisplayLevel)
	}
	if opts.Dir != "" {
		if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("create log dir %s: %w", opts.Dir, err)
		}
	}
	display := opts.Display
	if display == nil {
		display = os.Stderr
	}
	return &Registry{
		dir:       opts.Dir,
		display:   display,
		displayMu: new(sync.Mutex),
		entries:   make(map[string]*entry),
		defaults:  LevelPair{LogLevel: opts.LogLevel, DisplayLevel: opts.DisplayLevel},
	}, nil
}

// Get returns the logger called name, creating it with the default levels
// on first use. Characters that are unsafe in a file name are replaced by
// '_' (see Names for the stored names).
func (r *Registry) Get(name string) hclog.Logger {
	return r.entry(name).root
}

// PluginLogger returns the logger called name for a go-plugin client. Its
// GetLevel always reports Trace, because go-plugin reads the level once at
// start and drops the plugin's lines below it; the sinks still filter every
// line by the levels in force when it arrives.
func (r *Registry) PluginLogger(name string) hclog.Logger {
	root := r.entry(name).root
	return &logger{e: root.e, file: root.file, display: root.display, plugin: true}
}

func (r *Registry) entry(name string) *entry {
	name = safeName(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries[name]; ok {
		return e
	}
	e, err := r.newEntry(name)
	r.entries[name] = e
	if err != nil {
		e.root.Error("log file unavailable, logging to display only", "error", err)
	}
	return e
}

// newEntry builds the entry for name; on error it still returns a usable
// entry that writes to the display only.
func (r *Registry) newEntry(name string) (*entry, error) {
	e := &entry{}
	var err error
	var out io.Writer = io.Discard
	if r.dir != "" && !r.closed {
		path := filepath.Join(r.dir, name+".log")
		f, openErr := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if openErr != nil {
			err = fmt.Errorf("open log file %s: %w", path, openErr)
		} else {
			e.file = &fileWriter{f: f}
			out = e.file
		}
	}
	e.root = &logger{
		e: e,
		file: hclog.New(&hclog.LoggerOptions{
			Name:       name,
			Level:      hclog.Off,
			Output:     out,
			JSONFormat: true,
		}),
		display: hclog.New(&hclog.LoggerOptions{
			Name:   name,
			Level:  hclog.Off,
			Output: r.display,
			Mutex:  r.displayMu,
			Color:  hclog.AutoColor,
		}),
	}
	e.apply(r.defaults)
	return e, err
}

// Names returns the names of the loggers created so far, sorted.
func (r *Registry) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.entries))
}

// Levels returns the levels of the logger called name.
func (r *Registry) Levels(name string) (LevelPair, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[safeName(name)]
	if !ok {
		return LevelPair{}, fmt.Errorf("unknown logger %q", name)
	}
	return e.levels(), nil
}

// All returns the levels of every logger, by name.
func (r *Registry) All() map[string]LevelPair {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make(map[string]LevelPair, len(r.entries))
	for n, e := range r.entries {
		all[n] = e.levels()
	}
	return all
}

// SetLevels changes the log level, the display level or both (nil leaves a
// level unchanged) of the logger called name, or of every logger when name
// is "" (which also sets the defaults for loggers created later). The
// change applies at once to every logger already handed out; observers are
// then called for each changed logger.
func (r *Registry) SetLevels(name string, log, display *loglevel.Level) error {
	if log == nil && display == nil {
		return errors.New("set log levels: neither a log level nor a display level given")
	}
	for _, l := range []*loglevel.Level{log, display} {
		if l != nil && !l.Valid() {
			return fmt.Errorf("set log levels: invalid level %s", *l)
		}
	}
	change := func(p LevelPair) LevelPair {
		if log != nil {
			p.LogLevel = *log
		}
		if display != nil {
			p.DisplayLevel = *display
		}
		return p
	}

	r.changeMu.Lock()
	defer r.changeMu.Unlock()

	r.mu.Lock()
	var names []string
	if name == "" {
		r.defaults = change(r.defaults)
		for n := range r.entries {
			names = append(names, n)
		}
		slices.Sort(names)
	} else {
		n := safeName(name)
		if _, ok := r.entries[n]; !ok {
			r.mu.Unlock()
			return fmt.Errorf("set log levels: unknown logger %q", name)
		}
		names = []string{n}
	}
	pairs := make([]LevelPair, len(names))
	for i, n := range names {
		e := r.entries[n]
		pairs[i] = change(e.levels())
		e.apply(pairs[i])
	}
	observers := slices.Clone(r.observers)
	r.mu.Unlock()

	for i, n := range names {
		for _, fn := range observers {
			fn(n, pairs[i])
		}
	}
	return nil
}

// OnChange registers fn, called after each level change with the logger's
// name and new levels. fn may read the registry but must not call
// SetLevels.
func (r *Registry) OnChange(fn func(name string, p LevelPair)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.observers = append(r.observers, fn)
}

// Close closes the log files. Loggers keep writing to the display; lines
// for the files are dropped.
func (r *Registry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	var errs []error
	for n, e := range r.entries {
		if e.file == nil {
			continue
		}
		if err := e.file.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close log file of %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}
