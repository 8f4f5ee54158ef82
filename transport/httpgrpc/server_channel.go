package httpgrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// ServeHTTPChannel serves the requests the host sends on one channel
// stream, concurrently, until the host ends the stream; then it cancels the
// requests still running and returns once their handlers have.
func (s *Server) ServeHTTPChannel(stream pluginv1.Plugin_ServeHTTPChannelServer) error {
	ch := &serverChannel{srv: s, stream: stream, reqs: make(map[uint64]*serverRequest),
		work: make(chan func()), quit: make(chan struct{})}
	defer ch.stop()
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch k := msg.GetKind().(type) {
		case *pluginv1.HTTPChannelMessage_Request:
			if err := ch.start(msg.GetId(), k.Request); err != nil {
				return err
			}
		case *pluginv1.HTTPChannelMessage_Credit:
			ch.credit(msg.GetId(), int(k.Credit))
		case *pluginv1.HTTPChannelMessage_Cancel:
			ch.cancel(msg.GetId())
		default:
			return status.Errorf(codes.InvalidArgument, "http channel: request %d: unexpected message %T", msg.GetId(), k)
		}
	}
}

// serverChannel is the plugin side of one channel stream.
type serverChannel struct {
	srv    *Server
	stream pluginv1.Plugin_ServeHTTPChannelServer

	sendMu sync.Mutex // gRPC streams take one Send at a time

	mu      sync.Mutex
	reqs    map[uint64]*serverRequest // running requests by ID
	running sync.WaitGroup            // request goroutines
	workers int                       // goroutines kept in the pool

	work chan func() // hands requests to idle workers
	quit chan struct{}
}

// serverRequest is one request running on a channel.
type serverRequest struct {
	id     uint64
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	window  int           // response bytes it may still send
	credits chan struct{} // signalled when window grows
}

// maxChannelWorkers bounds the goroutines a channel keeps to serve its
// requests. Reused goroutines keep the stacks that deep handlers (such as
// go-ethereum's RPC server) grew, instead of growing a new one per request.
// The pool grows to the concurrency the host sends, up to this bound;
// requests beyond it get goroutines of their own.
const maxChannelWorkers = 64

// worker runs f, then, while the pool has room, serves further requests
// until the channel stops.
func (c *serverChannel) worker(f func()) {
	defer c.running.Done()
	f()
	c.mu.Lock()
	keep := c.workers < maxChannelWorkers
	if keep {
		c.workers++
	}
	c.mu.Unlock()
	if !keep {
		return
	}
	for {
		select {
		case f := <-c.work:
			f()
		case <-c.quit:
			return
		}
	}
}

// start runs a new request.
func (c *serverChannel) start(id uint64, req *pluginv1.HTTPRequest) error {
	ctx, cancel := context.WithCancel(c.stream.Context())
	r := &serverRequest{id: id, ctx: ctx, cancel: cancel, window: pluginv1.HTTPChannelWindow, credits: make(chan struct{}, 1)}
	c.mu.Lock()
	if _, dup := c.reqs[id]; dup {
		c.mu.Unlock()
		cancel()
		return status.Errorf(codes.InvalidArgument, "http channel: request %d sent twice", id)
	}
	c.reqs[id] = r
	c.mu.Unlock()
	run := func() { c.serve(r, req) }
	select {
	case c.work <- run: // an idle worker took it
	default:
		c.running.Add(1)
		go c.worker(run)
	}
	return nil
}

// serve serves one request and sends its responses, or its abort.
func (c *serverChannel) serve(r *serverRequest, req *pluginv1.HTTPRequest) {
	defer func() {
		c.mu.Lock()
		delete(c.reqs, r.id)
		c.mu.Unlock()
		r.cancel()
	}()
	err := c.srv.serveRequest(r.ctx, req, func(resp *pluginv1.HTTPResponse) error {
		if err := r.acquire(pluginv1.HTTPChannelCost(len(resp.GetBody()))); err != nil {
			return err
		}
		return c.send(&pluginv1.HTTPChannelMessage{Id: r.id, Kind: &pluginv1.HTTPChannelMessage_Response{Response: resp}})
	})
	if err != nil && r.ctx.Err() == nil {
		_ = c.send(&pluginv1.HTTPChannelMessage{Id: r.id, Kind: &pluginv1.HTTPChannelMessage_Abort{Abort: status.Convert(err).Message()}})
	}
}

// send sends one message on the stream.
func (c *serverChannel) send(msg *pluginv1.HTTPChannelMessage) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if err := c.stream.Send(msg); err != nil {
		return fmt.Errorf("http channel: send: %w", err)
	}
	return nil
}

// request returns the running request id, or nil.
func (c *serverChannel) request(id uint64) *serverRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reqs[id]
}

// credit lets request id send n more bytes. Credit for a request that has
// ended is late, not wrong.
func (c *serverChannel) credit(id uint64, n int) {
	if r := c.request(id); r != nil {
		r.mu.Lock()
		r.window += n
		r.mu.Unlock()
		select {
		case r.credits <- struct{}{}:
		default:
		}
	}
}

// cancel cancels request id, if it still runs.
func (c *serverChannel) cancel(id uint64) {
	if r := c.request(id); r != nil {
		r.cancel()
	}
}

// stop cancels the running requests and waits for them and the workers.
func (c *serverChannel) stop() {
	c.mu.Lock()
	for _, r := range c.reqs {
		r.cancel()
	}
	c.mu.Unlock()
	close(c.quit)
	c.running.Wait()
}

// acquire waits until the request may send a message of cost, and takes it
// from the window. Messages are at most a chunk, which is at most the
// window.
func (r *serverRequest) acquire(cost int) error {
	for {
		r.mu.Lock()
		if r.window >= cost {
			r.window -= cost
			r.mu.Unlock()
			return nil
		}
		r.mu.Unlock()
		select {
		case <-r.credits:
		case <-r.ctx.Done():
			return status.FromContextError(r.ctx.Err()).Err()
		}
	}
}
