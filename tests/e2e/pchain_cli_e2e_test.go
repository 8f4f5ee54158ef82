package e2e

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/nodetest"
)

// TestPChainCLI: an operator manages validators from the shell with the
// chainhost p commands and one key: lists validators, adds a validator and
// a delegator, creates a subnet and converts it to an L1, registers an L1
// validator, tops one up, sets a weight and disables one; bad input says
// what is wrong.
func TestPChainCLI(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: pchainConfig("manual")})
	hostBin, _ := nodetest.Binaries(t)
	exec1 := func(args ...string) (string, error) {
		args = append([]string{"p"}, append(args, "--node", n.URL)...)
		out, err := exec.Command(hostBin, args...).CombinedOutput()
		return string(out), err
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec1(append(args, "--key", ewoqKey)...)
		if err != nil {
			t.Fatalf("chainhost p %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	find := func(re, out string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %q in %q", re, out)
		}
		return m[1]
	}
	node := pchainNodeID(1).String()

	if out := run("address"); strings.TrimSpace(out) != pEwoqAddr {
		t.Fatalf("address: %q", out)
	}
	if out := run("balance"); !strings.Contains(out, "300000000 AVAX (300000000000000000)") {
		t.Fatalf("balance: %q", out)
	}
	if out := run("validators"); !strings.Contains(out, "1 validators of the primary network") || !strings.Contains(out, pGenesisNode.String()) {
		t.Fatalf("validators: %q", out)
	}
	out := run("add-validator", "--node-id", node, "--weight", "2000AVAX", "--end", "+336h", "--delegation-fee", "3")
	find(`validate `+node+` with 2000 AVAX \(2000000000000\) until \S+: tx (\w+)`, out)
	find(`delegate 25 AVAX \(25000000000\) to `+node+` until \S+: tx (\w+)`, run("add-delegator", "--node-id", node, "--weight", "25AVAX", "--end", "+24h"))
	if out := run("validators", "--node-id", node); !strings.Contains(out, "fee 3.0000%, 1 delegators (25 AVAX (25000000000))") {
		t.Fatalf("validators of the new node: %q", out)
	}

	subnet := find(`subnet (\w+): tx`, run("create-subnet"))
	v1node, v2node, v3node := pchainNodeID(11).String(), pchainNodeID(12).String(), pchainNodeID(13).String()
	out = run("convert", "--subnet", subnet, "--validator", v1node+":100:1AVAX", "--validator", v2node+":100:2AVAX")
	v1 := find(`L1 validator `+v1node+`: validation ID (\w+)`, out)
	find(`L1 validator `+v2node+`: validation ID (\w+)`, out)
	find(`convert `+subnet+` to an L1: tx (\w+)`, out)
	out = run("register", "--subnet", subnet, "--node-id", v3node, "--weight", "50", "--balance", "0.5AVAX")
	v3 := find(`L1 validator `+v3node+`: validation ID (\w+)`, out)
	find(`register: tx (\w+)`, out)
	find(`top up \w+ with 1 AVAX \(1000000000\): tx (\w+)`, run("top-up", "--validation-id", v3, "--amount", "1AVAX"))
	find(`set the weight of \w+ to 70: tx (\w+)`, run("set-weight", "--validation-id", v3, "--weight", "70"))
	find(`disable \w+: tx (\w+)`, run("disable", "--validation-id", v1))
	out = run("validators", "--subnet", subnet)
	for _, want := range []string{
		"3 validators of L1 " + subnet,
		v1node + " weight 100, inactive, balance 0 AVAX (0)",
		v2node + " weight 100, active, balance 2 AVAX (2000000000)",
		v3node + " weight 70, active, balance 1.5 AVAX (1500000000)",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("L1 validators: no %q in %q", want, out)
		}
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"add-validator", "--key", ewoqKey, "--node-id", "NodeID-nope", "--weight", "1", "--end", "+1h"}, "node ID"},
		{[]string{"top-up", "--key", ewoqKey, "--validation-id", v3}, "--amount is required"},
		{[]string{"disable", "--key", ewoqKey, "--validation-id", subnet}, "unknown validation ID"},
		{[]string{"convert", "--key", ewoqKey, "--subnet", subnet, "--validator", "x"}, "NODE:WEIGHT:BALANCE"},
	} {
		out, err := exec1(bad.args...)
		if err == nil || !strings.Contains(out, bad.want) {
			t.Errorf("chainhost p %s: %v %q, want an error saying %q", strings.Join(bad.args, " "), err, out, bad.want)
		}
	}
}

// TestPChainCLIImportExport: on the default config, AVAX goes from X to P
// and back with the chainhost x and p commands: an export waits in shared
// memory (p balance --from X shows it) until the import, and each chain's
// balance moves by exactly the amounts and fees.
func TestPChainCLIImportExport(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	n.WaitHealthy(t)
	hostBin, _ := nodetest.Binaries(t)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(hostBin, append(args, "--node", n.URL, "--key", ewoqKey)...).CombinedOutput()
		if err != nil {
			t.Fatalf("chainhost %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	balance := func(chain string) uint64 {
		t.Helper()
		m := regexp.MustCompile(`AVAX \((\d+)\)`).FindStringSubmatch(run(chain, "balance"))
		if m == nil {
			t.Fatalf("no %s balance", chain)
		}
		v, err := strconv.ParseUint(m[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	const fee, oneAVAX = 1_000_000, 1_000_000_000
	p0, x0 := balance("p"), balance("x")
	run("x", "export", "--to-chain", "P", "--amount", "2AVAX")
	if out := run("p", "balance", "--from", "X"); !strings.Contains(out, "waiting to be imported") || !strings.Contains(out, "2 AVAX (2000000000)") {
		t.Fatalf("p balance --from X: %q", out)
	}
	if out := run("p", "import", "--from-chain", "X"); !strings.Contains(out, "import from X to "+pEwoqAddr+": tx ") {
		t.Fatalf("p import: %q", out)
	}
	if got, want := balance("p"), p0+2*oneAVAX-fee; got != want {
		t.Fatalf("P balance after the import %d, want %d", got, want)
	}
	if out := run("p", "export", "--to-chain", "X", "--amount", "1AVAX"); !strings.Contains(out, "export 1 AVAX (1000000000) to X: tx ") {
		t.Fatalf("p export: %q", out)
	}
	run("x", "import", "--from-chain", "P")
	if got, want := balance("x"), x0-2*oneAVAX-fee+oneAVAX-fee; got != want {
		t.Fatalf("X balance after the round trip %d, want %d", got, want)
	}
	if got, want := balance("p"), p0+2*oneAVAX-fee-oneAVAX-fee; got != want {
		t.Fatalf("P balance after the export %d, want %d", got, want)
	}
}
