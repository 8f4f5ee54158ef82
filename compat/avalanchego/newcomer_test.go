package compat

import (
	"context"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// newcomerFunds and newcomerPFunds are what the well-known key holds on X
// and on P on a fresh local network, in nAVAX: 300,000,000 and 30,000,000
// AVAX, as on avalanchego's local network (README).
const (
	newcomerFunds  = 300_000_000_000_000_000
	newcomerPFunds = 30_000_000_000_000_000
)

// healthyTimeout bounds a node's start until every chain and module is up.
const healthyTimeout = 2 * time.Minute

// startAsUser runs the host as a user does (`make run`): no flag, so the
// embedded default config holds (port 9650, the plugins next to the host
// binary), with HOME a new temporary directory that the default data dir
// (~/.chainhost) falls in. It returns once /ext/health answers 200: every
// chain and module is up. Port 9650 is the machine's: the test holds the
// lock the main module's tests take for it (core/nodetest's
// DefaultPortLock) until the node is gone, as `make test` runs both
// modules side by side.
func startAsUser(t *testing.T) *node {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "chainhost-port-9650.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("open the lock of port 9650: %v", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatalf("lock port 9650: %v", err)
	}
	t.Cleanup(func() { lock.Close() }) // after the node's kill: cleanups run last first
	hostBin, _ := binaries(t)
	n := runNode(t, exec.Command(hostBin), "HOME="+t.TempDir())
	waitHealthy(t, n)
	return n
}

// waitHealthy returns once the node's /ext/health answers 200: every chain
// and module is up.
func waitHealthy(t *testing.T, n *node) {
	t.Helper()
	deadline := time.Now().Add(healthyTimeout)
	for {
		resp, err := http.Get(n.URL + "/ext/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/ext/health did not answer 200 within %s: %v", healthyTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNewcomerWallet: a node started as a user starts it takes what a
// newcomer first does with avalanchego's wallets, built as the other tests
// of this package build them: the well-known key's balances on X and P
// read, AVAX sent on the X-Chain, moved from X to the C-Chain (an export,
// then an import), sent on the P-Chain, and a subnet created; each is
// accepted and moves the balances by exactly its amounts. (avalanchego's
// primary.MakeWallet itself needs the P-Chain's fee state, which chainhost
// does not serve: docs/pchain.md.)
func TestNewcomerWallet(t *testing.T) {
	n := startAsUser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ewoq := ewoqKey(t)
	friend := newKey(t)
	me := ewoq.Address()
	const oneAVAX = 1_000_000_000

	// X: the balance, then 1 AVAX to a friend.
	xw, xClient, xctx := xWallet(t, n.URL, "X", []*secp256k1.PrivateKey{ewoq})
	//lint:ignore SA1019 getBalance is part of the X API chainhost serves; a newcomer reads it
	if bal, err := xClient.GetBalance(ctx, me, "AVAX", false); err != nil || uint64(bal.Balance) != newcomerFunds {
		t.Fatalf("X balance of the well-known key: %+v, %v; want %d", bal, err, newcomerFunds)
	}
	send, err := xw.IssueBaseTx([]*avax.TransferableOutput{{
		Asset: avax.Asset{ID: xctx.AVAXAssetID},
		Out:   &secp256k1fx.TransferOutput{Amt: oneAVAX, OutputOwners: ownerOf(friend)},
	}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("X send: %v", err)
	}
	sameTx(t, xClient, send)
	//lint:ignore SA1019 getBalance is part of the X API chainhost serves; a newcomer reads it
	if bal, err := xClient.GetBalance(ctx, friend.Address(), "AVAX", false); err != nil || uint64(bal.Balance) != oneAVAX {
		t.Fatalf("X balance of the friend: %+v, %v; want %d", bal, err, oneAVAX)
	}

	// X → C: 2 AVAX exported, then imported to the well-known key's EVM
	// account.
	xID, err := chainID(ctx, n.URL, "X")
	if err != nil {
		t.Fatal(err)
	}
	cID, err := chainID(ctx, n.URL, "C")
	if err != nil {
		t.Fatal(err)
	}
	export, err := xw.IssueExportTx(cID, []*avax.TransferableOutput{{
		Asset: avax.Asset{ID: xctx.AVAXAssetID},
		Out:   &secp256k1fx.TransferOutput{Amt: 2 * oneAVAX, OutputOwners: ownerOf(ewoq)},
	}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("X export to C: %v", err)
	}
	sameTx(t, xClient, export)
	cw, cClient, _ := cWallet(t, n.URL, []*secp256k1.PrivateKey{ewoq}, "X")
	to := ewoq.PublicKey().EthAddress()
	before := weiBalance(t, n.URL, to)
	imp, err := cw.IssueImportTx(xID, to, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("C import from X: %v", err)
	}
	sameAtomicTx(t, cClient, imp)
	credited := new(big.Int).Mul(new(big.Int).SetUint64(imp.UnsignedAtomicTx.(*atomic.UnsignedImportTx).Outs[0].Amount), big.NewInt(1e9))
	if got := new(big.Int).Sub(weiBalance(t, n.URL, to), before); got.Cmp(credited) != 0 {
		t.Fatalf("the import credited %s wei, want exactly %s", got, credited)
	}

	// P: the balance, 1 AVAX to the friend, a subnet.
	pClient := platformvm.NewClient(n.URL)
	//lint:ignore SA1019 getBalance is part of the P API chainhost serves; a newcomer reads it
	if bal, err := pClient.GetBalance(ctx, []ids.ShortID{me}); err != nil || uint64(bal.Balance) != newcomerPFunds {
		t.Fatalf("P balance of the well-known key: %+v, %v; want %d", bal, err, newcomerPFunds)
	}
	assetID, err := pClient.GetStakingAssetID(ctx, constants.PrimaryNetworkID)
	if err != nil || assetID != xctx.AVAXAssetID {
		t.Fatalf("P's staking asset %s (%v), X's AVAX %s", assetID, err, xctx.AVAXAssetID)
	}
	pw, _ := pWallet(t, n.URL, pClient, ewoq)
	pSend, err := pw.IssueBaseTx([]*avax.TransferableOutput{{
		Asset: avax.Asset{ID: assetID},
		Out:   &secp256k1fx.TransferOutput{Amt: oneAVAX, OutputOwners: ownerOf(friend)},
	}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("P send: %v", err)
	}
	myOwner := ownerOf(ewoq)
	subnet, err := pw.IssueCreateSubnetTx(&myOwner, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("P create subnet: %v", err)
	}
	for _, id := range []ids.ID{pSend.ID(), subnet.ID()} {
		if st, err := pClient.GetTxStatus(ctx, id); err != nil || st.Status != status.Committed {
			t.Fatalf("P status of %s: %+v, %v", id, st, err)
		}
	}
	//lint:ignore SA1019 getBalance is part of the P API chainhost serves; a newcomer reads it
	if bal, err := pClient.GetBalance(ctx, []ids.ShortID{friend.Address()}); err != nil || uint64(bal.Balance) != oneAVAX {
		t.Fatalf("P balance of the friend: %+v, %v; want %d", bal, err, oneAVAX)
	}
	if sub, err := pClient.GetSubnet(ctx, subnet.ID()); err != nil || !sub.IsPermissioned || sub.Threshold != 1 || len(sub.ControlKeys) != 1 || sub.ControlKeys[0] != me {
		t.Fatalf("the new subnet: %+v, %v", sub, err)
	}
}
