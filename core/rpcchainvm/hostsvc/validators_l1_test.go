package hostsvc

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// l1PChain is a P-Chain's API reduced to what the validator state asks,
// answering in pvmapi's types an L1 whose validators the test changes.
type l1PChain struct {
	mu     sync.Mutex
	height uint64
	l1     []pvmapi.L1Validator
	server *jsonrpc.Server
}

func newL1PChain() *l1PChain {
	p := &l1PChain{server: jsonrpc.NewServer(jsonrpc.Options{})}
	p.server.Register(pvmapi.GetStakingTotalsMethod, jsonrpc.Method(func(context.Context, pvmapi.StakingTotalsArgs) (pvmapi.StakingTotals, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return pvmapi.StakingTotals{Height: jsonrpc.Uint64(p.height), Subnets: []pvmapi.SubnetTotals{}}, nil
	}))
	p.server.Register("platform.getCurrentValidators", jsonrpc.Method(func(_ context.Context, a struct {
		SubnetID string `json:"subnetID"`
	}) (map[string][]pvmapi.L1Validator, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return map[string][]pvmapi.L1Validator{"validators": append([]pvmapi.L1Validator(nil), p.l1...)}, nil
	}))
	p.server.Register("platform.getSubnets", jsonrpc.Method(func(context.Context, struct{}) (map[string][]map[string]ids.ID, error) {
		return map[string][]map[string]ids.ID{"subnets": {{"id": ids.ID(l1Subnet)}}}, nil
	}))
	return p
}

var l1Subnet = avaids.GenerateTestID()

func (p *l1PChain) Call(ctx context.Context, _, _ string, body []byte) (int, []byte, error) {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	p.server.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}

func l1Validator(t *testing.T, weight, balance uint64) (pvmapi.L1Validator, *bls.PublicKey) {
	t.Helper()
	s, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	return pvmapi.L1Validator{
		NodeID: avax.NodeID(avaids.GenerateTestNodeID()), Weight: jsonrpc.Uint64(weight), StartTime: 100,
		ValidationID: ids.ID(avaids.GenerateTestID()), PublicKey: bls.PublicKeyToCompressedBytes(s.PublicKey()),
		MinNonce: 3, Balance: jsonrpc.Uint64(balance),
	}, s.PublicKey()
}

// TestValidatorStateL1: an L1's active validators are its set with their
// keys, its inactive ones one keyless weight of the empty node ID, as in
// avalanchego; a height keeps the set first answered for it while a later
// height gets the P-Chain's new set.
func TestValidatorStateL1(t *testing.T) {
	ctx := context.Background()
	p := newL1PChain()
	active, activeKey := l1Validator(t, 30, 1000)
	inactive, _ := l1Validator(t, 12, 0)
	p.height, p.l1 = 7, []pvmapi.L1Validator{active, inactive}
	st := NewValidatorState(p, "P", func(avaids.ID) (avaids.ID, bool) { return avaids.Empty, false })

	set, err := st.GetValidatorSet(ctx, 7, l1Subnet)
	if err != nil {
		t.Fatal(err)
	}
	a := set[avaids.NodeID(active.NodeID)]
	if len(set) != 2 || a == nil || a.Weight != 30 || a.PublicKey == nil ||
		!bytes.Equal(bls.PublicKeyToCompressedBytes(a.PublicKey), bls.PublicKeyToCompressedBytes(activeKey)) {
		t.Fatalf("L1 set: %+v", set)
	}
	if e := set[avaids.EmptyNodeID]; e == nil || e.Weight != 12 || e.PublicKey != nil {
		t.Fatalf("inactive weight: %+v", e)
	}
	cur, h, err := st.GetCurrentValidatorSet(ctx, l1Subnet)
	if err != nil || h != 7 || len(cur) != 2 {
		t.Fatalf("current set at %d: %+v, %v", h, cur, err)
	}
	for _, v := range []pvmapi.L1Validator{active, inactive} {
		c := cur[avaids.ID(v.ValidationID)]
		if c == nil || !c.IsL1Validator || c.IsActive != (v.Balance > 0) || c.MinNonce != 3 || c.StartTime != 100 || c.Weight != uint64(v.Weight) {
			t.Fatalf("current validator %s: %+v", v.ValidationID, c)
		}
	}
	warp, err := st.GetWarpValidatorSets(ctx, 7)
	if err != nil || len(warp[l1Subnet].Validators) != 1 || warp[l1Subnet].TotalWeight != 42 {
		t.Fatalf("warp sets: %+v, %v", warp, err)
	}

	// The L1 changes at height 8: height 7 keeps its answer.
	added, _ := l1Validator(t, 5, 1)
	p.mu.Lock()
	p.height, p.l1 = 8, append(p.l1, added)
	p.mu.Unlock()
	if again, err := st.GetValidatorSet(ctx, 7, l1Subnet); err != nil || len(again) != 2 {
		t.Fatalf("height 7 after a change: %d validators, %v", len(again), err)
	}
	if later, err := st.GetValidatorSet(ctx, 8, l1Subnet); err != nil || len(later) != 3 {
		t.Fatalf("height 8: %d validators, %v", len(later), err)
	}
}
