package e2e

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestXChainCLI: a user moves funds with the chainhost x commands: a
// transfer, an export from X to X2, what waits on X2, and its import.
func TestXChainCLI(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: twoXChainsConfig("{tx-fee: 1000000}")})
	hostBin, _ := nodetest.Binaries(t)
	run := func(args ...string) string {
		t.Helper()
		args = append([]string{"x"}, append(args, "--node", n.URL, "--key", ewoqKey)...)
		out, err := exec.Command(hostBin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("chainhost %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	txID := regexp.MustCompile(`tx (\w+)\n`)
	checkTx := func(out string) {
		t.Helper()
		m := txID.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no tx ID in %q", out)
		}
		if _, err := ids.FromString(m[1]); err != nil {
			t.Fatalf("tx ID %q: %v", m[1], err)
		}
	}

	if out := run("address"); strings.TrimSpace(out) != "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u" {
		t.Fatalf("address: %q", out)
	}
	if out := run("balance"); !strings.Contains(out, "300000000 AVAX (300000000000000000)") {
		t.Fatalf("balance: %q", out)
	}
	out := run("send", "--to", "X-local1g65uqn6t77p656w64023nh8nd9updzmxyymev2", "--amount", "1.5AVAX")
	if !strings.Contains(out, "send 1.5 AVAX (1500000000) to X-local1g65uqn6t77p656w64023nh8nd9updzmxyymev2") {
		t.Fatalf("send: %q", out)
	}
	checkTx(out)
	checkTx(run("export", "--to-chain", "X2", "--amount", "2000000000"))
	if out := run("balance", "--chain", "X2", "--from", "X"); !strings.Contains(out, "exported by X") || !strings.Contains(out, "2 AVAX (2000000000)") {
		t.Fatalf("balance on X2 from X: %q", out)
	}
	checkTx(run("import", "--chain", "X2", "--from-chain", "X"))
	if out := run("balance", "--chain", "X2"); !strings.Contains(out, "300000001.999 AVAX (300000001999000000)") {
		t.Fatalf("balance on X2 after the import: %q", out)
	}
	if out := run("balance"); !strings.Contains(out, "299999996.498 AVAX (299999996498000000)") {
		t.Fatalf("balance on X: %q", out)
	}
	// A bad address says so.
	cmd := exec.Command(hostBin, "x", "send", "--node", n.URL, "--key", ewoqKey, "--to", "X-fuji1xyz", "--amount", "1")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "address") {
		t.Fatalf("send to a bad address: %v %q", err, out)
	}
}
