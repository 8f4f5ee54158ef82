// Command testplugin is the plugin binary the pluginhost tests run: a VM
// with handlers that echo, use the host database, report the process ID,
// log, turn unhealthy and crash.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/hashicorp/go-hclog"
)

// accepted is how many blocks the test VM claims to have accepted.
const accepted = 2

func main() {
	if err := sdk.Serve(sdk.ServeOpts{
		Description: sdk.Description{Name: "testvm", Version: "v0.0.1", Aliases: []string{"test"}},
		Plugin:      &vm{},
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// vm is the test VM.
type vm struct {
	env  *sdk.Env
	sick atomic.Pointer[string]
}

func (v *vm) Initialize(_ context.Context, env *sdk.Env) error {
	v.env = env
	env.Logger.Info("testplugin initialized", "pid", os.Getpid(), "name", env.Name)
	return nil
}

func (v *vm) Handlers() map[string]http.Handler {
	return map[string]http.Handler{
		"rpc":   http.HandlerFunc(v.echo),
		"db":    http.HandlerFunc(v.db),
		"pid":   http.HandlerFunc(v.pid),
		"log":   http.HandlerFunc(v.log),
		"sick":  http.HandlerFunc(v.makeSick),
		"crash": http.HandlerFunc(v.crash),
	}
}

func (v *vm) Shutdown(context.Context) error {
	v.env.Logger.Info("testplugin shutting down")
	return nil
}

// Health reports the reason set through the sick handler.
func (v *vm) Health(context.Context) error {
	if reason := v.sick.Load(); reason != nil {
		return errors.New(*reason)
	}
	return nil
}

// UnsafeAPIs declares a dev API, for the host's Admit.
func (v *vm) UnsafeAPIs() []string { return []string{"dev"} }

func (v *vm) IndexKinds() []string { return []string{"block"} }

func (v *vm) AcceptedCount(_ context.Context, kind string) (uint64, error) {
	if kind != "block" {
		return 0, fmt.Errorf("kind %q: %w", kind, host.ErrNotFound)
	}
	return accepted, nil
}

func (v *vm) GetAccepted(_ context.Context, kind string, position uint64) (host.Container, error) {
	if kind != "block" || position >= accepted {
		return host.Container{}, fmt.Errorf("%s %d: %w", kind, position, host.ErrNotFound)
	}
	b := []byte("block " + strconv.FormatUint(position, 10))
	return host.Container{ID: ids.ID(sha256.Sum256(b)), Bytes: b}, nil
}

// echo answers the method, path and body it got.
func (v *vm) echo(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "%s %s %s", r.Method, r.URL.Path, body)
}

// db puts the body at ?key= (POST) and answers what the host database then
// holds there.
func (v *vm) db(w http.ResponseWriter, r *http.Request) {
	key := []byte(r.URL.Query().Get("key"))
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := v.env.Host.DB.Put(r.Context(), key, body); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	value, err := v.env.Host.DB.Get(r.Context(), key)
	if errors.Is(err, host.ErrNotFound) {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(value)
}

func (v *vm) pid(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprint(w, os.Getpid())
}

// log writes the body as one line at each level from TRACE to ERROR, and
// prints it to stdout.
func (v *vm) log(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	for _, l := range []hclog.Level{hclog.Trace, hclog.Debug, hclog.Info, hclog.Warn, hclog.Error} {
		v.env.Logger.Log(l, string(body)+" at "+l.String())
	}
	// A stray print, which the host should log too.
	fmt.Println(string(body) + " on stdout")
	w.WriteHeader(http.StatusNoContent)
}

func (v *vm) makeSick(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	reason := string(body)
	v.sick.Store(&reason)
	w.WriteHeader(http.StatusNoContent)
}

func (v *vm) crash(http.ResponseWriter, *http.Request) {
	os.Exit(3)
}
