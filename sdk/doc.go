// Package sdk is what a chainhost VM or REST module imports. A plugin is a
// binary whose main calls Serve; the host starts it, talks gRPC to it, and
// routes /ext/bc/<chain>/<handler> to its plain http.Handlers:
//
//	type vm struct{ env *sdk.Env }
//
//	func (v *vm) Initialize(ctx context.Context, env *sdk.Env) error { v.env = env; return nil }
//	func (v *vm) Handlers() map[string]http.Handler          { return map[string]http.Handler{"rpc": v.rpc()} }
//	func (v *vm) Shutdown(ctx context.Context) error         { return nil }
//
//	func main() {
//		if err := sdk.Serve(sdk.ServeOpts{Description: sdk.Description{Name: "myvm", Version: "0.1.0"}, Plugin: &vm{}}); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// Env carries the chain's identity, genesis and config, a logger (write logs
// there, never to stdout) and env.Host: a namespaced database, the index
// (Accept a container atomically with its state writes), other chains'
// registry and handlers. Implement HealthChecker and ContainerSource when
// they apply; sdk/linear keeps a linear chain's blocks, height and
// ContainerSource, and the cut-accept rule of docs/writing-a-vm.md.
// `myvm describe` prints what the binary is; sdk/plugintest runs a plugin
// in-process over real gRPC for unit tests, across restarts and cut
// accepts.
package sdk
