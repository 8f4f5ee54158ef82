package metricsapi_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// subnetEVMID is the VM ID of avalanchego's subnet-evm.
const subnetEVMID = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"

// vmChain is a chain of the node as the host describes one of an
// avalanchego VM plugin (docs/metrics-api.md, "Chains of avalanchego VM
// plugins": public rpc and ws handlers, no internal ones), whose rpc
// handler a real node's C-Chain answers.
type vmChain struct {
	info host.ChainInfo
	up   *evmremote.Client
}

// newVMChain returns the chain, running or not, answered by rpcURL.
func newVMChain(t *testing.T, rpcURL string, running bool) *vmChain {
	vmID, err := ids.FromString(subnetEVMID)
	if err != nil {
		t.Fatal(err)
	}
	up, err := evmremote.Dial(context.Background(), evmremote.Options{URL: rpcURL, InFlight: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(up.Close)
	return &vmChain{up: up, info: host.ChainInfo{
		ID: ids.ID{0x5e, 0x5e}, VMID: vmID, VMName: subnetEVMID, Aliases: []string{"my-l1"},
		IndexKinds: []string{"block"}, Handlers: []string{"rpc", "ws"}, Running: running,
	}}
}

// call answers a chain call to the chain's rpc handler while it runs (c
// is the chain as the registry has it now).
func (v *vmChain) call(ctx context.Context, c host.ChainInfo, handler string, body []byte) (int, []byte, error) {
	switch {
	case handler != evmremote.RPCHandler:
		return 0, nil, fmt.Errorf("call %s/%s: %w", v.info.ID, handler, host.ErrNotFound)
	case !c.Running:
		return 0, nil, fmt.Errorf("call %s/%s: the chain is not running", v.info.ID, handler)
	}
	return v.up.Call(ctx, v.info.ID.String(), handler, body)
}

// TestNodeVMChain: a chain of the node whose VM is not chainhost's (the
// VM ID of subnet-evm, no internal handler) but whose rpc handler answers
// eth_chainId is counted through its JSON-RPC, reached by the host's
// chain calls only (here answered by a real node's C-Chain), from when it
// starts: /v1/avg_tps answers for it by alias and blockchain ID what the
// node's own metrics module answers for its C-Chain, its counts trailing
// nothing. Stopped, it fails; started again, it is counted on. An
// external-chains entry of the same EVM chain ID wins.
func TestNodeVMChain(t *testing.T) {
	node := startEVMNode(t)
	for range 2 {
		node.send()
	}
	node.call("evm_increaseTime", 2*secondsPerDay)
	node.send()
	vm := newVMChain(t, node.rpc, false)
	clk := &clock{now: time.Now()}
	e := startWith(t, t.TempDir(), noLimits, clk, nil, vm)
	if d := e.externalDetails("my-l1"); d != nil {
		t.Fatalf("a stopped chain is counted: %v", d)
	}
	vm.info.Running = true
	e.h.SetChain(vm.info)
	e.waitCounted("my-l1", node.head())
	want := node.ownAvgTPS()
	if len(want.Results) != 3 {
		t.Fatalf("the node's own avg_tps: %+v, want 3 days", want)
	}
	for _, chain := range []string{"my-l1", vm.info.ID.String()} {
		if got := e.avgTPS(chain, ""); !slices.Equal(got.Results, want.Results) {
			t.Errorf("%s: %+v\nwant the node's own %+v", chain, got.Results, want.Results)
		}
	}
	d := e.externalDetails("my-l1")
	if ext, _ := d["external"].(map[string]any); d["status"] != "following" || d["chainId"] != vm.info.ID.String() ||
		ext["handler"] != "rpc" || ext["evmChainId"] != 43112.0 || ext["trail"] != 0.0 {
		t.Errorf("my-l1's health: %v", d)
	}

	vm.info.Running = false
	e.h.SetChain(vm.info)
	e.waitFailing("my-l1", "the chain is not running")
	node.send()
	vm.info.Running = true
	e.h.SetChain(vm.info)
	e.waitCounted("my-l1", node.head())

	t.Run("an external-chains entry wins", func(t *testing.T) {
		e := startWith(t, t.TempDir(), fmt.Sprintf(`{"rate-limit": {"anonymous": {"per-second": 0}}, "external-chains": [
			{"name": "by-url", "chain-id": 43112, "rpc-url": %q, "confirmations": 1}]}`, node.rpc), clk, nil, vm)
		e.waitCounted("by-url", node.head()-1)
		if d := e.externalDetails("my-l1"); d != nil {
			t.Errorf("the chain is counted twice: %v", d)
		}
	})
}
