package e2e

import (
	"context"
	"errors"
	"fmt"
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

// sdkSuiteDir is the data API conformance suite, relative to this package
// (docs/data-api.md, "Conformance suite").
const sdkSuiteDir = "../../tests/dataapi-sdk"

// sdkSuiteNode is the oldest Node.js major version the suite runs on (its
// package.json's engines).
const sdkSuiteNode = 20

// sdkSuiteTimeout bounds one run of the suite; it takes well under two
// minutes.
const sdkSuiteTimeout = 5 * time.Minute

var nodeVersion = regexp.MustCompile(`^v(\d+)\.`)

// sdkSuiteStoresEnv names the stores TestDataAPISDK runs the suite on,
// comma-separated: pebble (the embedded default) and postgres; unset, both.
const sdkSuiteStoresEnv = "DATAAPI_SDK_STORES"

// TestDataAPISDK runs the data API conformance suite against the real node:
// after a scenario on the C-Chain, the official client SDK
// (@avalanche-sdk/chainkit) reads all twelve EVM endpoints, with its
// response validation on, and every value is checked against the chain's
// RPC; then, on the same node, pchain.test.js makes subnets and an L1 and
// checks the P-Chain endpoints against the chain's platform methods. It
// runs once per store (sdkSuiteStoresEnv): the embedded one and
// PostgreSQL (a throwaway cluster). Its output goes to the test log.
func TestDataAPISDK(t *testing.T) {
	t.Parallel()
	for _, store := range sdkStores(t) {
		t.Run(store, func(t *testing.T) {
			config := dataConfig
			if store == "postgres" {
				config = pgDataConfig(pgDatabase(t), "")
			}
			n := nodetest.Start(t, nodetest.Options{Config: config})
			runSDKSuite(t, "conformance.test.js", "DATAAPI_NODE_URL="+n.URL)
			// The P-Chain endpoints, on the same node, after the EVM
			// scenario: a subnet, an L1 and its manager's chain.
			runSDKSuite(t, "pchain.test.js", "DATAAPI_NODE_URL="+n.URL)
		})
	}
}

// sdkStores returns the stores the data API suites run on
// (sdkSuiteStoresEnv), failing t on an unknown one.
func sdkStores(t *testing.T) []string {
	t.Helper()
	stores := []string{"pebble", "postgres"}
	if v := os.Getenv(sdkSuiteStoresEnv); v != "" {
		stores = strings.Split(v, ",")
	}
	for _, store := range stores {
		if store != "pebble" && store != "postgres" {
			t.Fatalf("%s=%s: unknown store %q (pebble, postgres)", sdkSuiteStoresEnv, os.Getenv(sdkSuiteStoresEnv), store)
		}
	}
	return stores
}

// runSDKSuite runs one file of the conformance suite with node --test and
// env added to its environment, failing the test when the suite fails.
// Its output goes to the test log.
func runSDKSuite(t *testing.T, file string, env ...string) {
	t.Helper()
	runNodeTests(t, sdkSuiteDir, file, sdkSuiteTimeout, env...)
}

// runNodeTests runs file, a node:test file of the npm suite in dir
// (relative to this package), with node --test and env added to its
// environment, failing the test when a test of it fails or it does not
// finish within timeout. Its output goes to the test log.
func runNodeTests(t *testing.T, dir, file string, timeout time.Duration, env ...string) {
	t.Helper()
	node := sdkSuiteNodeJS(t)
	suite, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := sdkSuiteInstalled(suite); err != nil {
		t.Fatalf("%v: make test installs them (npm ci in %s)", err, suite)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", file)
	cmd.Dir = suite
	cmd.Env = append(os.Environ(), env...)
	// node --test runs the file in a child process: stop both.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out := t.Output()
	cmd.Stdout, cmd.Stderr = out, out // one writer: os/exec writes to it from one goroutine at a time
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			t.Fatalf("%s of %s did not finish within %s", file, dir, timeout)
		}
		t.Fatalf("%s of %s failed (%v): its report is above", file, dir, err)
	}
}

// sdkSuiteNodeJS returns the node binary, failing the test when Node.js is
// missing or too old: the suite is part of `make test`, never skipped.
func sdkSuiteNodeJS(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%s needs Node.js %d or later (the conformance suite of the data and metrics APIs runs in it, docs/data-api.md): %v", t.Name(), sdkSuiteNode, err)
	}
	v, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", node, err)
	}
	major := 0
	if m := nodeVersion.FindSubmatch(v); m != nil {
		major, _ = strconv.Atoi(string(m[1]))
	}
	if major < sdkSuiteNode {
		t.Fatalf("%s needs Node.js %d or later, %s is %s", t.Name(), sdkSuiteNode, node, strings.TrimSpace(string(v)))
	}
	return node
}

// sdkSuiteInstalled checks whether the suite's npm packages are installed
// from its current lockfile: npm ci writes node_modules/.package-lock.json
// last.
func sdkSuiteInstalled(suite string) error {
	installed, err := os.Stat(filepath.Join(suite, "node_modules", ".package-lock.json"))
	if err != nil {
		return fmt.Errorf("the suite's npm packages are not installed: %w", err)
	}
	lock, err := os.Stat(filepath.Join(suite, "package-lock.json"))
	if err != nil {
		return err
	}
	if lock.ModTime().After(installed.ModTime()) {
		return errors.New("the suite's npm packages are older than its package-lock.json")
	}
	return nil
}
