// Package httpserve serves HTTP on a listening socket with the node's
// limits: request body size, WebSocket connections at once, CORS, the
// timeouts and TLS. The host's listeners and a chain's own listener, which
// the chain's plugin process serves (docs/listeners.md), all go through it,
// so the limits are applied by one piece of code wherever a request comes
// in.
package httpserve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/cors"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Limits are the HTTP limits of a listener.
type Limits struct {
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are
	// net/http's; an upgraded WebSocket connection is exempt from the read
	// and write timeouts (its relay keeps deadlines of its own).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxBodyBytes caps request bodies; 0 is no cap.
	MaxBodyBytes int64
	// TLSCertFile and TLSKeyFile, both set, serve HTTPS.
	TLSCertFile, TLSKeyFile string
	// CORSAllowedOrigins are the origins browsers may call from ("*":
	// any); empty sends no CORS headers.
	CORSAllowedOrigins []string
	// MaxWebSockets caps the WebSocket connections open at once; 0 is no
	// cap.
	MaxWebSockets int
}

// Server serves one listener.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Serve serves h on ln with lim in the background, until Shutdown. It
// fails, leaving ln open, only when the TLS files do not load. errorLog
// receives net/http's own errors; nil is the standard logger.
func Serve(ln net.Listener, lim Limits, h http.Handler, errorLog *log.Logger) (*Server, error) {
	if lim.TLSCertFile != "" || lim.TLSKeyFile != "" {
		cert, err := tls.LoadX509KeyPair(lim.TLSCertFile, lim.TLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("load the TLS certificate %s and key %s: %w", lim.TLSCertFile, lim.TLSKeyFile, err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	s := &Server{
		srv: &http.Server{
			Handler:           Limit(h, lim),
			ReadHeaderTimeout: lim.ReadHeaderTimeout,
			ReadTimeout:       lim.ReadTimeout,
			WriteTimeout:      lim.WriteTimeout,
			IdleTimeout:       lim.IdleTimeout,
			ErrorLog:          errorLog,
		},
		ln:   ln,
		done: make(chan error, 1),
	}
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// Limit wraps h with the limits that apply per request: the body cap, the
// WebSocket cap and CORS. Serve applies it; the timeouts and TLS are the
// server's.
func Limit(h http.Handler, lim Limits) http.Handler {
	next := h
	if limit := lim.MaxBodyBytes; limit > 0 {
		next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			h.ServeHTTP(w, r)
		})
	}
	next = capWebSockets(next, lim.MaxWebSockets)
	if len(lim.CORSAllowedOrigins) > 0 {
		next = cors.New(cors.Options{
			AllowedOrigins: lim.CORSAllowedOrigins,
			AllowedMethods: []string{http.MethodGet, http.MethodPost},
			AllowedHeaders: []string{"*"},
			MaxAge:         600,
		}).Handler(next)
	}
	return next
}

// capWebSockets refuses a WebSocket upgrade with 503 while max
// connections are open. (The upgrade itself, gorilla/websocket's, lifts
// the read and write deadlines net/http set for the request: a WebSocket
// outlives any request.)
func capWebSockets(next http.Handler, max int) http.Handler {
	if max <= 0 {
		return next
	}
	open := make(chan struct{}, max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case open <- struct{}{}:
			defer func() { <-open }()
		default:
			jsonrpc.WriteHTTPError(w, http.StatusServiceUnavailable,
				jsonrpc.ServerError("too many WebSocket connections: this listener serves at most %d at once", max))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Shutdown stops accepting, waits for in-flight requests until ctx ends,
// then closes what is left, the listener included.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	if serveErr := <-s.done; serveErr != nil {
		return serveErr
	}
	return err
}
