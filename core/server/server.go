package server

import (
	"fmt"
	"net"
	"net/http"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/transport/httpserve"
)

// Options configures the HTTP server.
type Options struct {
	Addr string
	// Limits are the listener's HTTP limits (transport/httpserve), the same a
	// chain's own listener gets.
	Limits  httpserve.Limits
	Handler http.Handler
	Log     hclog.Logger
}

// Server is one of the node's HTTP listeners.
type Server = httpserve.Server

// Listen binds the address and starts serving in the background.
func Listen(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", opts.Addr, err)
	}
	s, err := httpserve.Serve(ln, opts.Limits, opts.Handler, opts.Log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}))
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	return s, nil
}
