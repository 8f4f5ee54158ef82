// Command hotvm is the example key-value VM under another VM name, "hotvm":
// the admin e2e tests build it and drop it into a running node's plugin dir
// to hot-load it with admin.loadVMs, and build it again to upgrade it.
package main

import (
	"fmt"
	"os"

	"github.com/chainhost/chainhost/plugins/example"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk"
)

// version is the plugin's version, as describe prints it; a build sets
// another with -ldflags "-X main.version=0.0.2" (docs/plugins.md).
var version = "0.0.1"

// exitAtStart, set by -ldflags "-X main.exitAtStart=why", makes a build
// that describes itself but exits as soon as the host starts it: an
// upgrade that fails to start.
var exitAtStart string

func main() {
	if exitAtStart != "" && (len(os.Args) < 2 || os.Args[1] != pluginv1.DescribeCommand) {
		fmt.Fprintln(os.Stderr, exitAtStart)
		os.Exit(3)
	}
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: "hotvm", Version: version, Aliases: []string{"hotkv"}},
		Plugin:      example.New(),
	})
}
