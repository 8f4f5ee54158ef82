package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoclient"
	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	cclient "github.com/chainhost/chainhost/plugins/evm/atomic/client"
	"github.com/chainhost/chainhost/plugins/xvm/client"
)

const cUsage = `chainhost c: the atomic side of a C-Chain for one key (docs/evm.md): what
moves between it and the X-Chain.

Usage:
  chainhost c address --key KEY                       the key's EVM address and its C-Chain address
  chainhost c balance --key KEY [--from CHAIN]        its EVM balance (and what CHAIN exported to it)
  chainhost c export  --key KEY --to-chain CHAIN --amount N [--to ADDR]
  chainhost c import  --key KEY --from-chain CHAIN [--to 0xADDR]

Moving funds is an export on one chain and an import on the other:
  chainhost x export --key KEY --to-chain C --amount 2AVAX    X to C
  chainhost c import --key KEY --from-chain X
  chainhost c export --key KEY --to-chain X --amount 1AVAX    C to X
  chainhost x import --key KEY --from-chain C

An export debits the key's EVM account the amount and the chain's atomic
fee, and sends the amount to ADDR (default: the key's own address) on
CHAIN. An import credits everything CHAIN exported to the key, less the
fee, to the EVM account 0xADDR (default: the key's). Amounts are nAVAX
(AVAX has 9 decimals outside the EVM, 18 inside), or decimals followed by
AVAX ("1.5AVAX"). export and import wait until the chain accepts the
transaction and print its ID.

Flags:
`

// avaxUnits describes AVAX outside the EVM: 9 decimals of nAVAX.
var avaxUnits = client.Asset{Symbol: "AVAX", Denomination: 9}

// runC runs `chainhost c <command>`.
func runC(args []string, stdout, stderr io.Writer) int {
	cc := newChainCmd("c", cUsage, stderr)
	fs := cc.fs
	xChain := fs.String("x-chain", "X", "the X-Chain that names the network's AVAX asset")
	to := fs.String("to", "", "export: recipient on the destination chain (X-local1..., local1... or a CB58 short ID); import: the EVM account 0x...")
	amount := fs.String("amount", "", `export: amount, nAVAX or "1.5AVAX"`)
	toChain, fromChain, from := cc.crossChainFlags()
	return cc.runKeyed(args, func(ctx context.Context, key *avax.PrivateKey) int {
		cmd, fail, node, chain := cc.cmd, cc.fail, *cc.node, *cc.chain
		// The X-Chain's wallet reads the network and the AVAX asset, and
		// reads and writes the X-Chain's addresses.
		xw, err := cc.xWallet(ctx, *xChain, key)
		if err != nil {
			return fail(err)
		}
		cID, err := xw.Client.ResolveChain(ctx, chain)
		if err != nil {
			return fail(err)
		}
		w := &cclient.Wallet{Client: cclient.New(node, chain, nil), Key: key,
			Ctx: cclient.Context{NetworkID: xw.NetworkID, ChainID: cID, AVAXAssetID: xw.FeeAsset}}
		switch cmd {
		case "address":
			fmt.Fprintf(stdout, "%s (EVM account)\n%s (owner of what other chains export to it)\n", w.EVMAddress(), w.Address())
			return 0
		case "balance":
			return cBalance(ctx, w, *from, stdout, fail)
		case "export":
			if *toChain == "" || *amount == "" {
				return fail(errors.New("--to-chain and --amount are required"))
			}
			n, err := parseAmount(*amount, avaxUnits)
			if err != nil {
				return fail(err)
			}
			dest, err := xw.Client.ResolveChain(ctx, *toChain)
			if err != nil {
				return fail(err)
			}
			recipient, err := xRecipient(xw, *to)
			if err != nil {
				return fail(err)
			}
			tx, err := w.BuildExport(ctx, dest, n, recipient)
			if err != nil {
				return fail(err)
			}
			id, err := w.Issue(ctx, tx)
			if err != nil {
				return fail(err)
			}
			fee, _ := atx.Burned(tx)
			shown := utxoclient.FormatAddress(*toChain, xw.NetworkID, recipient)
			fmt.Fprintf(stdout, "export %s to %s, fee %d nAVAX: tx %s\n", formatAmount(n, avaxUnits), shown, fee, id)
			return 0
		case "import":
			if *fromChain == "" {
				return fail(errors.New("--from-chain is required"))
			}
			source, err := xw.Client.ResolveChain(ctx, *fromChain)
			if err != nil {
				return fail(err)
			}
			recipient := w.EVMAddress()
			if *to != "" {
				if !common.IsHexAddress(*to) {
					return fail(fmt.Errorf("--to %q: want an EVM address 0x... (40 hex digits)", *to))
				}
				recipient = common.HexToAddress(*to)
			}
			tx, err := w.BuildImport(ctx, *fromChain, source, recipient)
			if err != nil {
				return fail(err)
			}
			id, err := w.Issue(ctx, tx)
			if err != nil {
				return fail(err)
			}
			credited := tx.Unsigned.(*atx.ImportTx).Outs[0].Amount
			fee, _ := atx.Burned(tx)
			fmt.Fprintf(stdout, "import %s from %s to %s, fee %d nAVAX: tx %s\n", formatAmount(credited, avaxUnits), *fromChain, recipient, fee, id)
			return 0
		}
		return fail(fmt.Errorf("unknown command %q (address, balance, export, import)", cmd))
	})
}

// cBalance prints the key's EVM balance, and what chain from exported to
// it.
func cBalance(ctx context.Context, w *cclient.Wallet, from string, stdout io.Writer, fail func(error) int) int {
	addr := w.EVMAddress()
	wei, err := w.Client.Balance(ctx, addr)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "%s on %s:\n  %s AVAX (%s wei)\n", addr, w.Client.Chain(), formatWei(wei), wei)
	if from == "" {
		return 0
	}
	utxos, err := w.Importable(ctx, from)
	if err != nil {
		return fail(err)
	}
	var sum uint64
	for _, u := range utxos {
		sum += u.Out.Amt
	}
	fmt.Fprintf(stdout, "exported by %s to %s, waiting to be imported (chainhost c import --from-chain %s):\n  %s\n",
		from, w.Address(), from, formatAmount(sum, avaxUnits))
	return 0
}

// formatWei writes a balance in wei as AVAX (18 decimals).
func formatWei(wei *big.Int) string {
	r := new(big.Rat).SetFrac(wei, new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
	return strings.TrimRight(strings.TrimRight(r.FloatString(18), "0"), ".")
}
