// Package unixpool is the host's side of a plugin process's data socket
// (transport/httpunix has the plugin's): a pool of connections to the
// socket, and the forward of one request on one of them with a small
// HTTP/1.1 client of its own, the request written by hand in one write,
// the answer parsed by net/http's ReadResponse and relayed as it comes
// (docs/decisions.md, "Packages"). One request at a time per connection;
// up to MaxConns connections per process, up to MaxIdle of them kept open
// between requests. The host reads the body whole under its cap first, as
// on the gRPC carrier, and sends it with a Content-Length.
package unixpool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/chainhost/chainhost/transport/httpunix"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// Limits of a Pool's connections to one process.
const (
	// MaxConns is the most connections open at once: requests beyond wait
	// for one, as they would for a stream's flow control on gRPC.
	MaxConns = 256
	// MaxIdle is the most connections kept open between requests.
	MaxIdle = 64
	// IdleTimeout is how long a connection stays open unused: a quiet
	// host holds no connections (nor the plugin their goroutines).
	IdleTimeout = 5 * time.Second
)

// ErrConnectionLost is a connection to the plugin that failed: the process
// died or closed it. It wraps httpwire.ErrPluginUnavailable.
var ErrConnectionLost = fmt.Errorf("%w: data socket connection lost", httpwire.ErrPluginUnavailable)

// Pool keeps the host's connections to one plugin process's data socket.
type Pool struct {
	path  string
	slots chan struct{} // one per open connection

	mu     sync.Mutex
	idle   []*conn // the most recently used last
	closed bool
	reaper *time.Timer // set while connections are idle
}

// conn is one connection with its buffers.
type conn struct {
	nc    net.Conn
	br    *bufio.Reader
	bw    *bufio.Writer
	since time.Time // idle since
}

// NewPool returns a pool of connections to the unix socket at path.
func NewPool(path string) *Pool {
	return &Pool{path: path, slots: make(chan struct{}, MaxConns)}
}

// Close closes the idle connections; those in use close when their request
// ends.
func (p *Pool) Close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	if p.reaper != nil {
		p.reaper.Stop()
	}
	p.mu.Unlock()
	for _, c := range idle {
		_ = c.nc.Close()
	}
}

// get returns an idle connection or dials one, waiting for a slot while
// MaxConns are open, until ctx ends or the deadline passes (zero: none).
func (p *Pool) get(ctx context.Context, deadline time.Time) (*conn, error) {
	select {
	case p.slots <- struct{}{}:
	default:
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", p.path)
	if err != nil {
		<-p.slots
		return nil, fmt.Errorf("%w: dial %s: %w", ErrConnectionLost, p.path, err)
	}
	return &conn{nc: nc, br: bufio.NewReader(nc), bw: bufio.NewWriter(nc)}, nil
}

// put returns c to the pool after a complete exchange, or closes it.
func (p *Pool) put(c *conn, reuse bool) {
	defer func() { <-p.slots }()
	if reuse {
		p.mu.Lock()
		if !p.closed && len(p.idle) < MaxIdle {
			c.since = time.Now()
			p.idle = append(p.idle, c)
			if p.reaper == nil {
				p.reaper = time.AfterFunc(IdleTimeout, p.reap)
			}
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
	_ = c.nc.Close()
}

// reap closes the connections idle for IdleTimeout, and looks again
// while some are left.
func (p *Pool) reap() {
	p.mu.Lock()
	cutoff := time.Now().Add(-IdleTimeout)
	n := 0
	for n < len(p.idle) && !p.idle[n].since.After(cutoff) {
		n++
	}
	old := slices.Clone(p.idle[:n])
	p.idle = slices.Delete(p.idle, 0, n)
	p.reaper = nil
	if len(p.idle) > 0 && !p.closed {
		p.reaper = time.AfterFunc(p.idle[0].since.Sub(cutoff), p.reap)
	}
	p.mu.Unlock()
	for _, c := range old {
		_ = c.nc.Close()
	}
}

// ForwardError is a failed exchange: whether the answer had started (it
// can only be cut), was malformed, or did not come before the deadline.
type ForwardError struct {
	Started, Bad, TimedOut bool
	Err                    error
}

func (e *ForwardError) Error() string { return e.Err.Error() }
func (e *ForwardError) Unwrap() error { return e.Err }

// longAgo is a deadline in the past: it fails a connection's pending reads
// and writes at once.
var longAgo = time.Unix(1, 0)

// Forward sends r, whose body is already read, to the named handler and
// relays the answer to w, cutting the exchange at the deadline (zero:
// none) or when r's context ends: the plugin's server sees the connection
// close and cancels the handler. A failure is a *ForwardError.
func (p *Pool) Forward(w http.ResponseWriter, r *http.Request, handler string, body []byte, deadline time.Time) error {
	ctx := r.Context()
	c, err := p.get(ctx, deadline)
	if err != nil {
		return &ForwardError{TimedOut: errors.Is(err, context.DeadlineExceeded), Err: err}
	}
	// The deadline, or the client going away, cuts the exchange: the
	// plugin's server sees the connection close and cancels the handler's
	// context.
	if !deadline.IsZero() {
		_ = c.nc.SetDeadline(deadline)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(longAgo) })
	reuse := false
	defer func() {
		if !stop() {
			reuse = false
		}
		if reuse && !deadline.IsZero() {
			_ = c.nc.SetDeadline(time.Time{})
		}
		p.put(c, reuse)
	}()
	lost := func(err error) error {
		return &ForwardError{
			TimedOut: ctx.Err() == nil && errors.Is(err, os.ErrDeadlineExceeded),
			Err:      fmt.Errorf("%w: %w", ErrConnectionLost, err),
		}
	}
	if err := writeRequest(c.bw, r, handler, body); err != nil {
		return lost(err)
	}
	resp, err := http.ReadResponse(c.br, &http.Request{Method: r.Method})
	if err != nil {
		return lost(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 999 {
		return &ForwardError{Bad: true, Err: fmt.Errorf("status %d", resp.StatusCode)}
	}
	out := w.Header()
	conn := httpwire.ConnectionTokens(resp.Header)
	for k, vs := range resp.Header {
		if !httpwire.IsHopHeader(k) && !conn[k] {
			out[k] = vs
		}
	}
	if resp.ContentLength >= 0 && !httpunix.Bodyless(r.Method, resp.StatusCode) {
		out["Content-Length"] = []string{strconv.FormatInt(resp.ContentLength, 10)}
	}
	w.WriteHeader(resp.StatusCode)
	if err := relayBody(w, resp); err != nil {
		return &ForwardError{Started: true, Err: err}
	}
	reuse = !resp.Close
	return nil
}

// bufPool holds the buffers answers are copied through.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// relayBody copies the answer's body to w; an answer of unknown length is
// flushed as it comes, so streamed answers stream.
func relayBody(w http.ResponseWriter, resp *http.Response) error {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var flush func() error
	if resp.ContentLength < 0 {
		flush = http.NewResponseController(w).Flush
	}
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return fmt.Errorf("write the answer to the client: %w", werr)
			}
			if flush != nil {
				_ = flush()
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: read the answer: %w", ErrConnectionLost, err)
		}
	}
}

// writeRequest writes r as an HTTP/1.1 request for handler, in one write.
func writeRequest(bw *bufio.Writer, r *http.Request, handler string, body []byte) error {
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	bw.WriteString(r.Method)
	bw.WriteByte(' ')
	bw.WriteString(path)
	if r.URL.RawQuery != "" {
		bw.WriteByte('?')
		bw.WriteString(r.URL.RawQuery)
	}
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(r.Host)
	bw.WriteString("\r\n")
	conn := httpwire.ConnectionTokens(r.Header)
	for k, vs := range r.Header {
		if !forwarded(k, conn) {
			continue
		}
		for _, v := range vs {
			if httpguts.ValidHeaderFieldValue(v) {
				httpunix.WriteField(bw, k, v)
			}
		}
	}
	httpunix.WriteField(bw, httpunix.HeaderHandler, handler)
	httpunix.WriteField(bw, httpunix.HeaderRemoteAddr, r.RemoteAddr)
	if r.RequestURI != "" {
		httpunix.WriteField(bw, httpunix.HeaderRequestURI, r.RequestURI)
	}
	if len(body) > 0 {
		bw.WriteString("Content-Length: ")
		bw.WriteString(strconv.Itoa(len(body)))
		bw.WriteString("\r\n")
	}
	bw.WriteString("\r\n")
	bw.Write(body)
	return bw.Flush()
}

// forwarded reports whether a request header of the client goes to the
// plugin: not hop-by-hop, not one the pool writes itself.
func forwarded(key string, conn map[string]bool) bool {
	if !httpguts.ValidHeaderFieldName(key) || httpwire.IsHopHeader(key) || conn[key] {
		return false
	}
	switch key {
	case "Host", "Content-Length", "Expect":
		return false
	}
	return !strings.HasPrefix(key, "Chainhost-")
}
