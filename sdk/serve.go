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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/grpcplugin"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/memtrim"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
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

// Serve runs the plugin binary and exits the process; call it from main.
//
// `<binary> describe` prints the Description as JSON and exits 0. Started
// by chainhost (with go-plugin's magic cookie in the environment), Serve
// speaks the plugin protocol until the host stops it or dies. Run by hand,
// it prints what the binary is and exits 1. All logs go to stderr as hclog
// JSON, which the host reads into its own log; stdout is go-plugin's
// handshake channel and must not be written to.
func Serve(opts ServeOpts) {
	os.Exit(serve(opts, os.Args, os.Stdout, os.Stderr))
}

// serve is Serve with its process surroundings passed in; it returns the
// exit code.
func serve(opts ServeOpts, args []string, stdout, stderr *os.File) int {
	p, d, targetErr := opts.target()
	desc, err := d.wire()
	if err != nil {
		fmt.Fprintf(stderr, "chainhost plugin: %v\n", err)
		return 1
	}
	if len(args) > 1 && args[1] == pluginv1.DescribeCommand {
		if err := writeDescription(stdout, desc); err != nil {
			fmt.Fprintf(stderr, "chainhost plugin %s: %v\n", desc.Name, err)
			return 1
		}
		return 0
	}
	if os.Getenv(pluginv1.MagicCookieKey) != pluginv1.MagicCookieValue {
		fmt.Fprintln(stderr, notStartedByHost(desc, args))
		return 1
	}
	if targetErr != nil {
		fmt.Fprintf(stderr, "chainhost plugin %s: %v\n", desc.Name, targetErr)
		return 1
	}
	return servePlugin(p, stderr)
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
// stops the plugin, and watches for the host dying.
func servePlugin(p Plugin, stderr *os.File) int {
	// The host owns the plugin's lifecycle: a Ctrl-C or a service manager's
	// SIGTERM sent to the whole process group must not kill the plugin
	// before the host has shut it down cleanly. The watchdog and the
	// parent-death signal still end it if the host dies.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	// stderr is the real file: go-plugin swaps os.Stderr for a pipe later.
	logger := hclog.New(&hclog.LoggerOptions{Output: stderr, JSONFormat: true, Level: hclog.Info})

	var broker atomic.Pointer[plugin.GRPCBroker]
	srv := newPluginServer(p, PluginServerOptions{
		Logger: logger,
		Connect: func(id uint32) (host.Services, io.Closer, error) {
			b := broker.Load()
			if b == nil {
				return host.Services{}, nil, fmt.Errorf("connect host services: no go-plugin broker")
			}
			return grpcplugin.DialHost(b, id)
		},
	})
	shutdown := func(why string) {
		ctx, cancel := context.WithTimeout(context.Background(), orphanShutdownTimeout)
		defer cancel()
		if err := srv.shutdown(ctx); err != nil {
			logger.Error("plugin shutdown failed", "reason", why, "error", err)
		}
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go memtrim.Run(ctx, memtrim.Options{})
	go watchParent(ctx, watchInterval, os.Getppid(), os.Getppid, func() {
		logger.Warn("host process is gone; shutting down")
		shutdown("host gone")
		os.Exit(1)
	})

	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: grpcplugin.Handshake(),
		VersionedPlugins: map[int]plugin.PluginSet{
			pluginv1.ProtocolVersion: {
				pluginv1.PluginName: &grpcplugin.Plugin{NewServer: func(b *plugin.GRPCBroker) pluginv1.PluginServer {
					broker.Store(b)
					return srv
				}},
			},
		},
		GRPCServer: grpcplugin.NewGRPCServer,
		Logger:     logger,
	})
	shutdown("host stopped the plugin")
	return 0
}
