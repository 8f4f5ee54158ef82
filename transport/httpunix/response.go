package httpunix

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"

	"golang.org/x/net/http/httpguts"
)

// MaxBuffered is the most of an answer held before it is sent: an answer
// that fits goes in one write with its length, a longer one is chunked as
// it is written.
const MaxBuffered = 64 << 10

// errHijacked is a write after the handler took the connection over.
var errHijacked = errors.New("data socket: the connection was hijacked")

// response is the http.ResponseWriter of a request on the data socket.
type response struct {
	conn     *serverConn
	watch    *watch
	req      *http.Request
	header   http.Header
	status   int    // 0 until WriteHeader
	buf      []byte // the answer so far, while not streaming
	headSent bool
	// chunks is set once the head is sent and the body streams chunked.
	chunks   io.WriteCloser
	err      error // a failed write to the host: the connection is lost
	close    bool  // the handler asked to close the connection
	hijacked bool
}

func (w *response) Header() http.Header { return w.header }

// started reports whether the answer began: the status is set or bytes
// were written.
func (w *response) started() bool { return w.status != 0 }

func (w *response) WriteHeader(code int) {
	if w.status != 0 || w.hijacked {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %d", code))
	}
	if code < 200 { // informational answers are not relayed
		return
	}
	w.status = code
}

func (w *response) Write(p []byte) (int, error) {
	if w.hijacked {
		return 0, errHijacked
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.bodyAllowed() {
		if w.req.Method == http.MethodHead {
			return len(p), nil // as net/http's server: a HEAD answer's body is dropped
		}
		return 0, http.ErrBodyNotAllowed
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.chunks == nil {
		if len(w.buf)+len(p) <= MaxBuffered {
			w.buf = append(w.buf, p...)
			return len(p), nil
		}
		if err := w.stream(); err != nil {
			return 0, err
		}
	}
	n, err := w.chunks.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// Flush sends what is written so far; the answer streams from then on.
func (w *response) Flush() {
	if w.hijacked {
		return
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.headSent {
		if !w.bodyAllowed() {
			w.writeHead(0)
		} else if w.stream() != nil {
			return
		}
	}
	if err := w.conn.bw.Flush(); err != nil && w.err == nil {
		w.err = err
	}
}

// Hijack hands the connection to the handler; the server forgets it.
func (w *response) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.hijacked {
		return nil, nil, errHijacked
	}
	w.watch.stop() // its read must not take the handler's bytes
	w.hijacked = true
	return w.conn.nc, bufio.NewReadWriter(w.conn.br, w.conn.bw), nil
}

// bodyAllowed reports whether the answer may have a body.
func (w *response) bodyAllowed() bool {
	return !Bodyless(w.req.Method, w.status)
}

// stream sends the head with chunked framing and the body so far as the
// first chunk.
func (w *response) stream() error {
	w.writeHead(-1)
	w.chunks = httputil.NewChunkedWriter(w.conn.bw)
	if len(w.buf) > 0 {
		if _, err := w.chunks.Write(w.buf); err != nil {
			w.err = err
			return err
		}
		w.buf = nil
	}
	return nil
}

// finish sends the answer, or its end when it streams.
func (w *response) finish() error {
	if w.err != nil {
		return w.err
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	switch {
	case w.chunks != nil:
		if err := w.chunks.Close(); err != nil {
			return err
		}
		_, _ = w.conn.bw.WriteString("\r\n") // no trailers
	case !w.headSent:
		w.writeHead(int64(len(w.buf)))
		if w.bodyAllowed() {
			_, _ = w.conn.bw.Write(w.buf)
		}
	}
	return w.conn.bw.Flush()
}

// writeHead writes the status line and headers: with a Content-Length of
// size, or chunked when size is negative. Headers that are not valid HTTP
// are dropped, and the framing ones are the server's.
func (w *response) writeHead(size int64) {
	w.headSent = true
	bw := w.conn.bw
	_, _ = bw.WriteString("HTTP/1.1 ")
	_, _ = bw.WriteString(strconv.Itoa(w.status))
	_ = bw.WriteByte(' ')
	_, _ = bw.WriteString(http.StatusText(w.status))
	_, _ = bw.WriteString("\r\n")
	for k, vs := range w.header {
		switch k {
		case "Content-Length", "Transfer-Encoding", "Connection":
			continue
		}
		if !httpguts.ValidHeaderFieldName(k) {
			continue
		}
		for _, v := range vs {
			if httpguts.ValidHeaderFieldValue(v) {
				WriteField(bw, k, v)
			}
		}
	}
	if httpguts.HeaderValuesContainsToken(w.header["Connection"], "close") {
		w.close = true
		WriteField(bw, "Connection", "close")
	}
	switch {
	case !w.bodyAllowed():
	case size < 0:
		WriteField(bw, "Transfer-Encoding", "chunked")
	default:
		WriteField(bw, "Content-Length", strconv.FormatInt(size, 10))
	}
	_, _ = bw.WriteString("\r\n")
}
