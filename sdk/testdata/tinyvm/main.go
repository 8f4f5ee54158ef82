// Command tinyvm is the smallest chainhost VM plugin, built by the sdk
// package's tests to check Serve as a real process.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/chainhost/chainhost/sdk"
)

type vm struct{ env *sdk.Env }

func (v *vm) Initialize(_ context.Context, env *sdk.Env) error {
	v.env = env
	env.Logger.Info("tinyvm initialized", "chain", env.ChainID)
	return nil
}

func (v *vm) Handlers() map[string]http.Handler {
	return map[string]http.Handler{"rpc": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.env.Logger.Debug("rpc request", "path", r.URL.Path)
		fmt.Fprintf(w, "tiny:%s:%s", v.env.Name, r.URL.Path)
	})}
}

func (v *vm) Shutdown(context.Context) error {
	return os.WriteFile(filepath.Join(v.env.DataDir, "shutdown"), []byte("ok"), 0o600)
}

// serveResultEnv names a file where main writes what sdk.Serve returned,
// so that the tests see main go on after it.
const serveResultEnv = "TINYVM_SERVE_RESULT"

func main() {
	err := sdk.Serve(sdk.ServeOpts{
		Description: sdk.Description{Name: "tinyvm", Version: "1.2.3", Aliases: []string{"tiny"}},
		Plugin:      &vm{},
	})
	if path := os.Getenv(serveResultEnv); path != "" {
		if werr := os.WriteFile(path, []byte(fmt.Sprint(err)), 0o600); werr != nil {
			fmt.Fprintln(os.Stderr, werr)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
