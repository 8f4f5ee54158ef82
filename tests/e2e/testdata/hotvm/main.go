// Command hotvm is the example key-value VM under another VM name, "hotvm":
// the admin e2e tests build it and drop it into a running node's plugin dir
// to hot-load it with admin.loadVMs.
package main

import (
	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: "hotvm", Version: "0.0.1", Aliases: []string{"hotkv"}},
		Plugin:      example.New(),
	})
}
