package e2e

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/nodetest"
)

// TestAtomicCLI: a user moves funds from X to C and back with the
// chainhost x and c commands, and sees each step in the balances.
func TestAtomicCLI(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: atomicXC("")})
	hostBin, _ := nodetest.Binaries(t)
	run := func(args ...string) string {
		t.Helper()
		args = append(args, "--node", n.URL, "--key", ewoqKey)
		out, err := exec.Command(hostBin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("chainhost %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	fee := regexp.MustCompile(`fee (\d+) nAVAX: tx \w+\n`)
	if out := run("c", "address"); !strings.Contains(out, evmLocalAddr+" (EVM account)") ||
		!strings.Contains(out, "C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u") {
		t.Fatalf("address: %q", out)
	}
	if out := run("c", "balance"); !strings.Contains(out, "50000000 AVAX (50000000000000000000000000 wei)") {
		t.Fatalf("balance: %q", out)
	}
	run("x", "export", "--to-chain", "C", "--amount", "3AVAX")
	if out := run("c", "balance", "--from", "X"); !strings.Contains(out, "exported by X") || !strings.Contains(out, "3 AVAX (3000000000)") {
		t.Fatalf("balance --from X: %q", out)
	}
	out := run("c", "import", "--from-chain", "X", "--to", "0x0000000000000000000000000000000000000C0C")
	m := fee.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "from X to 0x0000000000000000000000000000000000000C0C") {
		t.Fatalf("import: %q", out)
	}
	if out := run("c", "balance", "--from", "X"); !strings.Contains(out, "0 AVAX (0)") {
		t.Fatalf("balance --from X after the import: %q", out)
	}
	out = run("c", "export", "--to-chain", "X", "--amount", "1.25AVAX")
	if fee.FindStringSubmatch(out) == nil || !strings.Contains(out, "export 1.25 AVAX (1250000000) to X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u") {
		t.Fatalf("export: %q", out)
	}
	if out := run("x", "balance", "--from", "C"); !strings.Contains(out, "exported by C") || !strings.Contains(out, "1.25 AVAX (1250000000)") {
		t.Fatalf("x balance --from C: %q", out)
	}
	run("x", "import", "--from-chain", "C")
	// X: 300,000,000 - 3 - fee of the export + 1.25 - fee of the import.
	if out := run("x", "balance"); !strings.Contains(out, "299999998.248 AVAX (299999998248000000)") {
		t.Fatalf("x balance at the end: %q", out)
	}
	// Errors say what is wrong.
	cmd := exec.Command(hostBin, "c", "export", "--node", n.URL, "--key", ewoqKey, "--to-chain", "X", "--amount", "100000000AVAX")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "insufficient funds") {
		t.Fatalf("an export over the balance: %v %q", err, out)
	}
	cmd = exec.Command(hostBin, "c", "import", "--node", n.URL, "--key", ewoqKey, "--from-chain", "X")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "exported nothing") {
		t.Fatalf("an import of nothing: %v %q", err, out)
	}
}
