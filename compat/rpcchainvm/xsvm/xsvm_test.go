package xsvm

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/version"
	"github.com/ava-labs/avalanchego/vms/example/xsvm/api"
	"github.com/ava-labs/avalanchego/vms/example/xsvm/tx"
	"github.com/chainhost/chainhost/compat/rpcchainvm/harness"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// acceptTimeout bounds the wait until the index holds an accepted block.
const acceptTimeout = time.Minute

// xsvmCLI runs the xsvm binary's command line (its `chain genesis`, `issue
// transfer`, ...) with args and returns its standard output.
func xsvmCLI(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), harness.Binary(t, harness.XSVMBinary), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xsvm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// transfer sends amount of the chain's asset from key to to and waits until
// it is accepted, with xsvm's own client and transaction package, as its
// `issue transfer` command does. (That command itself refuses every
// --private-key in v1.14.2: it quotes the key before UnmarshalText, which
// takes it unquoted.)
func transfer(t *testing.T, client *api.Client, chainID ids.ID, key *secp256k1.PrivateKey, to ids.ShortID, amount uint64) {
	t.Helper()
	ctx := t.Context()
	nonce, err := client.Nonce(ctx, key.Address())
	if err != nil {
		t.Fatalf("xsvm.nonce: %v", err)
	}
	stx, err := tx.Sign(&tx.Transfer{ChainID: chainID, Nonce: nonce, AssetID: chainID, Amount: amount, To: to}, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.IssueTx(ctx, stx); err != nil {
		t.Fatalf("xsvm.issueTx of a transfer of %d: %v", amount, err)
	}
	awaitCtx, cancel := context.WithTimeout(ctx, acceptTimeout)
	defer cancel()
	if err := api.AwaitTxAccepted(awaitCtx, client, key.Address(), nonce, api.DefaultPollingInterval); err != nil {
		t.Fatalf("the transfer of %d with nonce %d is not accepted: %v", amount, nonce, err)
	}
}

// TestXSVM: avalanchego's example VM xsvm runs a chain from a genesis made
// by xsvm's own `chain genesis`; transfers issued with its own client are
// accepted and show in its API's balances.
func TestXSVM(t *testing.T) {
	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	const funds = 1_000_000_000
	genesis := harness.WriteFile(t, "xsvm-genesis", xsvmCLI(t, "chain", "genesis",
		"--address", key.Address().String(), "--balance", fmt.Sprint(funds), "--encoding", "binary"))
	plugins := harness.PluginDir(t)
	harness.Install(t, plugins, harness.XSVMBinary, constants.XSVMID)
	n := nodetest.Start(t, nodetest.Options{PluginDir: plugins, Config: fmt.Sprintf(`
chains:
  - alias: xs
    vm: %s
    genesis-file: %s
`, constants.XSVMID, genesis)})
	harness.WaitChainHealthy(t, n, "xs")
	ctx := t.Context()

	id := harness.ChainID(t, n, "xs")
	client := api.NewClient(n.URL, id.String())
	networkID, _, gotID, err := client.Network(ctx)
	if err != nil || gotID != id || networkID != constants.LocalID {
		t.Fatalf("xsvm.network = network %d chain %s, %v; want network %d chain %s", networkID, gotID, err, constants.LocalID, id)
	}

	to := ids.GenerateTestShortID()
	amounts := []uint64{1, 10, 100, 1000}
	var sum uint64
	for _, amount := range amounts {
		transfer(t, client, id, key, to, amount)
		sum += amount
	}
	if got, err := client.Balance(ctx, to, id); err != nil || got != sum {
		t.Fatalf("xsvm.balance of the recipient = %d, %v; want %d", got, err, sum)
	}
	if got, err := client.Balance(ctx, key.Address(), id); err != nil || got != funds-sum {
		t.Fatalf("xsvm.balance of the sender = %d, %v; want %d", got, err, funds-sum)
	}

	t.Run("index holds xsvm's accepted blocks", func(t *testing.T) {
		lastID, _, err := client.LastAccepted(ctx)
		if err != nil {
			t.Fatalf("xsvm.lastAccepted: %v", err)
		}
		plugintest.Eventually(t, acceptTimeout, func() error {
			blocks, err := harness.Index(ctx, n, "xs")
			if err != nil {
				return err
			}
			if len(blocks) < len(amounts) {
				return fmt.Errorf("the index holds %d blocks, want at least %d", len(blocks), len(amounts))
			}
			if last := blocks[len(blocks)-1].ID; last != lastID {
				return fmt.Errorf("the index's last block is %s, xsvm's last accepted %s", last, lastID)
			}
			return nil
		})
	})
}

// TestProtocolMismatch: a plugin of rpcchainvm protocol 44 (avalanchego
// v1.14.1's xsvm) in the plugin dir is reported by admin.loadVMs in
// failedVMs, naming both versions, and the node keeps running; the same
// VM's plugin of the host's protocol, put in its place, loads.
func TestProtocolMismatch(t *testing.T) {
	plugins := harness.PluginDir(t)
	n := nodetest.Start(t, nodetest.Options{PluginDir: plugins, Config: `
api-admin-enabled: true
chains:
  - alias: example
    vm: example
    genesis: {}
`})
	n.WaitHealthy(t)
	vm := constants.XSVMID.String()

	harness.Install(t, plugins, harness.XSVMProtocol44Binary, constants.XSVMID)
	reply := harness.LoadVMs(t, n)
	why, failed := reply.FailedVMs[vm]
	if !failed {
		t.Fatalf("admin.loadVMs: %s not in failedVMs: %+v", vm, reply)
	}
	// As avalanchego words it: "... implements RPCChainVM protocol version
	// 45. The VM ... implements RPCChainVM protocol version 44 ...".
	for _, v := range []uint{version.RPCChainVMProtocol, 44} {
		if named := fmt.Sprintf("protocol version %d", v); !strings.Contains(why, named) {
			t.Errorf("admin.loadVMs: failedVMs[%s] = %q, which does not name %q", vm, why, named)
		}
	}
	if _, ok := reply.NewVMs[vm]; ok {
		t.Errorf("admin.loadVMs: newVMs lists %s too: %+v", vm, reply)
	}
	n.WaitHealthy(t)

	harness.Install(t, plugins, harness.XSVMBinary, constants.XSVMID)
	reply = harness.LoadVMs(t, n)
	if _, ok := reply.NewVMs[vm]; !ok || len(reply.FailedVMs) != 0 {
		t.Fatalf("admin.loadVMs after xsvm of protocol 45 replaced it: %+v, want %s in newVMs and no failure", reply, vm)
	}
	n.WaitHealthy(t)
}
