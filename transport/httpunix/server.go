package httpunix

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
)

// watchAfter is how long a handler runs before its connection is watched
// for the host closing it, which cancels the handler's context. Light
// requests end before: they skip the watch's read and its wake-ups, which
// net/http's server pays on every request (docs/benchmarks.md, "The shared
// path").
const watchAfter = time.Millisecond

// maxWatchAgain is the longest wait between looks whether a long handler
// has read its body.
const maxWatchAgain = 100 * time.Millisecond

// longAgo is a read deadline in the past: it ends the watch's read at once.
var longAgo = time.Unix(1, 0)

// Server serves a plugin's handlers on its data socket: one request at a
// time per connection, from the host's pool (transport/host/unixpool) only. It is a server of its own
// and not net/http's because the host is its one client: the request is
// parsed by net/http's ReadRequest, the answer buffered and sent with its
// length in one write (or chunked once a handler flushes or writes more
// than MaxBuffered), and no goroutine reads ahead while a light handler
// runs.
type Server struct {
	ln     net.Listener
	lookup func(name string) (http.Handler, bool)
	logger hclog.Logger
	done   chan struct{} // closed when the accept loop ends
	conns  sync.WaitGroup

	mu     sync.Mutex
	closed bool
	active map[*serverConn]bool // the open connections: whether a request is in progress
}

// ServeFD serves the handlers that lookup finds on the listening unix socket
// the process inherited as file descriptor fd, until Shutdown of the
// returned server (which closes this process's copy only).
func ServeFD(fd uint32, lookup func(name string) (http.Handler, bool), logger hclog.Logger) (*Server, error) {
	f := os.NewFile(uintptr(fd), "data socket")
	if f == nil {
		return nil, fmt.Errorf("data socket: file descriptor %d is not valid", fd)
	}
	ln, err := net.FileListener(f) // a copy: f is not needed afterwards
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("data socket on file descriptor %d: %w", fd, err)
	}
	return Serve(ln, lookup, logger), nil
}

// Serve serves the handlers that lookup finds on ln in the background. It
// sets no limits: only the host connects, and it applies them.
func Serve(ln net.Listener, lookup func(name string) (http.Handler, bool), logger hclog.Logger) *Server {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	s := &Server{ln: ln, lookup: lookup, logger: logger, done: make(chan struct{}), active: map[*serverConn]bool{}}
	go s.accept()
	return s
}

// Shutdown stops accepting and closes the idle connections, waits for the
// requests in progress until ctx ends, then closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	for c, busy := range s.active {
		if !busy {
			_ = c.nc.Close()
		}
	}
	s.mu.Unlock()
	_ = s.ln.Close()
	<-s.done
	finished := make(chan struct{})
	go func() {
		s.conns.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.active {
			_ = c.nc.Close()
		}
		s.mu.Unlock()
		<-finished
		return fmt.Errorf("data socket: requests still in progress: %w", ctx.Err())
	}
}

// accept serves each connection the host opens.
func (s *Server) accept() {
	defer close(s.done)
	backoff := time.Duration(0)
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors, say: the host's requests wait in the
			// backlog until a connection closes, as net/http's server does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logger.Error("data socket: accept failed, retrying", "error", err, "in", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		c := &serverConn{srv: s, nc: nc, br: bufio.NewReader(nc), bw: bufio.NewWriter(nc)}
		if !c.setBusy(false) {
			_ = nc.Close()
			return
		}
		s.conns.Add(1)
		go c.serve()
	}
}

// serverConn is one connection from the host.
type serverConn struct {
	srv *Server
	nc  net.Conn
	br  *bufio.Reader
	bw  *bufio.Writer
}

// setBusy records whether a request is in progress, and reports false once
// the server is shut down (the connection must then close).
func (c *serverConn) setBusy(busy bool) bool {
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	if c.srv.closed {
		return false
	}
	c.srv.active[c] = busy
	return true
}

// serve serves requests until the host closes the connection, an answer
// cannot be framed, or the server shuts down.
func (c *serverConn) serve() {
	defer c.srv.conns.Done()
	hijacked := false
	defer func() {
		c.srv.mu.Lock()
		delete(c.srv.active, c)
		c.srv.mu.Unlock()
		if !hijacked {
			_ = c.nc.Close()
		}
	}()
	for {
		req, err := http.ReadRequest(c.br)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.srv.logger.Debug("data socket: bad request from the host", "error", err)
			}
			return
		}
		if !c.setBusy(true) {
			return
		}
		w, keep := c.serveRequest(req)
		if hijacked = w.hijacked; hijacked || !keep || !c.setBusy(false) {
			return
		}
	}
}

// serveRequest serves one request and sends its answer; keep reports
// whether the connection can carry the next one.
func (c *serverConn) serveRequest(req *http.Request) (w *response, keep bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := &watchedBody{ReadCloser: req.Body}
	body.eof.Store(req.Body == http.NoBody)
	req.Body = body
	req = req.WithContext(ctx)
	watch := &watch{conn: c, body: body, cancel: cancel}
	watch.mu.Lock() // start waits for the timer to be set
	watch.timer = time.AfterFunc(watchAfter, watch.start)
	watch.mu.Unlock()
	w = &response{conn: c, req: req, header: http.Header{}, watch: watch}
	aborted := c.dispatch(w, req)
	if !watch.stop() || aborted || w.hijacked {
		return w, false
	}
	// The rest of an unread body, so the next request starts where it
	// should; it is under the host's cap.
	if _, err := io.Copy(io.Discard, body.ReadCloser); err != nil {
		return w, false
	}
	if err := w.finish(); err != nil {
		return w, false
	}
	return w, !req.Close && !w.close
}

// dispatch runs the named handler; aborted reports a panic after the
// answer began, which only closing the connection can signal.
func (c *serverConn) dispatch(w *response, r *http.Request) (aborted bool) {
	names, ok := r.Header[HeaderHandler]
	if !ok || len(names) != 1 {
		http.Error(w, "no "+HeaderHandler+" header", http.StatusBadRequest)
		return false
	}
	name := names[0]
	h, ok := c.srv.lookup(name)
	if !ok {
		http.Error(w, fmt.Sprintf("no handler %q", name), http.StatusNotFound)
		return false
	}
	r.RemoteAddr = r.Header.Get(HeaderRemoteAddr)
	if uri := r.Header.Get(HeaderRequestURI); uri != "" {
		r.RequestURI = uri
	}
	for _, k := range []string{HeaderHandler, HeaderRemoteAddr, HeaderRequestURI} {
		delete(r.Header, k)
	}
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v != http.ErrAbortHandler {
			c.srv.logger.Error("http handler panicked", "handler", name, "method", r.Method,
				"path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			if !w.started() {
				// A 500 in place of an answer that never began, as the
				// gRPC path answers.
				w.header = http.Header{}
				http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
				return
			}
		}
		aborted = true
	}()
	h.ServeHTTP(w, r)
	return false
}

// watchedBody records that the handler read the request body to its end:
// only then may the connection be read for the host closing it.
type watchedBody struct {
	io.ReadCloser
	eof atomic.Bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.eof.Store(true)
	}
	return n, err
}

// watch cancels a request's context when the host closes its connection,
// for a handler that runs longer than watchAfter: a read on the idle
// connection returns only then (the host sends nothing else while it waits
// for the answer).
type watch struct {
	conn   *serverConn
	body   *watchedBody
	cancel context.CancelFunc
	timer  *time.Timer
	again  time.Duration // the last wait for the body to be read

	mu      sync.Mutex
	done    bool          // the handler returned
	running chan struct{} // closed when the reading goroutine ends; nil if none started
	extra   bool          // the host sent bytes while it had no answer: the connection is out of step
}

// start begins the read once the handler has read the body; until then it
// looks again later.
func (w *watch) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if !w.body.eof.Load() {
		// The body is still on the wire, or unread: the handler's own read
		// sees the connection close. Look again, less often as it runs.
		w.again = min(2*max(w.again, watchAfter), maxWatchAgain)
		w.timer.Reset(w.again)
		return
	}
	w.running = make(chan struct{})
	go w.read(w.running)
}

func (w *watch) read(running chan struct{}) {
	defer close(running)
	var one [1]byte
	n, err := w.conn.nc.Read(one[:])
	if n > 0 {
		w.mu.Lock()
		w.extra = true
		w.mu.Unlock()
		return
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return // stop ended it
	}
	w.cancel()
}

// stop ends the watch when the handler returns or takes the connection
// over, and reports whether the connection is still in step. A second call
// only reports.
func (w *watch) stop() bool {
	w.timer.Stop()
	w.mu.Lock()
	if w.done {
		defer w.mu.Unlock()
		return !w.extra
	}
	w.done = true
	running := w.running
	w.mu.Unlock()
	if running == nil {
		return true
	}
	_ = w.conn.nc.SetReadDeadline(longAgo)
	<-running
	_ = w.conn.nc.SetReadDeadline(time.Time{})
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.extra
}
