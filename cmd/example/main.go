// Command example is the example key-value VM as a chainhost plugin binary.
package main

import (
	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk"
)

// version is the plugin's version, as describe prints it; a build sets
// another with -ldflags "-X main.version=0.2.0" (docs/plugins.md).
var version = "0.1.0"

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: "example", Version: version, Aliases: []string{"kv"}},
		Plugin:      example.New(),
	})
}
