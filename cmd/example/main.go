// Command example is the example key-value VM as a chainhost plugin binary.
package main

import (
	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: "example", Version: "0.1.0", Aliases: []string{"kv"}},
		Plugin:      example.New(),
	})
}
