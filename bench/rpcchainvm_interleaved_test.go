package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The binaries BenchmarkRPCChainVMInterleaved runs beside the host's:
// subnet-evm of `make avalanchego-plugins` (AVALANCHEGO_PLUGINS_DIR, as
// `make test` names it for compat/rpcchainvm, else the repository's
// build/avalanchego-plugins), and avalanchego's node with the tool that
// creates a chain on it, of `make avalanchego-node`.
const (
	avalanchegoPluginsDirEnv = "AVALANCHEGO_PLUGINS_DIR"
	avalanchegoPluginsDir    = "../build/avalanchego-plugins"
	avalanchegoNodeDir       = "../build/avalanchego-node"
)

// subnetEVMGenesisFile is compat/rpcchainvm's subnet-evm genesis: chain ID
// 99999, the local key funded.
const subnetEVMGenesisFile = "../compat/rpcchainvm/subnetevm/testdata/subnet-evm-genesis.json"

// chainStartTimeout bounds the start of a chain: a plugin process, its
// handshake and its VM's initialisation, and on avalanchego its node's
// bootstrap, on a loaded machine.
const chainStartTimeout = 3 * time.Minute

// BenchmarkRPCChainVMInterleaved (run it with -benchtime 1x) measures what
// BenchmarkEVMRPCInterleaved does, in the same interleaved windows, on
// three targets: chainhost's own EVM plugin (the C-Chain of a node started
// from the embedded defaults: evm), avalanchego v1.14.2's subnet-evm plugin
// under chainhost (a node of the same defaults but for its chains:
// subnet-evm), and the same subnet-evm binary under avalanchego v1.14.2's
// own node (a one-node local network, the chain created on a subnet of its
// own with avalanchego's wallet: avalanchego). Each chain has the token
// deployed. It also counts the CPU time each node's processes (the node
// and its plugins) spend per request of the throughput windows, which the
// load of others on the machine changes less than requests per second. It skips when the binaries of `make avalanchego-plugins` or
// `make avalanchego-node` are not built (docs/benchmarks.md, "rpcchainvm
// plugins (issue 29)").
func BenchmarkRPCChainVMInterleaved(b *testing.B) {
	plugin := subnetEVMBinary(b)
	node, createChain := avalanchegoBinaries(b)
	genesis, err := filepath.Abs(subnetEVMGenesisFile)
	if err != nil {
		b.Fatal(err)
	}
	rounds := benchRounds(b)
	pids := map[string]int{} // the node serving each target
	targets := startRPCTargets(b, []evmTarget{
		{"evm", func(b *testing.B) string {
			n := nodetest.Start(b, nodetest.Options{})
			pids["evm"] = n.PID()
			return n.URL + "/ext/bc/C/rpc"
		}},
		{"subnet-evm", func(b *testing.B) string {
			url, pid := chainhostSubnetEVM(b, plugin, genesis)
			pids["subnet-evm"] = pid
			return url
		}},
		{"avalanchego", func(b *testing.B) string {
			url, pid := avalanchegoSubnetEVM(b, node, createChain, plugin, genesis)
			pids["avalanchego"] = pid
			return url
		}},
	})
	for i := range targets {
		targets[i].pid = pids[targets[i].name]
	}
	got := runInterleaved(b, targets, rounds)
	// Printed, not logged: the testing package cuts a benchmark's log short.
	fmt.Print(interleavedTable(got, targets, [][2]string{{"subnet-evm", "evm"}, {"subnet-evm", "avalanchego"}}))
}

// subnetEVMBinary is the path of `make avalanchego-plugins`'s subnet-evm;
// the benchmark skips without it.
func subnetEVMBinary(b *testing.B) string {
	dir := os.Getenv(avalanchegoPluginsDirEnv)
	if dir == "" {
		dir = avalanchegoPluginsDir
	}
	path, err := filepath.Abs(filepath.Join(dir, "subnet-evm"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("subnet-evm is not built (%v): run make avalanchego-plugins", err)
	}
	return path
}

// avalanchegoBinaries are the paths of `make avalanchego-node`'s node and
// createchain; the benchmark skips without them.
func avalanchegoBinaries(b *testing.B) (node, createChain string) {
	dir, err := filepath.Abs(avalanchegoNodeDir)
	if err != nil {
		b.Fatal(err)
	}
	node, createChain = filepath.Join(dir, "avalanchego"), filepath.Join(dir, "createchain")
	for _, p := range []string{node, createChain} {
		if _, err := os.Stat(p); err != nil {
			b.Skipf("avalanchego's node is not built (%v): run make avalanchego-node", err)
		}
	}
	return node, createChain
}

// installSubnetEVM links plugin into the plugin directory dir under the
// name avalanchego and chainhost find subnet-evm by, its VM ID.
func installSubnetEVM(b *testing.B, dir, plugin string) {
	if err := os.Symlink(plugin, filepath.Join(dir, constants.SubnetEVMID.String())); err != nil {
		b.Fatal(err)
	}
}

// chainhostSubnetEVM starts the host with the embedded defaults but for
// its chains: one chain of subnet-evm from genesis (docs/rpcchainvm.md).
// It returns the chain's rpc URL once the chain answers, and the host's
// pid.
func chainhostSubnetEVM(b *testing.B, plugin, genesis string) (string, int) {
	plugins := nodetest.LinkedPluginDir(b)
	installSubnetEVM(b, plugins, plugin)
	cfg := fmt.Sprintf(`
vm-aliases:
  %s: [subnetevm]
chains:
  - alias: subnetevm
    vm: subnetevm
    genesis-file: %s
`, constants.SubnetEVMID, genesis)
	n := nodetest.Start(b, nodetest.Options{Config: cfg, PluginDir: plugins})
	url := n.URL + "/ext/bc/subnetevm/rpc"
	waitRPC(b, url)
	return url, n.PID()
}

// avalanchegoSubnetEVM starts avalanchego's node on a one-node local
// network with subnet-evm in its plugin directory, creates a subnet and a
// subnet-evm chain from genesis on it with createchain, restarts the node
// tracking the subnet, and returns the chain's rpc URL once the chain
// answers, and the node's pid.
func avalanchegoSubnetEVM(b *testing.B, node, createChain, plugin, genesis string) (string, int) {
	data := b.TempDir()
	plugins := filepath.Join(data, "plugins")
	if err := os.Mkdir(plugins, 0o755); err != nil {
		b.Fatal(err)
	}
	installSubnetEVM(b, plugins, plugin)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatal(err)
	}
	args := []string{
		"--network-id=local", "--sybil-protection-enabled=false",
		// One validator: a poll asks it alone.
		"--snow-sample-size=1", "--snow-quorum-size=1",
		"--data-dir=" + data, "--plugin-dir=" + plugins,
		"--http-port=0", "--staking-port=0",
		// avalanchego raises the soft limit to this and refuses a hard
		// limit under it; the default, 32,768, is above these machines'.
		fmt.Sprintf("--fd-limit=%d", min(lim.Max, 32768)),
	}
	n := startAvalanchego(b, node, data, args)
	out, err := exec.Command(createChain, "-uri", n.uri, "-genesis", genesis).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			b.Fatalf("createchain: %v\n%s", err, ee.Stderr)
		}
		b.Fatalf("createchain: %v", err)
	}
	ids := strings.Fields(string(out))
	if len(ids) != 2 {
		b.Fatalf("createchain printed %q, want a subnet ID and a chain ID", out)
	}
	n.stop(b)
	n = startAvalanchego(b, node, data, append(args, "--track-subnets="+ids[0]))
	url := n.uri + "/ext/bc/" + ids[1] + "/rpc"
	waitRPC(b, url)
	return url, n.cmd.Process.Pid
}

// avalanchegoNode is a running avalanchego node.
type avalanchegoNode struct {
	uri     string
	data    string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	waitErr error
	stopped sync.Once
}

// startAvalanchego starts avalanchego's node with args, its output in
// data/output.log, and returns it once its P-Chain is bootstrapped, with
// its API URI from its process context file. The node is stopped when the
// benchmark ends.
func startAvalanchego(b *testing.B, node, data string, args []string) *avalanchegoNode {
	b.Helper()
	ctxFile := filepath.Join(data, "process.json")
	if err := os.Remove(ctxFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		b.Fatal(err)
	}
	logPath := filepath.Join(data, "output.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer logFile.Close()
	n := &avalanchegoNode{data: data, cmd: exec.Command(node, args...), done: make(chan struct{})}
	n.cmd.Stdout, n.cmd.Stderr = logFile, logFile
	if err := n.cmd.Start(); err != nil {
		b.Fatalf("start avalanchego: %v", err)
	}
	go func() {
		n.waitErr = n.cmd.Wait()
		close(n.done)
	}()
	b.Cleanup(func() { n.stop(b) })
	plugintest.Eventually(b, chainStartTimeout, func() error {
		select {
		case <-n.done:
			out, _ := os.ReadFile(logPath)
			b.Fatalf("avalanchego exited (%v):\n%s", n.waitErr, out)
		default:
		}
		raw, err := os.ReadFile(ctxFile)
		if err != nil {
			return err
		}
		var pc struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(raw, &pc); err != nil {
			return fmt.Errorf("%s: %w", ctxFile, err)
		}
		var reply struct {
			IsBootstrapped bool `json:"isBootstrapped"`
		}
		if err := jsonrpc.Call(context.Background(), http.DefaultClient, pc.URI+"/ext/info", "info.isBootstrapped", map[string]string{"chain": "P"}, &reply); err != nil {
			return err
		}
		if !reply.IsBootstrapped {
			return errors.New("avalanchego's P-Chain is not bootstrapped")
		}
		n.uri = pc.URI
		return nil
	})
	return n
}

// stop stops the node as its operator does (SIGTERM), and kills it if it
// has not exited within a minute.
func (n *avalanchegoNode) stop(b *testing.B) {
	n.stopped.Do(func() {
		_ = n.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-n.done:
		case <-time.After(time.Minute):
			_ = n.cmd.Process.Kill()
			<-n.done
			b.Logf("avalanchego (%s) did not stop within a minute of SIGTERM: killed", n.data)
		}
	})
}

// waitRPC waits until url answers eth_chainId.
func waitRPC(b *testing.B, url string) {
	b.Helper()
	plugintest.Eventually(b, chainStartTimeout, func() error {
		var id string
		return jsonrpc.Call(context.Background(), http.DefaultClient, url, "eth_chainId", []any{}, &id)
	})
}
