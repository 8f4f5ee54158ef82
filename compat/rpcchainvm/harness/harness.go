// Package harness starts the real host for the tests of avalanchego's VM
// plugins and asks it what a user asks: which plugins admin.loadVMs
// loaded, whether a chain is healthy, what its index holds. Each test
// package imports it: go-ethereum's and avalanchego's clients link C
// libraries of the same symbols, so one test binary never holds both.
package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/chainhost/chainhost/configs"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"go.yaml.in/yaml/v3"
)

// The binaries of `make avalanchego-plugins`, in PluginsDirEnv's directory.
const (
	SubnetEVMBinary      = "subnet-evm"
	XSVMBinary           = "xsvm"
	XSVMProtocol44Binary = "xsvm-protocol44"
)

// PluginsDirEnv names the directory `make test` built avalanchego's plugins
// into.
const PluginsDirEnv = "AVALANCHEGO_PLUGINS_DIR"

// StartTimeout bounds a chain's start: a plugin process, its handshake and
// its VM's initialisation, on a loaded machine.
const StartTimeout = 2 * time.Minute

var built struct {
	once sync.Once
	dir  string
	err  error
}

// repo is the repository's root.
func repo() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Binary returns the path of the binary of `make avalanchego-plugins` named
// name: in PluginsDirEnv's directory as `make test` sets it, else built
// once with `make avalanchego-plugins` in the repository.
func Binary(t testing.TB, name string) string {
	t.Helper()
	if dir := os.Getenv(PluginsDirEnv); dir != "" {
		return filepath.Join(dir, name)
	}
	built.once.Do(func() {
		cmd := exec.Command("make", "avalanchego-plugins")
		cmd.Dir = repo()
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("make avalanchego-plugins: %w\n%s", err, out)
			return
		}
		built.dir = filepath.Join(repo(), "build", "avalanchego-plugins")
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, name)
}

// PluginDir returns a new plugin directory of the node's own plugins, to
// which Install adds avalanchego's.
func PluginDir(t testing.TB) string {
	t.Helper()
	return nodetest.LinkedPluginDir(t)
}

// Install copies the binary of `make avalanchego-plugins` named binary into
// the plugin directory dir under the file name avalanchego finds a plugin
// by, its VM ID. The copy is written aside and renamed into place, so that
// the node never sees a half-written plugin.
func Install(t testing.TB, dir, binary string, vmID ids.ID) {
	t.Helper()
	src, err := os.Open(Binary(t, binary))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, ".install-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(tmp, src); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Chmod(0o755); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, vmID.String())); err != nil {
		t.Fatal(err)
	}
}

// LocalNetwork returns a node config: the embedded default one (the
// one-node local network, whose P-Chain gives avalanchego's VMs their
// validators, and the data, metrics and explorer modules) with the admin
// API on, vmAliases as its VM aliases and chains added to its chains.
func LocalNetwork(t testing.TB, vmAliases map[string][]string, chains ...map[string]any) string {
	t.Helper()
	var config map[string]any
	if err := yaml.Unmarshal(configs.Default(), &config); err != nil {
		t.Fatalf("the embedded default config: %v", err)
	}
	config["api-admin-enabled"] = true
	config["vm-aliases"] = vmAliases
	for _, c := range chains {
		config["chains"] = append(config["chains"].([]any), c)
	}
	b, err := yaml.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// WriteFile writes data to a new file of the test's and returns its path.
func WriteFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// LoadVMsReply is admin.loadVMs's answer (docs/api/admin.md).
type LoadVMsReply struct {
	NewVMs    map[string][]string `json:"newVMs"`
	FailedVMs map[string]string   `json:"failedVMs"`
}

// LoadVMs calls admin.loadVMs.
func LoadVMs(t testing.TB, n *nodetest.Node) LoadVMsReply {
	t.Helper()
	var reply LoadVMsReply
	if err := n.Call(t.Context(), "/ext/admin", "admin.loadVMs", struct{}{}, &reply); err != nil {
		t.Fatalf("admin.loadVMs: %v", err)
	}
	return reply
}

// health is /ext/health's answer (docs/api/info.md).
type health struct {
	Checks map[string]struct {
		Healthy bool   `json:"healthy"`
		Message string `json:"message"`
	} `json:"checks"`
}

// readHealth reads /ext/health.
func readHealth(ctx context.Context, n *nodetest.Node) (health, error) {
	var h health
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.URL+"/ext/health", nil)
	if err != nil {
		return h, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return h, fmt.Errorf("/ext/health: %w", err)
	}
	return h, nil
}

// WaitChainHealthy waits until /ext/health says the chain alias is
// healthy.
func WaitChainHealthy(t testing.TB, n *nodetest.Node, alias string) {
	t.Helper()
	check := "chain/" + alias
	plugintest.Eventually(t, StartTimeout, func() error {
		h, err := readHealth(t.Context(), n)
		if err != nil {
			return err
		}
		c, ok := h.Checks[check]
		switch {
		case !ok:
			return fmt.Errorf("/ext/health has no check %s", check)
		case !c.Healthy:
			return fmt.Errorf("%s is not healthy: %s", check, c.Message)
		}
		return nil
	})
}

// ChainID returns the ID of the chain alias (info.getBlockchainID).
func ChainID(t testing.TB, n *nodetest.Node, alias string) ids.ID {
	t.Helper()
	var reply struct {
		BlockchainID ids.ID `json:"blockchainID"`
	}
	if err := n.Call(t.Context(), "/ext/info", "info.getBlockchainID", map[string]string{"alias": alias}, &reply); err != nil {
		t.Fatalf("info.getBlockchainID %s: %v", alias, err)
	}
	return reply.BlockchainID
}

// Container is one of the index API's containers (docs/api/index.md).
type Container struct {
	ID    ids.ID `json:"id"`
	Index string `json:"index"`
}

// rangeMax is the most containers index.getContainerRange answers.
const rangeMax = 1024

// Index reads every container of the chain alias's block index
// (/ext/index/<alias>/block), in order.
func Index(ctx context.Context, n *nodetest.Node, alias string) ([]Container, error) {
	path := "/ext/index/" + alias + "/block"
	var last Container
	if err := n.Call(ctx, path, "index.getLastAccepted", map[string]string{"encoding": "hex"}, &last); err != nil {
		return nil, err
	}
	end, err := strconv.ParseUint(last.Index, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("index.getLastAccepted of %s: index %q: %w", path, last.Index, err)
	}
	var all []Container
	for uint64(len(all)) <= end {
		var page []Container
		if err := n.Call(ctx, path, "index.getContainerRange",
			map[string]any{"startIndex": len(all), "numToFetch": rangeMax, "encoding": "hex"}, &page); err != nil {
			return nil, err
		}
		if len(page) == 0 {
			return nil, fmt.Errorf("index.getContainerRange of %s from %d answered nothing, its last accepted index is %d", path, len(all), end)
		}
		all = append(all, page...)
	}
	return all, nil
}
