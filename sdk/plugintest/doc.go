// Package plugintest runs a plugin in-process behind a real gRPC connection
// (go-plugin's Serve and client in its test mode, with its broker and the
// configuration sdk.Serve uses), with in-memory host services, so that a
// VM author's unit tests exercise the same protocol as the node:
//
//	h := plugintest.Start(t, &myVM{}, plugintest.Options{Genesis: genesis})
//	resp, err := http.Post(h.URL("rpc"), "application/json", body)
//	blocks := h.Containers("block")
//
// HTTP requests reach the plugin's handlers on a data socket, as the
// node's do, served by the plugin's own server; WebSocket upgrades take the
// same socket (the node carries them on a gRPC stream). Accept, the
// database and the chain registry are the memory host's. The harness
// shuts the plugin down when the test ends and fails the test when Shutdown
// fails.
//
// The host's state outlives the plugin, as on the node: Restart starts a
// new plugin value over the same database, index and data directory,
// Crash ends the running one without Shutdown, and CutNextAccept commits
// the plugin's next accept but answers it with an error, so that a test
// checks that the VM recovers (docs/writing-a-vm.md, "The cut-accept
// rule"). Logs below Warn are dropped unless Options.Logger says
// otherwise. ExampleStart is a whole test of the example VM, run by go
// test.
package plugintest
