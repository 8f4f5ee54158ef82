// Command faultvm is the fault tests' misbehaving VM as a plugin binary.
// Started by the host it serves the VM through faultvm.Garble, which
// sdk.Serve cannot wrap; anything else (describe, a run by hand) is
// sdk.Main's.
package main

import (
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/chainhost/chainhost/internal/faultvm"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/transport/grpcplugin"
)

func main() {
	opts := sdk.ServeOpts{Description: sdk.Description{Name: faultvm.Name, Version: "0.1.0"}, Plugin: &faultvm.VM{}}
	if len(os.Args) > 1 || os.Getenv(pluginv1.MagicCookieKey) != pluginv1.MagicCookieValue {
		sdk.Main(opts)
		return
	}
	// The SDK's logger writes JSON lines to the real stderr, which
	// go-plugin later swaps for a pipe.
	logger := hclog.New(&hclog.LoggerOptions{Output: os.Stderr, JSONFormat: true, Level: hclog.Info})
	var broker grpcplugin.Broker
	srv := sdk.NewPluginServer(opts.Plugin, sdk.PluginServerOptions{Logger: logger, Connect: broker.DialHost, Description: opts.Description})
	plugin.Serve(grpcplugin.ServeConfig(faultvm.Garble(srv), &broker, grpcplugin.NewGRPCServer, logger))
}
