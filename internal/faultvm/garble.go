package faultvm

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// Garble wraps a plugin's protocol server so that the first message it
// sends on the HTTP channel for a request to GarbageHandler breaks the
// protocol, as a broken plugin would, the way the request's path says:
//
//	/status  the response's status is 7
//	/empty   a message with nothing in it
//	/kind    a message of a kind only the host sends (credit)
//
// Any other path, and every other handler, is served unchanged.
func Garble(srv pluginv1.PluginServer) pluginv1.PluginServer {
	return garbler{PluginServer: srv}
}

type garbler struct{ pluginv1.PluginServer }

// Initialize keeps the requests on the gRPC channel, whose messages the
// garbler breaks, unless the chain's config says {"dataSocket": true}:
// then the process serves the host's data socket (transport/httpunix) and only
// WebSocket upgrades take the channel.
func (g garbler) Initialize(ctx context.Context, req *pluginv1.InitializeRequest) (*pluginv1.InitializeResponse, error) {
	var cfg struct {
		DataSocket bool `json:"dataSocket"`
	}
	if json.Unmarshal(req.GetConfig(), &cfg) != nil || !cfg.DataSocket {
		req.DataSocketFd = 0
	}
	return g.PluginServer.Initialize(ctx, req)
}

// ServeHTTPChannel serves the channel through a stream that garbles.
func (g garbler) ServeHTTPChannel(stream pluginv1.Plugin_ServeHTTPChannelServer) error {
	return g.PluginServer.ServeHTTPChannel(&garbleStream{Plugin_ServeHTTPChannelServer: stream, faults: map[uint64]string{}})
}

// garbleStream notes the requests to GarbageHandler as they arrive and
// replaces the first message of their answers.
type garbleStream struct {
	pluginv1.Plugin_ServeHTTPChannelServer
	mu     sync.Mutex
	faults map[uint64]string // request ID -> path, until its first message
}

// Recv notes a request to GarbageHandler.
func (s *garbleStream) Recv() (*pluginv1.HTTPChannelMessage, error) {
	msg, err := s.Plugin_ServeHTTPChannelServer.Recv()
	if req := msg.GetRequest(); req != nil && req.GetHandler() == GarbageHandler {
		s.mu.Lock()
		s.faults[msg.GetId()] = req.GetPath()
		s.mu.Unlock()
	}
	return msg, err
}

// Send garbles the first message of a noted request.
func (s *garbleStream) Send(msg *pluginv1.HTTPChannelMessage) error {
	s.mu.Lock()
	fault, ok := s.faults[msg.GetId()]
	delete(s.faults, msg.GetId())
	s.mu.Unlock()
	if ok {
		switch fault {
		case "/status":
			if resp := msg.GetResponse(); resp != nil {
				resp.Status = 7
			}
		case "/empty":
			msg = &pluginv1.HTTPChannelMessage{Id: msg.GetId()}
		case "/kind":
			msg = &pluginv1.HTTPChannelMessage{Id: msg.GetId(), Kind: &pluginv1.HTTPChannelMessage_Credit{Credit: 1}}
		}
	}
	return s.Plugin_ServeHTTPChannelServer.Send(msg)
}
