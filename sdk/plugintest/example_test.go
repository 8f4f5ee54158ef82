package plugintest_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// A VM author's unit test: Start runs the VM over real gRPC with in-memory
// host services, the test calls its JSON-RPC handler, and reads what the
// VM accepted into the index. In a test, pass the test's t; this example
// runs with a stand-in (exampleTB below) only because an Example has none.
func ExampleStart() {
	t := newExampleTB()
	defer t.finish()

	h := plugintest.Start(t, example.New(), plugintest.Options{Name: "kv"})
	var put struct {
		Height jsonrpc.Uint64 `json:"height"`
	}
	err := jsonrpc.Call(context.Background(), http.DefaultClient, h.URL("rpc"), "kv.put",
		map[string]string{"key": "greeting", "value": "hello"}, &put)
	if err != nil {
		t.Fatalf("kv.put: %v", err)
	}
	fmt.Println("block height:", put.Height)
	fmt.Println("indexed blocks:", len(h.Containers(example.Kind)))
	// Output:
	// block height: 0
	// indexed blocks: 1
}

// exampleTB is the testing.TB an Example hands to plugintest: it keeps the
// harness's cleanups for finish, and panics on a fatal error, since there
// is no test to fail. The embedded nil TB only supplies testing.TB's
// unexported method; the harness calls none of the others.
type exampleTB struct {
	testing.TB
	ctx      context.Context
	cancel   context.CancelFunc
	dirs     []string
	cleanups []func()
	failed   bool
}

func newExampleTB() *exampleTB {
	ctx, cancel := context.WithCancel(context.Background())
	return &exampleTB{ctx: ctx, cancel: cancel}
}

func (t *exampleTB) Helper()                  {}
func (t *exampleTB) Name() string             { return "Example" }
func (t *exampleTB) Context() context.Context { return t.ctx }
func (t *exampleTB) Cleanup(f func())         { t.cleanups = append(t.cleanups, f) }
func (t *exampleTB) Failed() bool             { return t.failed }
func (t *exampleTB) Log(args ...any)          { fmt.Fprintln(os.Stderr, args...) }
func (t *exampleTB) Logf(f string, a ...any)  { fmt.Fprintf(os.Stderr, f+"\n", a...) }
func (t *exampleTB) Error(args ...any)        { t.failed = true; t.Log(args...) }
func (t *exampleTB) Errorf(f string, a ...any) {
	t.failed = true
	t.Logf(f, a...)
}
func (t *exampleTB) Fatal(args ...any)         { panic(fmt.Sprint(args...)) }
func (t *exampleTB) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }

func (t *exampleTB) TempDir() string {
	dir, err := os.MkdirTemp("", "plugintest-example-")
	if err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	t.dirs = append(t.dirs, dir)
	return dir
}

// finish runs the cleanups, last registered first, as testing does, and
// panics if one reported an error.
func (t *exampleTB) finish() {
	t.cancel()
	for _, f := range slices.Backward(t.cleanups) {
		f()
	}
	for _, dir := range t.dirs {
		_ = os.RemoveAll(dir)
	}
	if t.failed {
		panic("plugintest example: a cleanup failed")
	}
}
