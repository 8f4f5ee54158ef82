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
// transfer, an export from X to X2, what waits on X2, and its import; a
// new asset and a transfer of it.
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
	// A new asset, then a transfer of it in its own units; the balance
	// names it by its symbol.
	out = run("create-asset", "--name", "Test Token", "--symbol", "TT", "--denomination", "2", "--supply", "10000TT")
	m := regexp.MustCompile(`^create-asset Test Token \(TT, denomination 2\): 10000 TT \(1000000\) to X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u: asset (\w+)\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("create-asset: %q", out)
	}
	checkTx(run("send", "--asset", m[1], "--to", "X-local1g65uqn6t77p656w64023nh8nd9updzmxyymev2", "--amount", "2.5TT"))
	if out := run("balance"); !strings.Contains(out, "9997.5 TT (999750)") || !strings.Contains(out, "299999996.496 AVAX (299999996496000000)") {
		t.Fatalf("balance after the new asset: %q", out)
	}
	// Bad input says what is wrong: a bad address, a missing flag, and
	// a rule of the chain's.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"send", "--to", "X-fuji1xyz", "--amount", "1"}, "address"},
		{[]string{"create-asset", "--symbol", "TT", "--supply", "1"}, "chainhost x create-asset: --name is required"},
		{[]string{"create-asset", "--name", "Test Token", "--symbol", "TT", "--supply", "1.5TT"}, `--supply: amount "1.5TT" is not a positive whole number of the smallest unit`},
		{[]string{"create-asset", "--name", "Test Token", "--symbol", "tt", "--supply", "1"}, `asset symbol "tt": only ASCII capital letters are allowed`},
	} {
		cmd := exec.Command(hostBin, append(append([]string{"x"}, c.args...), "--node", n.URL, "--key", ewoqKey)...)
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v %q, want %q", c.args, err, out, c.want)
		}
	}
}
