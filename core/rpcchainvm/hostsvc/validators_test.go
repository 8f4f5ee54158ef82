package hostsvc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// httpCaller is host.ChainCaller over a node's HTTP API: the same
// handlers the chains manager's in-process calls reach.
type httpCaller struct{ base string }

var _ host.ChainCaller = httpCaller{}

func (c httpCaller) Call(ctx context.Context, chain, handlerPath string, body []byte) (int, []byte, error) {
	url := strings.TrimSuffix(c.base+"/ext/bc/"+chain+"/"+handlerPath, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// TestValidatorStateNode: against a node of the default config, the
// validator state answers the P-Chain's height and its genesis validators
// with their BLS keys and weights, for consensus, warp and by validation
// ID; a height above the P-Chain's is avalanchego's unfinalized-height
// error; a chain's subnet comes from the node's config first.
func TestValidatorStateNode(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()
	var want struct {
		Validators []pvmapi.Validator `json:"validators"`
	}
	// The P-Chain answers once it runs (the node's other plugins need not).
	plugintest.Eventually(t, time.Minute, func() error {
		return n.Call(ctx, "/ext/bc/P", "platform.getCurrentValidators", map[string]any{}, &want)
	})
	if len(want.Validators) == 0 {
		t.Fatal("the default config's P-Chain has no validators")
	}
	configured, subnet := avaids.GenerateTestID(), avaids.GenerateTestID()
	st := NewValidatorState(httpCaller{n.URL}, "P", func(chain avaids.ID) (avaids.ID, bool) {
		return subnet, chain == configured
	})

	height, err := st.GetCurrentHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var totals pvmapi.StakingTotals
	if err := n.Call(ctx, "/ext/bc/P", pvmapi.GetStakingTotalsMethod, map[string]any{}, &totals); err != nil || uint64(totals.Height) != height {
		t.Fatalf("current height %d, the P-Chain's %d (%v)", height, totals.Height, err)
	}
	if minH, err := st.GetMinimumHeight(ctx); err != nil || minH != height {
		t.Fatalf("minimum height %d, %v; want %d", minH, err, height)
	}

	set, err := st.GetValidatorSet(ctx, height, avaids.Empty)
	if err != nil {
		t.Fatal(err)
	}
	current, h, err := st.GetCurrentValidatorSet(ctx, avaids.Empty)
	if err != nil || h != height {
		t.Fatalf("current validator set at %d (%v), want height %d", h, err, height)
	}
	var total uint64
	for _, v := range want.Validators {
		id := avaids.NodeID(v.NodeID)
		weight := uint64(v.Weight + v.DelegatorWeight)
		total += weight
		got, ok := set[id]
		if !ok || got.Weight != weight || got.PublicKey == nil ||
			!bytes.Equal(bls.PublicKeyToCompressedBytes(got.PublicKey), v.Signer.PublicKey) {
			t.Fatalf("validator %s: %+v, want weight %d and key %x", id, got, weight, v.Signer.PublicKey)
		}
		cur := current[avaids.ID(v.TxID)]
		if cur == nil || cur.NodeID != id || cur.Weight != weight || !cur.IsActive || cur.IsL1Validator ||
			cur.StartTime != uint64(v.StartTime) || !bytes.Equal(bls.PublicKeyToCompressedBytes(cur.PublicKey), v.Signer.PublicKey) {
			t.Fatalf("current validator %s: %+v", v.TxID, cur)
		}
	}
	if len(set) != len(want.Validators) || len(current) != len(want.Validators) {
		t.Fatalf("%d and %d validators, want %d", len(set), len(current), len(want.Validators))
	}
	// The answer is kept per height, and a copy: changing it changes
	// nothing.
	clear(set)
	if again, err := st.GetValidatorSet(ctx, height, avaids.Empty); err != nil || len(again) != len(want.Validators) {
		t.Fatalf("second answer at %d: %d validators, %v", height, len(again), err)
	}

	warp, err := st.GetWarpValidatorSets(ctx, height)
	if err != nil {
		t.Fatal(err)
	}
	ws, ok := warp[avaids.Empty]
	if !ok || len(ws.Validators) != len(want.Validators) || ws.TotalWeight != total {
		t.Fatalf("primary network's warp set: %+v (total %d), want %d validators of %d", ws, ws.TotalWeight, len(want.Validators), total)
	}

	if _, err := st.GetValidatorSet(ctx, height+1000, avaids.Empty); !errors.Is(err, validators.ErrUnfinalizedHeight) {
		t.Fatalf("validators above the P-Chain's height: %v", err)
	}

	if got, err := st.GetSubnetID(ctx, configured); err != nil || got != subnet {
		t.Fatalf("subnet of a configured chain: %s, %v", got, err)
	}
	var x struct {
		BlockchainID avaids.ID `json:"blockchainID"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getBlockchainID", map[string]string{"alias": "X"}, &x); err != nil {
		t.Fatal(err)
	}
	if got, err := st.GetSubnetID(ctx, x.BlockchainID); err != nil || got != avaids.Empty {
		t.Fatalf("subnet of the X-Chain, as the P-Chain lists it: %s, %v", got, err)
	}
	if _, err := st.GetSubnetID(ctx, avaids.GenerateTestID()); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("subnet of an unknown chain: %v", err)
	}
}
