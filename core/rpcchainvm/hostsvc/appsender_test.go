package hostsvc

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/network/p2p"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/prometheus/client_golang/prometheus"
)

// vmNetwork is the VM's side of an AppSender: avalanchego's p2p network,
// which VMs build their protocols on, bound to the sender after both are
// made (as the runtime's VM client exists before the sender).
type vmNetwork struct {
	common.AppHandler
}

type answer struct {
	node avaids.NodeID
	resp []byte
	err  error
}

// newNetwork returns the p2p network of a VM on node self, its sender,
// and the errors the VM returned for delivered messages.
func newNetwork(t *testing.T, self avaids.NodeID) (*p2p.Network, *AppSender, func() []error) {
	t.Helper()
	var mu sync.Mutex
	var vmErrs []error
	vm := &vmNetwork{}
	sender := NewAppSender(self, vm, func(err error) {
		mu.Lock()
		defer mu.Unlock()
		vmErrs = append(vmErrs, err)
	})
	t.Cleanup(sender.Close)
	network, err := p2p.NewNetwork(logging.NoLog{}, sender, prometheus.NewRegistry(), "")
	if err != nil {
		t.Fatal(err)
	}
	vm.AppHandler = network
	return network, sender, func() []error {
		mu.Lock()
		defer mu.Unlock()
		return append([]error(nil), vmErrs...)
	}
}

// request sends a request through client and returns the channel its one
// answer comes on.
func request(t *testing.T, client *p2p.Client, to avaids.NodeID, msg string) chan answer {
	t.Helper()
	got := make(chan answer, 2)
	err := client.AppRequest(context.Background(), set.Of(to), []byte(msg), func(_ context.Context, node avaids.NodeID, resp []byte, err error) {
		got <- answer{node: node, resp: resp, err: err}
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func wait(t *testing.T, got chan answer, within time.Duration) answer {
	t.Helper()
	select {
	case a := <-got:
		return a
	case <-time.After(within):
		t.Fatal("no answer to the request")
		return answer{}
	}
}

// TestAppSenderPeers: a request to another node fails at once with
// avalanchego's timeout error; a request to the node itself reaches the
// VM's handler, whose answer or error comes back; gossip reaches nobody.
func TestAppSenderPeers(t *testing.T) {
	self := avaids.GenerateTestNodeID()
	network, sender, vmErrs := newNetwork(t, self)
	var gossiped int
	if err := network.AddHandler(1, p2p.TestHandler{
		AppRequestF: func(_ context.Context, node avaids.NodeID, _ time.Time, req []byte) ([]byte, *common.AppError) {
			if string(req) == "fail" {
				return nil, &common.AppError{Code: 7, Message: "no"}
			}
			return append([]byte(node.String()+" asked "), req...), nil
		},
		AppGossipF: func(context.Context, avaids.NodeID, []byte) { gossiped++ },
	}); err != nil {
		t.Fatal(err)
	}
	client := network.NewClient(1, p2p.PeerSampler{Peers: &p2p.Peers{}})

	peer := avaids.GenerateTestNodeID()
	a := wait(t, request(t, client, peer, "hello"), time.Second)
	if a.node != peer || !errors.Is(a.err, common.ErrTimeout) {
		t.Fatalf("request to a peer: %+v", a)
	}
	a = wait(t, request(t, client, self, "hello"), time.Second)
	if a.node != self || a.err != nil || string(a.resp) != self.String()+" asked hello" {
		t.Fatalf("request to self: %+v", a)
	}
	a = wait(t, request(t, client, self, "fail"), time.Second)
	if a.node != self || !errors.Is(a.err, &common.AppError{Code: 7}) {
		t.Fatalf("request to self the VM refuses: %+v", a)
	}
	if err := sender.SendAppGossip(context.Background(), common.SendConfig{NodeIDs: set.Of(self, peer), Peers: 10}, []byte("news")); err != nil {
		t.Fatal(err)
	}
	if err := sender.SendAppResponse(context.Background(), peer, 99, []byte("to nobody")); err != nil {
		t.Fatal(err)
	}
	sender.Close()
	if gossiped != 0 {
		t.Fatal("gossip reached the node itself")
	}
	if errs := vmErrs(); len(errs) != 0 {
		t.Fatalf("the VM refused messages: %v", errs)
	}
}

// TestAppSenderSelfTimeout: a request to the node itself that the VM does
// not answer within RequestTimeout fails with avalanchego's timeout error,
// once: the VM's late answer is dropped.
func TestAppSenderSelfTimeout(t *testing.T) {
	self := avaids.GenerateTestNodeID()
	network, sender, vmErrs := newNetwork(t, self)
	release := make(chan struct{})
	if err := network.AddHandler(1, p2p.TestHandler{
		AppRequestF: func(context.Context, avaids.NodeID, time.Time, []byte) ([]byte, *common.AppError) {
			<-release
			return []byte("late"), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	client := network.NewClient(1, p2p.PeerSampler{Peers: &p2p.Peers{}})
	start := time.Now()
	got := request(t, client, self, "slow")
	a := wait(t, got, RequestTimeout+10*time.Second)
	if a.node != self || !errors.Is(a.err, common.ErrTimeout) || time.Since(start) < RequestTimeout {
		t.Fatalf("unanswered request to self after %v: %+v", time.Since(start), a)
	}
	close(release)
	sender.Close() // waits for the late answer's delivery, if any
	select {
	case a := <-got:
		t.Fatalf("a second answer: %+v", a)
	default:
	}
	if errs := vmErrs(); len(errs) != 0 {
		t.Fatalf("the VM refused messages: %v", errs)
	}
}
