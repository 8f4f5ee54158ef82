package sdk_test

import (
	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk"
)

// A plugin binary's main: Serve answers `<binary> describe`, speaks the
// plugin protocol when the host starts it, and exits the process when the
// host stops it. This is cmd/example, the example key-value VM.
func ExampleServe() {
	sdk.Serve(sdk.ServeOpts{
		Description: sdk.Description{Name: "example", Version: "0.1.0", Aliases: []string{"kv"}},
		Plugin:      example.New(),
	})
}
