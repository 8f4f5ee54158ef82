package hostsvc

import (
	"context"
	"sync"
	"time"

	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/set"
)

var _ common.AppSender = (*AppSender)(nil)

// RequestTimeout is how long a request the VM sends to its own node waits
// for the VM's answer before it fails: avalanchego's default initial
// network timeout.
const RequestTimeout = constants.DefaultNetworkInitialTimeout

// AppSender is avalanchego's common.AppSender for a network of one node,
// doing what avalanchego's sender does when no other node is reachable.
// Every message to the VM is delivered asynchronously, as avalanchego's
// router does, through vm (the VM client's app handler methods):
//
//   - A request to another node fails at once: the VM gets AppRequestFailed
//     with common.ErrTimeout, what avalanchego delivers for a node it
//     cannot send to.
//   - A request to the node itself reaches the VM as an AppRequest from
//     its own node ID; the VM's answer (SendAppResponse or SendAppError to
//     itself) comes back as AppResponse or AppRequestFailed, and no answer
//     within RequestTimeout fails the request with common.ErrTimeout. A
//     request gets exactly one of the two, as common.AppSender promises.
//   - Responses and errors to other nodes, and answers to a request that
//     is not waiting (answered or timed out already), are dropped.
//   - Gossip reaches nobody.
//
// An error the VM returns for a delivered message goes to onError: in
// avalanchego it stops the chain.
type AppSender struct {
	self    avaids.NodeID
	vm      common.AppHandler
	onError func(error)

	mu      sync.Mutex
	waiting map[uint32]*time.Timer // requests to self, by request ID
	closed  bool
	flight  sync.WaitGroup
}

// NewAppSender returns the app sender of a VM on node self.
func NewAppSender(self avaids.NodeID, vm common.AppHandler, onError func(error)) *AppSender {
	return &AppSender{self: self, vm: vm, onError: onError, waiting: map[uint32]*time.Timer{}}
}

// deliver runs fn in its own goroutine unless the sender is closed. The
// caller holds mu.
func (s *AppSender) deliver(fn func() error) {
	if s.closed {
		return
	}
	s.flight.Add(1)
	go func() {
		defer s.flight.Done()
		if err := fn(); err != nil {
			s.onError(err)
		}
	}()
}

// fail delivers the failure of request id to node. The caller holds mu.
func (s *AppSender) fail(ctx context.Context, node avaids.NodeID, id uint32, appErr *common.AppError) {
	s.deliver(func() error { return s.vm.AppRequestFailed(ctx, node, id, appErr) })
}

// SendAppRequest fails the request at once for every other node, and
// hands it to the VM itself if nodeIDs holds this node.
func (s *AppSender) SendAppRequest(ctx context.Context, nodeIDs set.Set[avaids.NodeID], requestID uint32, request []byte) error {
	ctx = context.WithoutCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	for node := range nodeIDs {
		if node != s.self {
			s.fail(ctx, node, requestID, common.ErrTimeout)
		}
	}
	if !nodeIDs.Contains(s.self) || s.closed {
		return nil
	}
	if t, ok := s.waiting[requestID]; ok {
		t.Stop()
	}
	var timer *time.Timer
	timer = time.AfterFunc(RequestTimeout, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.waiting[requestID] == timer {
			delete(s.waiting, requestID)
			s.fail(ctx, s.self, requestID, common.ErrTimeout)
		}
	})
	s.waiting[requestID] = timer
	deadline := time.Now().Add(RequestTimeout)
	s.deliver(func() error { return s.vm.AppRequest(ctx, s.self, requestID, deadline, request) })
	return nil
}

// answered reports whether a request of the node to itself was waiting
// for an answer to node, and stops waiting. The caller holds mu.
func (s *AppSender) answered(node avaids.NodeID, requestID uint32) bool {
	t, ok := s.waiting[requestID]
	if node != s.self || !ok || !t.Stop() {
		return false
	}
	delete(s.waiting, requestID)
	return true
}

// SendAppResponse delivers the VM's answer to its own request; any other
// response is dropped.
func (s *AppSender) SendAppResponse(ctx context.Context, nodeID avaids.NodeID, requestID uint32, response []byte) error {
	ctx = context.WithoutCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answered(nodeID, requestID) {
		s.deliver(func() error { return s.vm.AppResponse(ctx, nodeID, requestID, response) })
	}
	return nil
}

// SendAppError delivers the VM's error answer to its own request as the
// request's failure; any other error is dropped.
func (s *AppSender) SendAppError(ctx context.Context, nodeID avaids.NodeID, requestID uint32, code int32, message string) error {
	ctx = context.WithoutCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answered(nodeID, requestID) {
		s.fail(ctx, nodeID, requestID, &common.AppError{Code: code, Message: message})
	}
	return nil
}

// SendAppGossip reaches nobody: there is no other node.
func (*AppSender) SendAppGossip(context.Context, common.SendConfig, []byte) error { return nil }

// Close stops delivering messages, drops the requests still waiting and
// waits for the deliveries under way: call it before the VM shuts down.
func (s *AppSender) Close() {
	s.mu.Lock()
	s.closed = true
	for id, t := range s.waiting {
		t.Stop()
		delete(s.waiting, id)
	}
	s.mu.Unlock()
	s.flight.Wait()
}
