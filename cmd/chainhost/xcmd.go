package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/xvm/client"
	"github.com/chainhost/chainhost/sdk/ids"
)

const xUsage = `chainhost x: a wallet of one key on an X-Chain (docs/xvm.md).

Usage:
  chainhost x address --key KEY                      the key's address
  chainhost x balance --key KEY [--from CHAIN]       its balances (and what CHAIN exported to it)
  chainhost x send    --key KEY --to ADDR --amount N [--asset AVAX]
  chainhost x export  --key KEY --to-chain CHAIN --amount N [--to ADDR]
  chainhost x import  --key KEY --from-chain CHAIN [--to ADDR]
  chainhost x create-asset --key KEY --name NAME --symbol SYM --supply N [--denomination D] [--to ADDR]

KEY is a private key, 64 hex digits ("0x" optional) or PrivateKey-<cb58>;
--key-file FILE reads it from a file instead. Amounts are whole units of
the asset's smallest denomination (nAVAX), or decimals followed by the
asset's symbol ("1.5AVAX"). send, export, import and create-asset wait
until the chain accepts the transaction and print its ID; a new asset's ID
is its transaction's, which --asset of send and export takes. An export to CHAIN waits there in
shared memory until "import" on CHAIN (for the X side: chainhost x import
--chain X2 --from-chain X) consumes it.

Flags:
`

// runX runs `chainhost x <command>`.
func runX(args []string, stdout, stderr io.Writer) int {
	cc := newChainCmd("x", xUsage, stderr)
	fs := cc.fs
	to := fs.String("to", "", "recipient address (X-local1..., local1... or a CB58 short ID); default: the key's own")
	amount := fs.String("amount", "", `amount: nAVAX, or "1.5AVAX"`)
	asset := fs.String("asset", "AVAX", "asset to send: alias or ID")
	toChain, fromChain, from := cc.crossChainFlags()
	name := fs.String("name", "", "create-asset: the asset's name (1 to 128 ASCII letters, digits and inner spaces)")
	symbol := fs.String("symbol", "", "create-asset: its symbol (1 to 4 ASCII capitals)")
	denomination := fs.Uint8("denomination", 0, "create-asset: its decimal places (0 to 32)")
	supply := fs.String("supply", "", `create-asset: its whole supply, to --to: whole units of the smallest, or "1000SYM"`)
	return cc.runKeyed(args, func(ctx context.Context, key *avax.PrivateKey) int {
		cmd, fail := cc.cmd, cc.fail
		w, err := cc.xWallet(ctx, *cc.chain, key)
		if err != nil {
			return fail(err)
		}
		recipient, err := xRecipient(w, *to)
		if err != nil {
			return fail(err)
		}
		switch cmd {
		case "address":
			fmt.Fprintln(stdout, w.FormatAddress(w.Address()))
			return 0
		case "balance":
			return xBalance(ctx, w, *from, stdout, fail)
		case "send", "export":
			if *amount == "" {
				return fail(errors.New("--amount is required"))
			}
			desc, err := w.Client.GetAssetDescription(ctx, *asset)
			if err != nil {
				return fail(fmt.Errorf("asset %s: %w", *asset, err))
			}
			n, err := parseAmount(*amount, desc)
			if err != nil {
				return fail(err)
			}
			var id ids.ID
			if cmd == "send" {
				id, err = w.Send(ctx, desc.ID, n, recipient)
			} else {
				if *toChain == "" {
					return fail(errors.New("--to-chain is required"))
				}
				dest, derr := w.Client.ResolveChain(ctx, *toChain)
				if derr != nil {
					return fail(derr)
				}
				id, err = w.Export(ctx, dest, desc.ID, n, recipient)
			}
			if err != nil {
				return fail(err)
			}
			fmt.Fprintf(stdout, "%s %s to %s: tx %s\n", cmd, formatAmount(n, desc), w.FormatAddress(recipient), id)
			return 0
		case "import":
			if *fromChain == "" {
				return fail(errors.New("--from-chain is required"))
			}
			id, err := w.Import(ctx, *fromChain, recipient)
			if err != nil {
				return fail(err)
			}
			fmt.Fprintf(stdout, "import from %s to %s: tx %s\n", *fromChain, w.FormatAddress(recipient), id)
			return 0
		case "create-asset":
			return xCreateAsset(ctx, w, client.NewAsset{Name: *name, Symbol: *symbol, Denomination: *denomination, To: recipient}, *supply, stdout, fail)
		}
		return fail(fmt.Errorf("unknown command %q (address, balance, send, export, import, create-asset)", cmd))
	})
}

// xBalance prints the key's balances, and what chain from exported to it.
func xBalance(ctx context.Context, w *client.Wallet, from string, stdout io.Writer, fail func(error) int) int {
	addr := w.FormatAddress(w.Address())
	bals, err := w.Client.GetAllBalances(ctx, addr, false)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "%s on %s:\n", addr, w.Client.Chain())
	if len(bals) == 0 {
		fmt.Fprintln(stdout, "  nothing")
	}
	for _, b := range bals {
		desc, err := w.Client.GetAssetDescription(ctx, b.Asset)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "  %s\n", formatAmount(b.Balance, desc))
	}
	if from == "" {
		return 0
	}
	if id, err := w.Client.ResolveChain(ctx, from); err != nil {
		return fail(err)
	} else if id == w.ChainID {
		return fail(fmt.Errorf("--from %s is this chain: name the chain that exported to %s", from, w.Client.Chain()))
	}
	utxos, err := w.Client.AllUTXOs(ctx, []string{addr}, from)
	if err != nil {
		return fail(err)
	}
	sums := map[ids.ID]uint64{}
	for _, u := range utxos {
		sums[u.AssetID] += u.Out.Amt
	}
	fmt.Fprintf(stdout, "exported by %s, waiting to be imported (chainhost x import --from-chain %s):\n", from, from)
	if len(sums) == 0 {
		fmt.Fprintln(stdout, "  nothing")
	}
	for asset, v := range sums {
		desc, err := w.Client.GetAssetDescription(ctx, asset.String())
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "  %s\n", formatAmount(v, desc))
	}
	return 0
}

// xCreateAsset creates asset a of supply (read in its own units) and
// prints its ID.
func xCreateAsset(ctx context.Context, w *client.Wallet, a client.NewAsset, supply string, stdout io.Writer, fail func(error) int) int {
	switch {
	case a.Name == "":
		return fail(errors.New("--name is required"))
	case a.Symbol == "":
		return fail(errors.New("--symbol is required"))
	case supply == "":
		return fail(errors.New("--supply is required"))
	}
	desc := client.Asset{Name: a.Name, Symbol: a.Symbol, Denomination: a.Denomination}
	n, err := parseAmount(supply, desc)
	if err != nil {
		return fail(fmt.Errorf("--supply: %w", err))
	}
	a.Supply = n
	id, err := w.CreateAsset(ctx, a)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "create-asset %s (%s, denomination %d): %s to %s: asset %s\n",
		a.Name, a.Symbol, a.Denomination, formatAmount(n, desc), w.FormatAddress(a.To), id)
	return 0
}

// xRecipient reads --to on the X side: an address, or the key's own
// when empty.
func xRecipient(w *client.Wallet, to string) (avax.ShortID, error) {
	if to == "" {
		return w.Address(), nil
	}
	return w.ParseAddress(to)
}

// parseAmount reads an amount: an integer of the smallest unit, or a
// decimal followed by the asset's symbol.
func parseAmount(s string, a client.Asset) (uint64, error) {
	if n, ok := new(big.Int).SetString(s, 10); ok {
		if n.Sign() <= 0 || !n.IsUint64() {
			return 0, fmt.Errorf("amount %s is out of range", s)
		}
		return n.Uint64(), nil
	}
	num, ok := strings.CutSuffix(strings.ToUpper(s), strings.ToUpper(a.Symbol))
	if !ok {
		return 0, fmt.Errorf("amount %q: want an integer of the smallest unit, or a decimal and %q (1.5%s)", s, a.Symbol, a.Symbol)
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(num))
	if !ok {
		return 0, fmt.Errorf("amount %q is not a number", s)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.Denomination)), nil)))
	if !r.IsInt() || r.Sign() <= 0 || !r.Num().IsUint64() {
		return 0, fmt.Errorf("amount %q is not a positive whole number of the smallest unit", s)
	}
	return r.Num().Uint64(), nil
}

// formatAmount writes an amount in the asset's units and the smallest.
func formatAmount(v uint64, a client.Asset) string {
	r := new(big.Rat).SetFrac(new(big.Int).SetUint64(v), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.Denomination)), nil))
	s := strings.TrimRight(strings.TrimRight(r.FloatString(int(a.Denomination)), "0"), ".")
	return fmt.Sprintf("%s %s (%d)", s, a.Symbol, v)
}
