package httpgrpc

import (
	"net"
	"sync"
)

// pipeAddr is the address of an in-memory connection end, or the client
// address the host reported.
type pipeAddr string

// Network returns "tcp" for a reported client address, "pipe" otherwise.
func (a pipeAddr) Network() string {
	if a == "pipe" {
		return "pipe"
	}
	return "tcp"
}

// String returns the address.
func (a pipeAddr) String() string { return string(a) }

// remoteConn is a connection that reports the client address of the request
// it carries, so the handler's r.RemoteAddr is the real client's.
type remoteConn struct {
	net.Conn
	remote net.Addr
}

// RemoteAddr returns the reported client address.
func (c remoteConn) RemoteAddr() net.Addr { return c.remote }

// pipeListener is a net.Listener that yields one connection, then blocks in
// Accept until it is closed.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener(c net.Conn) *pipeListener {
	l := &pipeListener{conns: make(chan net.Conn, 1), closed: make(chan struct{})}
	l.conns <- c
	return l
}

// Accept returns the connection once, then net.ErrClosed after Close.
func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case <-l.closed:
		return nil, net.ErrClosed
	default:
	}
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close makes Accept return net.ErrClosed; it does not close the connection
// already accepted.
func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr returns a placeholder address.
func (l *pipeListener) Addr() net.Addr { return pipeAddr("pipe") }
