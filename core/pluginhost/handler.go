package pluginhost

import (
	"context"
	"errors"
	"net/http"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/transport/host/proxy"
	"github.com/chainhost/chainhost/transport/host/unixpool"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// crashWait bounds how long a failed request waits for the supervisor to
// confirm that the plugin died, so it can answer 503 with the exit reason.
const crashWait = 500 * time.Millisecond

// Handler returns an http.Handler that proxies HTTP and WebSocket requests
// to the plugin's handler name. While the plugin is not running, and for a
// request cut short by its crash, onError gets 503 and an
// *UnavailableError (which matches httpwire.ErrPluginUnavailable) at once.
// Other failures reach onError as the proxy reports them (transport/host/proxy
// picks the carrier). A nil onError writes the error as plain text.
func (i *Instance) Handler(name string, onError httpwire.ErrorWriter) http.Handler {
	if onError == nil {
		onError = func(w http.ResponseWriter, _ *http.Request, status int, err error) {
			http.Error(w, err.Error(), status)
		}
	}
	onError = i.crashAware(onError)
	return proxy.NewHandler(proxy.Options{
		Handler:      name,
		MaxBodyBytes: i.opts.MaxBodyBytes,
		Timeout:      i.opts.RequestTimeout,
		OnError:      onError,
		Process:      i.carriers,
		Logger:       i.logger,
	})
}

// carriers returns what reaches the running process (its data socket pool
// is nil when it serves none), or an *UnavailableError.
func (i *Instance) carriers() (proxy.Process, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.proc == nil || i.stopping || i.state != Running {
		return proxy.Process{}, i.unavailableLocked()
	}
	return proxy.Process{Client: i.proc.rpc, Pool: i.proc.data}, nil
}

// crashAware turns the error of a request that failed because the
// connection to the plugin broke into a 503 with the reason the process
// exited, once the supervisor confirms it.
func (i *Instance) crashAware(next httpwire.ErrorWriter) httpwire.ErrorWriter {
	return func(w http.ResponseWriter, r *http.Request, code int, err error) {
		var unavailable *UnavailableError
		switch {
		case errors.As(err, &unavailable):
			code, err = http.StatusServiceUnavailable, unavailable
		case connectionLost(r.Context(), err),
			errors.Is(err, unixpool.ErrConnectionLost) && r.Context().Err() == nil:
			if down := i.awaitDown(r.Context(), crashWait); down != nil {
				code, err = http.StatusServiceUnavailable, down
			}
		}
		next(w, r, code, err)
	}
}

// awaitDown waits up to wait for the running process to be found dead, and
// returns the error requests get while it restarts; nil if it stays up.
func (i *Instance) awaitDown(ctx context.Context, wait time.Duration) *UnavailableError {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	i.mu.Lock()
	gen := i.gen
	i.mu.Unlock()
	i.nudge()
	for {
		i.mu.Lock()
		switch {
		case i.state != Running || i.stopping:
			e := i.unavailableLocked()
			i.mu.Unlock()
			return e
		case i.gen != gen:
			// Already restarted: report why the process of the request died.
			e := &UnavailableError{Kind: i.opts.Init.Kind, Name: i.opts.Init.Name, State: Down, Reason: i.lastExit}
			i.mu.Unlock()
			return e
		}
		changed := i.changed
		i.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// connectionLost reports whether err is a call failure caused by the
// connection to the plugin breaking (the process died) or being closed by
// the supervisor (it was torn down), not by the client going away.
func connectionLost(ctx context.Context, err error) bool {
	switch status.Code(err) {
	case codes.Unavailable:
		return true
	case codes.Canceled:
		return ctx.Err() == nil
	}
	return false
}
