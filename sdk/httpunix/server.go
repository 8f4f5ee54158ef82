package httpunix

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/debug"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/sdk/httpserve"
)

// The headers the host adds to a forwarded request.
const (
	// HeaderHandler names the plugin handler of the request.
	HeaderHandler = "Chainhost-Handler"
	// HeaderRemoteAddr is the client's address, for r.RemoteAddr.
	HeaderRemoteAddr = "Chainhost-Remote-Addr"
	// HeaderRequestURI is the request target the client sent, for
	// r.RequestURI.
	HeaderRequestURI = "Chainhost-Request-Uri"
)

// ServeFD serves the handlers that lookup finds on the listening unix socket
// the process inherited as file descriptor fd, until Shutdown of the
// returned server (which closes this process's copy only).
func ServeFD(fd uint32, lookup func(name string) (http.Handler, bool), logger hclog.Logger) (*httpserve.Server, error) {
	f := os.NewFile(uintptr(fd), "data socket")
	if f == nil {
		return nil, fmt.Errorf("data socket: file descriptor %d is not valid", fd)
	}
	ln, err := net.FileListener(f) // a copy: f is not needed afterwards
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("data socket on file descriptor %d: %w", fd, err)
	}
	srv, err := Serve(ln, lookup, logger)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	return srv, nil
}

// Serve serves the handlers that lookup finds on ln in the background. It
// sets no limits: only the host connects, and it applies them.
func Serve(ln net.Listener, lookup func(name string) (http.Handler, bool), logger hclog.Logger) (*httpserve.Server, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	h := &server{lookup: lookup, logger: logger}
	srv, err := httpserve.Serve(ln, httpserve.Limits{}, h, logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}))
	if err != nil {
		return nil, fmt.Errorf("data socket: %w", err)
	}
	return srv, nil
}

// server dispatches a forwarded request to its handler.
type server struct {
	lookup func(string) (http.Handler, bool)
	logger hclog.Logger
}

// ServeHTTP serves a request the host forwarded.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	names, ok := r.Header[HeaderHandler]
	if !ok || len(names) != 1 {
		http.Error(w, "no "+HeaderHandler+" header", http.StatusBadRequest)
		return
	}
	name := names[0]
	h, ok := s.lookup(name)
	if !ok {
		http.Error(w, fmt.Sprintf("no handler %q", name), http.StatusNotFound)
		return
	}
	r.RemoteAddr = r.Header.Get(HeaderRemoteAddr)
	if uri := r.Header.Get(HeaderRequestURI); uri != "" {
		r.RequestURI = uri
	}
	for _, k := range []string{HeaderHandler, HeaderRemoteAddr, HeaderRequestURI} {
		delete(r.Header, k)
	}
	rec := &startedWriter{ResponseWriter: w}
	defer s.recover(name, rec, r)
	h.ServeHTTP(rec, r)
}

// recover turns a handler's panic into a 500 when nothing was written yet,
// as the gRPC path does; after that the connection is cut.
func (s *server) recover(name string, w *startedWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	s.logger.Error("http handler panicked", "handler", name, "method", r.Method,
		"path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
	if w.started {
		panic(http.ErrAbortHandler)
	}
	http.Error(w.ResponseWriter, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
}

// startedWriter records whether the answer began.
type startedWriter struct {
	http.ResponseWriter
	started bool
}

func (w *startedWriter) WriteHeader(code int) {
	if code >= 200 {
		w.started = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *startedWriter) Write(b []byte) (int, error) {
	w.started = true
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher, for handlers that stream.
func (w *startedWriter) Flush() {
	w.started = true
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the server's writer.
func (w *startedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
