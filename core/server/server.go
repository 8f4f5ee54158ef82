package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Options configures the HTTP server.
type Options struct {
	Addr              string
	ReadHeaderTimeout time.Duration
	MaxBodyBytes      int64
	Handler           http.Handler
	Log               hclog.Logger
}

// Server is the node's HTTP listener.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Listen binds the address and starts serving in the background.
func Listen(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", opts.Addr, err)
	}
	limit := opts.MaxBodyBytes
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if limit > 0 {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		opts.Handler.ServeHTTP(w, r)
	})
	s := &Server{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: opts.ReadHeaderTimeout,
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
