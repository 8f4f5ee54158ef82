package sdk_test

import (
	"fmt"
	"os"

	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk"
)

// A plugin binary's main: Serve answers `<binary> describe`, speaks the
// plugin protocol when the host starts it, and returns when the host stops
// it, so main's defers run. Run by hand, the binary prints what it is and
// exits 1. This is cmd/example, the example key-value VM.
func ExampleServe() {
	if err := sdk.Serve(sdk.ServeOpts{
		Description: sdk.Description{Name: "example", Version: "0.1.0", Aliases: []string{"kv"}},
		Plugin:      example.New(),
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
