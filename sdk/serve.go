package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/memtrim"
	"github.com/chainhost/chainhost/transport/grpcplugin"
)

// orphanShutdownTimeout bounds the Shutdown a plugin gets when it finds its
// host gone, or when go-plugin stops serving.
const orphanShutdownTimeout = 2 * time.Second

// ServeOpts configures Serve. Set exactly one of Plugin and Module.
type ServeOpts struct {
	// Description says what the binary is; its Kind may be left empty.
	Description Description
	// Plugin is the VM to serve.
	Plugin Plugin
	// Module is the REST module to serve.
	Module Module
}

// target returns the Plugin to serve and the Description with its Kind.
func (o ServeOpts) target() (Plugin, Description, error) {
	d := o.Description
	switch {
	case o.Plugin != nil && o.Module != nil:
		return nil, d, errors.New("ServeOpts: both Plugin and Module are set")
	case o.Module != nil:
		if d.Kind != "" && d.Kind != KindModule {
			return nil, d, fmt.Errorf("ServeOpts: Module is set but Description.Kind is %q", d.Kind)
		}
		d.Kind = KindModule
		return AsPlugin(o.Module), d, nil
	case o.Plugin != nil:
		return o.Plugin, d, nil
	}
	return nil, d, errors.New("ServeOpts: neither Plugin nor Module is set")
}

// Serve runs the plugin binary; call it from main and exit non-zero when
// it returns an error, so that main's defers run first:
//
//	if err := sdk.Serve(opts); err != nil {
//		fmt.Fprintln(os.Stderr, err)
//		os.Exit(1)
//	}
//
// `<binary> describe` prints the Description as JSON and returns nil.
// Started by chainhost (with go-plugin's magic cookie in the environment),
// Serve speaks the plugin protocol until the host stops the plugin, then
// returns what the plugin's Shutdown returned; if the host dies instead, it
// shuts the plugin down and returns an error. Run by hand, it returns an
// error that says what the binary is. All logs go to stderr as hclog JSON,
// which the host reads into its own log; stdout is go-plugin's handshake
// channel and must not be written to.
func Serve(opts ServeOpts) error {
	return serve(opts, os.Args, os.Stdout, os.Stderr)
}

// serve is Serve with its process surroundings passed in.
func serve(opts ServeOpts, args []string, stdout, stderr *os.File) error {
	p, d, targetErr := opts.target()
	desc, err := d.wire()
	if err != nil {
		return fmt.Errorf("chainhost plugin: %w", err)
	}
	if len(args) > 1 && args[1] == pluginv1.DescribeCommand {
		if err := writeDescription(stdout, desc); err != nil {
			return fmt.Errorf("chainhost plugin %s: %w", desc.Name, err)
		}
		return nil
	}
	if os.Getenv(pluginv1.MagicCookieKey) != pluginv1.MagicCookieValue {
		return errors.New(notStartedByHost(desc, args))
	}
	if targetErr != nil {
		return fmt.Errorf("chainhost plugin %s: %w", desc.Name, targetErr)
	}
	return servePlugin(p, d, stdout, stderr)
}

// writeDescription prints desc as one line of JSON.
func writeDescription(w io.Writer, desc pluginv1.Description) error {
	b, err := json.Marshal(desc)
	if err != nil {
		return fmt.Errorf("encode description: %w", err)
	}
	if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
		return fmt.Errorf("write description: %w", err)
	}
	return nil
}

// notStartedByHost is the line a user sees who runs the binary by hand.
func notStartedByHost(desc pluginv1.Description, args []string) string {
	bin := "plugin"
	if len(args) > 0 {
		bin = filepath.Base(args[0])
	}
	return fmt.Sprintf("%s is a chainhost plugin (%s %q %s), started by chainhost, not by hand: put it in the node's --plugin-dir "+
		"or load it with admin.loadVMs; `%s %s` prints its description", bin, desc.Kind, desc.Name, desc.Version, bin, pluginv1.DescribeCommand)
}

// servePlugin speaks the plugin protocol over go-plugin until the host
// stops the plugin, and watches for the host dying. stdout and stderr are
// the process's own files: go-plugin swaps os.Stdout and os.Stderr for
// pipes to the host while it serves, and servePlugin puts them back.
func servePlugin(p Plugin, d Description, stdout, stderr *os.File) error {
	// The host owns the plugin's lifecycle: a Ctrl-C or a service manager's
	// SIGTERM sent to the whole process group must not kill the plugin
	// before the host has shut it down cleanly. The watchdog and the
	// parent-death signal still end it if the host dies.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	logger := hclog.New(&hclog.LoggerOptions{Output: stderr, JSONFormat: true, Level: hclog.Info})

	var broker grpcplugin.Broker
	srv := newPluginServer(p, PluginServerOptions{Logger: logger, Connect: broker.DialHost, Description: d})
	shutdown := func(why string) error {
		ctx, cancel := context.WithTimeout(context.Background(), orphanShutdownTimeout)
		defer cancel()
		if err := srv.shutdown(ctx); err != nil {
			logger.Error("plugin shutdown failed", "reason", why, "error", err)
			return fmt.Errorf("chainhost plugin: %s: %w", why, err)
		}
		return nil
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go memtrim.Run(ctx, memtrim.Options{})
	var grpcSrv grpcplugin.Stopper
	var orphanErr error
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		watchParent(ctx, watchInterval, os.Getppid(), os.Getppid, func() {
			logger.Warn("host process is gone; shutting down")
			orphanErr = errors.Join(errHostGone, shutdown("host gone"))
			// Ending the gRPC server is what makes plugin.Serve return.
			grpcSrv.Stop()
		})
	}()

	plugin.Serve(grpcplugin.ServeConfig(srv, &broker, grpcSrv.NewServer, logger))
	os.Stdout, os.Stderr = stdout, stderr
	stop()
	<-watched
	if orphanErr != nil {
		return orphanErr
	}
	return shutdown("host stopped the plugin")
}

// errHostGone is what Serve returns when the host died under the plugin.
var errHostGone = errors.New("chainhost plugin: host process is gone")
