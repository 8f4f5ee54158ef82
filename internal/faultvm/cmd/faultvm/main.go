// Command faultvm is the fault tests' misbehaving VM as a plugin binary.
package main

import (
	"github.com/chainhost/chainhost/internal/faultvm"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Serve(sdk.ServeOpts{
		Description: sdk.Description{Name: faultvm.Name, Version: "0.1.0"},
		Plugin:      &faultvm.VM{},
	})
}
