package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// channelMaxBody is the largest request body sent on the shared channel;
// a bigger one gets a ServeHTTP call of its own, so that it does not hold
// up the small requests behind it.
const channelMaxBody = 1 << 20

// channels keeps the handler's channel to the current plugin client: one
// long-lived ServeHTTPChannel stream that carries every ordinary request.
type channels struct {
	mu     sync.Mutex
	cur    *clientChannel
	legacy pluginv1.PluginClient // a client whose plugin lacks the call
}

// get returns the open channel to client, opening one if needed; nil when
// the plugin does not serve channels.
func (cs *channels) get(client pluginv1.PluginClient) *clientChannel {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.legacy == client {
		return nil
	}
	if c := cs.cur; c != nil && c.client == client && c.failure() == nil {
		return c
	}
	if cs.cur != nil {
		cs.cur.close() // the plugin restarted, or the stream broke
		cs.cur = nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := client.ServeHTTPChannel(ctx)
	if err != nil {
		cancel()
		return nil // the request takes the ServeHTTP call, which reports the failure
	}
	c := &clientChannel{client: client, stream: stream, cancel: cancel, pending: make(map[uint64]*clientRequest), done: make(chan struct{})}
	go c.read()
	cs.cur = c
	return c
}

// unsupported records that client's plugin has no channel call.
func (cs *channels) unsupported(client pluginv1.PluginClient, c *clientChannel) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.legacy = client
	if cs.cur == c {
		cs.cur = nil
	}
	c.close()
}

// clientChannel is the host side of one channel stream.
type clientChannel struct {
	client pluginv1.PluginClient
	stream pluginv1.Plugin_ServeHTTPChannelClient
	cancel context.CancelFunc

	sendMu sync.Mutex // gRPC streams take one Send at a time

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]*clientRequest
	err     error         // why the stream ended; set before done closes
	done    chan struct{} // closed when the stream ends
}

// clientRequest is one request waiting for, or reading, its response.
type clientRequest struct {
	id uint64
	// msgs holds the response messages not yet relayed. The plugin sends
	// at most a window of them ahead of the credit, so it never fills up
	// unless the plugin breaks the protocol.
	msgs     chan *pluginv1.HTTPChannelMessage
	overflow chan struct{} // closed when the plugin overran the window
	allowed  atomic.Int64  // cost the plugin may have sent: the window and every credit
	used     int64         // cost the plugin sent (read's goroutine only)
	consumed int           // cost relayed since the last credit
	received bool          // a message arrived
}

// pendingCap is the most messages one request can have in flight: every
// message counts at least the minimum cost against the window.
const pendingCap = pluginv1.HTTPChannelWindow / pluginv1.HTTPChannelMinCost

// read routes the plugin's messages to their requests until the stream
// ends.
func (c *clientChannel) read() {
	for {
		msg, err := c.stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = status.Error(codes.Unavailable, "http channel closed by the plugin")
			}
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			close(c.done)
			return
		}
		c.mu.Lock()
		r := c.pending[msg.GetId()]
		c.mu.Unlock()
		if r == nil {
			continue // the request ended early (its client went away)
		}
		r.used += int64(pluginv1.HTTPChannelCost(len(msg.GetResponse().GetBody())))
		if r.used > r.allowed.Load() {
			c.forget(r)
			close(r.overflow)
			continue
		}
		r.msgs <- msg // never blocks: the window bounds the messages in flight
	}
}

// failure returns why the stream ended, or nil while it is open.
func (c *clientChannel) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// close ends the stream; requests still waiting fail.
func (c *clientChannel) close() { c.cancel() }

// send sends one message on the stream.
func (c *clientChannel) send(msg *pluginv1.HTTPChannelMessage) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return c.stream.Send(msg)
}

// start sends a request and returns its handle.
func (c *clientChannel) start(req *pluginv1.HTTPRequest) (*clientRequest, error) {
	c.mu.Lock()
	c.nextID++
	r := &clientRequest{id: c.nextID, msgs: make(chan *pluginv1.HTTPChannelMessage, pendingCap), overflow: make(chan struct{})}
	r.allowed.Store(pluginv1.HTTPChannelWindow)
	c.pending[r.id] = r
	c.mu.Unlock()
	if err := c.send(&pluginv1.HTTPChannelMessage{Id: r.id, Kind: &pluginv1.HTTPChannelMessage_Request{Request: req}}); err != nil {
		c.forget(r)
		if errors.Is(err, io.EOF) { // the stream ended; Recv has the reason
			<-c.done
			err = c.failure()
		}
		return nil, err
	}
	return r, nil
}

// forget stops routing messages to r.
func (c *clientChannel) forget(r *clientRequest) {
	c.mu.Lock()
	delete(c.pending, r.id)
	c.mu.Unlock()
}

// end forgets r once its response is over; a request that ends before its
// last message tells the plugin to cancel it.
func (c *clientChannel) end(r *clientRequest, complete bool) {
	c.forget(r)
	if !complete && c.failure() == nil {
		_ = c.send(&pluginv1.HTTPChannelMessage{Id: r.id, Kind: &pluginv1.HTTPChannelMessage_Cancel{Cancel: true}})
	}
}

// recv returns the request's next response message. It fails with the
// stream's error when the stream ends first, and with ctx's when the
// client goes away.
func (c *clientChannel) recv(ctx context.Context, r *clientRequest) (*pluginv1.HTTPResponse, error) {
	var msg *pluginv1.HTTPChannelMessage
	select {
	case msg = <-r.msgs:
	default:
		select {
		case msg = <-r.msgs:
		case <-r.overflow:
			return nil, malformedError("more than the response window")
		case <-c.done:
			return nil, c.failure()
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	r.received = true
	if msg.GetKind() == nil {
		return nil, malformedError("an empty message")
	}
	if abort, ok := msg.GetKind().(*pluginv1.HTTPChannelMessage_Abort); ok {
		return nil, status.Errorf(codes.Aborted, "%s", abort.Abort)
	}
	resp := msg.GetResponse()
	if resp == nil {
		return nil, malformedError(fmt.Sprintf("a message of the host's kind (%T)", msg.GetKind()))
	}
	return resp, nil
}

// malformedError is a plugin's message that breaks the channel protocol:
// what the plugin sent, for ErrBadResponse.
type malformedError string

func (e malformedError) Error() string { return "http channel: the plugin sent " + string(e) }

// consumed returns credit to the plugin for a relayed message, in batches
// of a quarter window so that small responses send none.
func (c *clientChannel) consumed(r *clientRequest, resp *pluginv1.HTTPResponse) error {
	r.consumed += pluginv1.HTTPChannelCost(len(resp.GetBody()))
	if r.consumed < pluginv1.HTTPChannelWindow/4 || resp.GetLast() {
		return nil
	}
	n := r.consumed
	r.consumed = 0
	r.allowed.Add(int64(n)) // before the plugin can act on it
	if err := c.send(&pluginv1.HTTPChannelMessage{Id: r.id, Kind: &pluginv1.HTTPChannelMessage_Credit{Credit: uint32(n)}}); err != nil {
		return fmt.Errorf("http channel: credit: %w", err)
	}
	return nil
}
