package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// Defaults for the zero values of Options.
const (
	DefaultMaxBatchSize       = 40              // the public node's limit (docs/api/jsonrpc.md)
	DefaultMaxBodyBytes int64 = 5 * 1024 * 1024 // as go-ethereum's HTTP server
)

// Handler serves one method. params is always a JSON object; the result is
// encoded with encoding/json, except a RawResult, which is sent as it is.
// Return an *Error to choose the error code.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Options tunes a Server; the zero value is usable.
type Options struct {
	// MaxBatchSize is the most items a batch may hold; 0 or less means
	// DefaultMaxBatchSize.
	MaxBatchSize int
	// MaxBodyBytes is the largest request body accepted; 0 or less means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// OnCall, if set, runs after every call of a registered method with
	// its duration and its error (nil on success). Unknown methods and
	// invalid requests are not reported, so metrics stay bounded.
	OnCall func(method string, dur time.Duration, err *Error)
	// OnPanic, if set, receives the value and stack of a method's panic.
	OnPanic func(method string, recovered any, stack []byte)
}

// Server is an http.Handler serving registered JSON-RPC methods. Methods
// may be registered while it serves.
type Server struct {
	opts Options

	mu      sync.RWMutex
	methods map[string]Handler
}

// NewServer returns a Server with no methods.
func NewServer(opts Options) *Server {
	if opts.MaxBatchSize <= 0 {
		opts.MaxBatchSize = DefaultMaxBatchSize
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return &Server{opts: opts, methods: make(map[string]Handler)}
}

// Register adds the method name (in full, like "admin.alias"). An empty
// name, a nil handler or a name already registered is a programming error
// and panics.
func (s *Server) Register(name string, h Handler) {
	if name == "" {
		panic("jsonrpc: Register with an empty method name")
	}
	if h == nil {
		panic(fmt.Sprintf("jsonrpc: Register %q with a nil handler", name))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.methods[name]; dup {
		panic(fmt.Sprintf("jsonrpc: method %q registered twice", name))
	}
	s.methods[name] = h
}

// Methods returns the registered method names, sorted.
func (s *Server) Methods() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Sorted(maps.Keys(s.methods))
}

// lookup returns the handler of a method.
func (s *Server) lookup(name string) (Handler, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h, ok := s.methods[name]
	return h, ok
}
