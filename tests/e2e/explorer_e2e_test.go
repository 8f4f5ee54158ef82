package e2e

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
)

// explorerSuiteDir is the explorer's browser test, relative to this
// package (docs/explorer.md, "Tests").
const explorerSuiteDir = "../../tests/explorer"

// explorerWebDir holds the explorer's npm packages, playwright-core among
// them.
const explorerWebDir = "../../plugins/explorer/web"

// explorerSuiteTimeout bounds one run of the browser test; it takes well
// under a minute.
const explorerSuiteTimeout = 4 * time.Minute

// explorerScreenshots is where the browser test keeps a screenshot of each
// page, relative to this package (git-ignored).
const explorerScreenshots = "../../build/explorer-screenshots"

// TestExplorer runs the explorer's browser test against the default node
// (the explorer on, at /explorer) twice: on the fresh node (the genesis
// block, and the balances genesis gives accounts that made no
// transaction), then after a scenario on the C-Chain (a native transfer,
// an ERC-20, ERC-721 and ERC-1155 deployed and used, a contract call that
// forwards value, enough transfers for two pages of the sender's
// history), on the X-Chain (a transfer), on the P-Chain (a subnet
// converted to an L1 of two validators) and between them (AVAX exported
// by X and imported on C by an account that never sent a transaction, an
// export from C). The test, in headless Chromium driven by
// playwright-core, checks every page against the APIs
// (tests/explorer/explorer.test.mjs).
func TestExplorer(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	waitDataBlock(t, n, 0)
	runExplorerSuite(t, n, "fresh", map[string]any{"evmChainId": 43112, "funded": evmLocalAddr, "utxoFunded": pEwoqAddr})

	c := evmDial(t, n, "C", "rpc")
	s := newSender(t, ctx, c, evmKey(t))
	sc := tokenScenario(t, ctx, s)
	bob, carol, native, send20, forward := sc.bob, sc.carol, sc.native, sc.send20, sc.forward
	erc20 := sc.erc20
	for i := range 3 {
		s.send(ctx, &carol, big.NewInt(int64(i+1)), nil, 21000)
	}

	hostBin, _ := nodetest.Binaries(t)
	cli := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, hostBin, append(args, "--key", ewoqKey, "--node", n.URL)...).CombinedOutput()
		if err != nil {
			t.Fatalf("chainhost %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	find := func(re, out string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %q in %q", re, out)
		}
		return m[1]
	}
	xRecipient := "X-local1g65uqn6t77p656w64023nh8nd9updzmxyymev2"
	xSend := find(`: tx (\w+)`, cli("x", "send", "--to", xRecipient, "--amount", "1.5AVAX"))
	subnet := find(`subnet (\w+): tx`, cli("p", "create-subnet"))
	v1node, v2node := pchainNodeID(11).String(), pchainNodeID(12).String()
	out := cli("p", "convert", "--subnet", subnet, "--validator", v1node+":100:1AVAX", "--validator", v2node+":100:2AVAX")
	validation := find(`L1 validator `+v1node+`: validation ID (\w+)`, out)

	// importee holds only what an import from X credited it.
	importee := "0x00000000000000000000000000000000000a7031"
	cli("x", "export", "--to-chain", "C", "--amount", "2AVAX")
	importTx := find(`: tx (\w+)`, cli("c", "import", "--from-chain", "X", "--to", importee))
	exportTx := find(`: tx (\w+)`, cli("c", "export", "--to-chain", "X", "--amount", "1AVAX"))
	atomicBlock := func(id string) string {
		t.Helper()
		var st struct{ Status, BlockHeight string }
		if err := n.Call(ctx, "/ext/bc/C/avax", "avax.getAtomicTxStatus", map[string]string{"txID": id}, &st); err != nil || st.Status != "Accepted" {
			t.Fatalf("avax.getAtomicTxStatus %s: %+v (%v)", id, st, err)
		}
		return st.BlockHeight
	}
	importBlock, exportBlock := atomicBlock(importTx), atomicBlock(exportTx)
	last, err := strconv.ParseUint(exportBlock, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	waitDataBlock(t, n, last)

	runExplorerSuite(t, n, "history", map[string]any{
		"evmChainId": 43112, "sender": s.addr.Hex(), "bob": bob.Hex(), "carol": carol.Hex(),
		"nativeTx": native.TxHash.Hex(), "erc20Tx": send20.TxHash.Hex(), "forwardTx": forward.TxHash.Hex(),
		"erc20": erc20.Hex(), "erc20Block": send20.BlockNumber.String(), "erc20BlockHash": send20.BlockHash.Hex(),
		"xTx": xSend, "xRecipient": xRecipient, "subnet": subnet, "validation": validation, "validationNode": v1node,
		"importee": importee, "importTx": importTx, "importBlock": importBlock, "exportTx": exportTx, "exportBlock": exportBlock,
		"utxoFunded": pEwoqAddr,
	})
}

// runExplorerSuite runs the browser test's phase ("fresh" or "history")
// with node --test against n, given the facts of the node's history,
// failing the test when it fails. Its output goes to the test log.
func runExplorerSuite(t *testing.T, n *nodetest.Node, phase string, facts map[string]any) {
	t.Helper()
	node := sdkSuiteNodeJS(t)
	web, err := filepath.Abs(explorerWebDir)
	if err != nil {
		t.Fatal(err)
	}
	shots, err := filepath.Abs(explorerScreenshots)
	if err != nil {
		t.Fatal(err)
	}
	factsJSON, err := json.Marshal(facts)
	if err != nil {
		t.Fatal(err)
	}
	if err := sdkSuiteInstalled(web); err != nil {
		t.Fatalf("%v: run make build (npm ci in %s)", err, web)
	}
	chromium := os.Getenv("CHAINHOST_CHROMIUM")
	if chromium == "" {
		if chromium, err = exec.LookPath("chromium"); err != nil {
			t.Fatalf("%s needs Chromium (Debian's chromium package; make test installs it with build/chromium.sh, or name a binary in CHAINHOST_CHROMIUM): %v", t.Name(), err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), explorerSuiteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "explorer.test.mjs")
	cmd.Dir = explorerSuiteDir
	cmd.Env = append(os.Environ(), "EXPLORER_CHROMIUM="+chromium, "EXPLORER_NODE_URL="+n.URL, "EXPLORER_PHASE="+phase,
		"EXPLORER_FACTS="+string(factsJSON), "EXPLORER_SCREENSHOTS="+shots)
	// node --test runs the file in a child process, which runs Chromium:
	// stop them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out := t.Output()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			t.Fatalf("the explorer's browser test (%s) did not finish within %s", phase, explorerSuiteTimeout)
		}
		t.Fatalf("the explorer's browser test (%s) failed (%v): its report is above", phase, err)
	}
}
