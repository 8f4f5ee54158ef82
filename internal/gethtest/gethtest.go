// Package gethtest starts a real go-ethereum node for a test: `geth --dev`
// (one pre-funded, unlocked dev account; a block per transaction) serving
// HTTP and WebSocket JSON-RPC on a free loopback port, so that the clients
// of any EVM node's standard JSON-RPC are tested against the reference
// implementation. The binary is go-ethereum's cmd/geth at the version of
// go.mod, built by `make geth` (a prerequisite of `make test`).
package gethtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/internal/syncbuf"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// binDirEnv names the build output dir that `make test` passes to tests.
const binDirEnv = "CHAINHOST_BIN_DIR"

// startTimeout bounds the wait for geth to answer.
const startTimeout = 60 * time.Second

// Binary returns the path of the geth binary: $CHAINHOST_BIN_DIR/geth, else
// build/geth in the repository. It fails t when it is missing.
func Binary(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(binDirEnv)
	if dir == "" {
		mod, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			t.Fatalf("go env GOMOD: %v", err)
		}
		dir = filepath.Join(filepath.Dir(strings.TrimSpace(string(mod))), "build")
	}
	bin := filepath.Join(dir, "geth")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no geth binary (%v): run `make geth` first", err)
	}
	return bin
}

// Start runs `geth --dev` with its HTTP and WebSocket JSON-RPC (eth, net,
// web3, debug and txpool) on one free loopback port, extra flags appended,
// waits until it answers eth_chainId, and stops it at t's cleanup. Its
// output is in t's log when t fails.
func Start(t testing.TB, extra ...string) (rpcURL, wsURL string) {
	t.Helper()
	port, authPort := freePort(t), freePort(t)
	args := append([]string{
		"--dev", "--datadir", t.TempDir(),
		"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(port),
		"--http.api", "eth,net,web3,debug,txpool",
		"--ws", "--ws.addr", "127.0.0.1", "--ws.port", strconv.Itoa(port),
		"--ws.api", "eth,net,web3,debug,txpool",
		"--authrpc.addr", "127.0.0.1", "--authrpc.port", strconv.Itoa(authPort),
		"--port", "0", "--nodiscover", "--maxpeers", "0", "--ipcdisable",
		"--verbosity", "2",
	}, extra...)
	var out syncbuf.Buffer
	cmd := exec.Command(Binary(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start geth: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("geth output:\n%s", out.String())
		}
	})
	rpcURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	wsURL = fmt.Sprintf("ws://127.0.0.1:%d", port)
	plugintest.Eventually(t, startTimeout, func() error {
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			t.Fatalf("geth exited before answering (%v):\n%s", err, out.String())
		default:
		}
		return answers(rpcURL)
	})
	return rpcURL, wsURL
}

// answers returns nil once url answers eth_chainId.
func answers(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := rpc.DialContext(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close()
	var id string
	return c.CallContext(ctx, &id, "eth_chainId")
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
