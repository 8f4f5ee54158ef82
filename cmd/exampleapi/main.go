// Command exampleapi is the example REST module as a chainhost plugin
// binary.
package main

import (
	"github.com/chainhost/chainhost/plugins/exampleapi"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: exampleapi.Name, Version: "0.1.0", Prefixes: []string{exampleapi.Prefix}},
		Module:      exampleapi.New(),
	})
}
