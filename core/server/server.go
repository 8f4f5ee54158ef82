package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/go-hclog"
	"github.com/rs/cors"
)

// Options configures the HTTP server.
type Options struct {
	Addr string
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are
	// net/http's; an upgraded WebSocket connection is exempt from the read
	// and write timeouts (its relay keeps deadlines of its own).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxBodyBytes                                              int64
	// TLSCertFile and TLSKeyFile, both set, serve HTTPS.
	TLSCertFile, TLSKeyFile string
	// CORSAllowedOrigins are the origins browsers may call from ("*":
	// any); empty sends no CORS headers.
	CORSAllowedOrigins []string
	// MaxWebSockets caps the WebSocket connections open at once; 0 is no
	// cap.
	MaxWebSockets int
	Handler       http.Handler
	Log           hclog.Logger
}

// Server is the node's HTTP listener.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Listen binds the address and starts serving in the background.
func Listen(opts Options) (*Server, error) {
	var tlsConfig *tls.Config
	if opts.TLSCertFile != "" || opts.TLSKeyFile != "" {
		cert, err := tls.LoadX509KeyPair(opts.TLSCertFile, opts.TLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("load the TLS certificate %s and key %s: %w", opts.TLSCertFile, opts.TLSKeyFile, err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", opts.Addr, err)
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	limit := opts.MaxBodyBytes
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if limit > 0 {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		opts.Handler.ServeHTTP(w, r)
	})
	h = capWebSockets(h, opts.MaxWebSockets)
	if len(opts.CORSAllowedOrigins) > 0 {
		h = cors.New(cors.Options{
			AllowedOrigins: opts.CORSAllowedOrigins,
			AllowedMethods: []string{http.MethodGet, http.MethodPost},
			AllowedHeaders: []string{"*"},
			MaxAge:         600,
		}).Handler(h)
	}
	s := &Server{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: opts.ReadHeaderTimeout,
			ReadTimeout:       opts.ReadTimeout,
			WriteTimeout:      opts.WriteTimeout,
			IdleTimeout:       opts.IdleTimeout,
			ErrorLog:          opts.Log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
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

// capWebSockets refuses a WebSocket upgrade with 503 while max
// connections are open. (The upgrade itself, gorilla/websocket's, lifts
// the read and write deadlines net/http set for the request: a WebSocket
// outlives any request.)
func capWebSockets(next http.Handler, max int) http.Handler {
	var open chan struct{}
	if max > 0 {
		open = make(chan struct{}, max)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) {
			next.ServeHTTP(w, r)
			return
		}
		if open != nil {
			select {
			case open <- struct{}{}:
				defer func() { <-open }()
			default:
				WriteJSONRPCError(w, r, http.StatusServiceUnavailable, fmt.Errorf("too many WebSocket connections: this listener serves at most %d at once", max))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Shutdown stops accepting, waits for in-flight requests until ctx ends,
// then closes what is left.
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
