package main

import (
	"fmt"
	"io"

	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/node"
)

// printBanner tells the operator where each API answers, like a dev node.
func printBanner(w io.Writer, cfg *config.Config, n *node.Node) {
	base := "http://" + n.Addr().String()
	fmt.Fprintf(w, "\nchainhost is up (network %d, data in %s)\n\n", cfg.NetworkID, cfg.DataDir)
	if cfg.APIHealthEnabled {
		fmt.Fprintf(w, "  health   GET  %s/ext/health\n", base)
	}
	if cfg.APIInfoEnabled {
		fmt.Fprintf(w, "  info     POST %s/ext/info\n", base)
	}
	if cfg.APIMetricsEnabled {
		fmt.Fprintf(w, "  metrics  GET  %s/ext/metrics\n", base)
	}
	if cfg.APIAdminEnabled {
		fmt.Fprintf(w, "  admin    POST %s/ext/admin\n", base)
	} else {
		fmt.Fprintf(w, "  admin    off (start with --api-admin-enabled=true, or make run ARGS=--api-admin-enabled=true)\n")
	}
	for _, c := range n.Chains().Chains() {
		inst, reason := c.Instance()
		if inst == nil {
			fmt.Fprintf(w, "  chain %s (%s): not running: %s\n", c.Alias, c.ID, reason)
			continue
		}
		fmt.Fprintf(w, "  chain %s (%s, VM %s)\n", c.Alias, c.ID, c.VMName())
		for _, h := range inst.Handlers() {
			fmt.Fprintf(w, "    %-8s %s/ext/bc/%s/%s\n", h, base, c.Alias, h)
		}
		if cfg.IndexEnabled {
			for _, k := range inst.IndexKinds() {
				fmt.Fprintf(w, "    index    %s/ext/index/%s/%s\n", base, c.Alias, k)
			}
		}
	}
	fmt.Fprintln(w)
}
