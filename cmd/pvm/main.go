// Command pvm is the P-Chain VM (plugins/pvm) as a chainhost plugin binary.
package main

import (
	"fmt"
	"os"

	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	if err := sdk.Serve(sdk.ServeOpts{
		Description: sdk.Description{Name: pvm.VMName, Version: "0.1.0", Aliases: []string{"platformvm"}},
		Plugin:      pvm.New(),
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
