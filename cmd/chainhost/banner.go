package main

import (
	"fmt"
	"io"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/core/node"
)

// The local network's well-known funded key (public test values, never
// for real funds), as the embedded default genesis of the C-Chain funds it.
const (
	localNetworkID  = 12345
	localKeyAddress = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
	localPrivateKey = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
	localXAddress   = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	localPAddress   = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
)

// wsHandler names the handler a chain serves WebSocket at, as its VM
// declares it ("rpc", "ws", ...: sdk.Plugin's Handlers).
const wsHandler = "ws"

// printBanner tells the operator where each API answers, like a dev node:
// every URL as its client takes it (ws:// for WebSocket, https:// and
// wss:// when the node serves TLS).
func printBanner(w io.Writer, cfg *config.Config, n *node.Node) {
	scheme, wsScheme := "http", "ws"
	if cfg.HTTPTLSCertFile != "" {
		scheme, wsScheme = "https", "wss"
	}
	base := scheme + "://" + n.Addr().String()
	wsBase := wsScheme + "://" + n.Addr().String()
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
			if h == "" { // the chain's root handler, as the X-Chain's API
				fmt.Fprintf(w, "    %-8s %s/ext/bc/%s\n", "api", base, c.Alias)
				continue
			}
			hBase := base
			if h == wsHandler {
				hBase = wsBase
			}
			fmt.Fprintf(w, "    %-8s %s/ext/bc/%s/%s\n", h, hBase, c.Alias, h)
		}
		if addr := c.ListenAddr(); addr != "" {
			fmt.Fprintf(w, "    %-8s %s://%s (the chain's own listener: /<handler> and /ext/bc/%s/<handler>, served by its plugin)\n", "listen", scheme, addr, c.Alias)
		}
		if cfg.IndexEnabled {
			for _, k := range c.IndexKinds() {
				note := ""
				if c.IsLegacyIndexKind(k) {
					note = " (legacy, read-only)"
				}
				fmt.Fprintf(w, "    index    %s/ext/index/%s/%s%s\n", base, c.Alias, k, note)
			}
		}
		if c.Alias == "C" && c.VMName() == evmapi.VMName && cfg.NetworkID == localNetworkID {
			fmt.Fprintf(w, "    funded   %s (private key %s, EVM chain ID 43112; moves to and from X: chainhost c --help)\n", localKeyAddress, localPrivateKey)
		}
		if c.Alias == "X" && c.VMName() == xvmapi.VMName && cfg.NetworkID == localNetworkID {
			fmt.Fprintf(w, "    funded   %s (private key %s; try: chainhost x balance --key %s)\n", localXAddress, localPrivateKey, localPrivateKey)
		}
		if c.Alias == "P" && c.VMName() == pvmapi.VMName && cfg.NetworkID == localNetworkID {
			fmt.Fprintf(w, "    funded   %s (private key %s; try: chainhost p validators)\n", localPAddress, localPrivateKey)
		}
	}
	for _, mod := range n.Modules().Modules() {
		modBase := scheme + "://" + n.ModuleAddr(mod).String()
		if inst, reason := mod.Instance(); inst == nil {
			fmt.Fprintf(w, "  module %s: not running: %s\n", mod.Name, reason)
		} else {
			d := inst.Description()
			fmt.Fprintf(w, "  module %s (plugin %s %s)\n", mod.Name, d.Name, d.Version)
		}
		for _, p := range mod.Prefixes() {
			fmt.Fprintf(w, "    %s%s\n", modBase, p)
		}
	}
	fmt.Fprintln(w)
}
