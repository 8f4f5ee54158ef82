// Command chainhost is the node: it loads chain VMs and API modules as
// plugin processes and serves their APIs over HTTP.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/node"
	"github.com/chainhost/chainhost/core/version"
	"github.com/chainhost/chainhost/proto/pluginv1"
)

const usage = `chainhost: a self-hostable node runtime for EVM and UTXO chains.

Usage:
  chainhost [flags]          start the node
  chainhost config [flags]   print the effective configuration and exit
  chainhost version          print the version and exit
  chainhost new-plugin vm|module DIR
                             write a new VM or REST module, with its tests,
                             that builds against the SDK (docs/plugin-sdk.md)
  chainhost x COMMAND        a wallet on the X-Chain: address, balance, send,
                             export, import (chainhost x --help)
  chainhost c COMMAND        the C-Chain's side of moves between chains: address,
                             balance, export, import (chainhost c --help)
  chainhost p COMMAND        validators, subnets and L1 validators on the P-Chain
                             (chainhost p --help)

Configuration layers, lowest first: embedded defaults < --config FILE <
CHAINHOST_* environment < flags.

Flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "x" {
		return runX(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "c" {
		return runC(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "p" {
		return runP(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "new-plugin" {
		return runNewPlugin(args[1:], stdout, stderr)
	}
	cmd := ""
	if len(args) > 0 && (args[0] == "version" || args[0] == "config") {
		cmd, args = args[0], args[1:]
	}
	if cmd == "version" {
		fmt.Fprintf(stdout, "chainhost %s (plugin protocol %d)\n", version.Version, pluginv1.ProtocolVersion)
		return 0
	}
	cfg, err := config.Load(config.LoadOptions{Args: args, Environ: os.Environ()})
	if errors.Is(err, pflag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		fmt.Fprint(stdout, config.FlagSet().FlagUsages())
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if cmd == "config" {
		out, err := cfg.YAML()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		_, _ = stdout.Write(out)
		return 0
	}
	return serve(cfg, stdout, stderr)
}

func serve(cfg *config.Config, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	n, err := node.New(cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "chainhost: %v\n", err)
		return 1
	}
	if err := n.Start(ctx); err != nil {
		fmt.Fprintf(stderr, "chainhost: %v\n", err)
		shutdown(cfg, n, stderr)
		return 1
	}
	printBanner(stdout, cfg, n)
	<-ctx.Done()
	stop()
	n.Log().Info("shutting down")
	if err := shutdown(cfg, n, stderr); err != nil {
		return 1
	}
	return 0
}

func shutdown(cfg *config.Config, n *node.Node, stderr io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.HTTPShutdownTimeout)
	defer cancel()
	err := n.Stop(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "chainhost: shutdown: %v\n", err)
	}
	return err
}
