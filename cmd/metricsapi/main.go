// Command metricsapi is the metrics REST API module as a chainhost plugin
// binary (docs/metrics-api.md).
package main

import (
	"os"
	"runtime/debug"

	"github.com/chainhost/chainhost/plugins/metricsapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(api.GCPercent)
	}
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: metricsapi.Name, Version: "0.1.0", Prefixes: api.Prefixes, MessageArrayPrefixes: api.MessageArrayPrefixes},
		Module:      metricsapi.New(metricsapi.Options{}),
	})
}
