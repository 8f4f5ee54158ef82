package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/nodetest"
)

// evmServeEnv, when set, makes the benchmark binary serve the C-Chain's rpc
// handler instead of running benchmarks (see evmStandalone).
const evmServeEnv = nodetest.BenchEnvPrefix + "EVM_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(evmServeEnv) != "" {
		if err := serveStandaloneEVM(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "standalone EVM:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveStandaloneEVM serves the VM's rpc handler on a loopback port, writes
// its URL as one line to out, and serves until in ends.
func serveStandaloneEVM(in io.Reader, out io.Writer) error {
	dir, err := os.MkdirTemp("", "chainhost-bench-evm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	vm, h, err := newDirectEVM(dir)
	if err != nil {
		return err
	}
	defer vm.Shutdown(context.Background())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	if _, err := fmt.Fprintf(out, "http://%s\n", l.Addr()); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, in)
	return nil
}

// evmStandalone runs the benchmark binary again as a process that serves
// the same go-ethereum RPC server as evmDirect, as a standalone node would,
// and returns its URL.
func evmStandalone(b *testing.B) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), evmServeEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("standalone EVM server: %v", err)
	}
	return strings.TrimSpace(line)
}
