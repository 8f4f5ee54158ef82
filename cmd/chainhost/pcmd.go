package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	xclient "github.com/chainhost/chainhost/plugins/xvm/client"
	"github.com/chainhost/chainhost/sdk/ids"
)

const pUsage = `chainhost p: AVAX, validators, subnets and L1 validators on a P-Chain, with one key (docs/pchain.md).

Usage:
  chainhost p address       --key KEY                        the key's address
  chainhost p balance       --key KEY [--from CHAIN]         its AVAX (and what CHAIN exported to it)
  chainhost p export        --key KEY --to-chain CHAIN --amount N   to the key on CHAIN (X or C), which imports it
  chainhost p import        --key KEY --from-chain CHAIN            what CHAIN exported to the key
  chainhost p validators    [--subnet ID] [--node-id NODE]   current validators (an L1's with --subnet)
  chainhost p add-validator --key KEY --node-id NODE --weight N --end TIME [--start TIME] [--delegation-fee PCT]
  chainhost p add-delegator --key KEY --node-id NODE --weight N --end TIME [--start TIME]
  chainhost p create-subnet --key KEY
  chainhost p convert       --key KEY --subnet ID --validator NODE:WEIGHT:BALANCE... [--manager-chain ID] [--manager-address HEX]
  chainhost p register      --key KEY --subnet ID --node-id NODE --weight N --balance N [--expiry DURATION]
  chainhost p top-up        --key KEY --validation-id ID --amount N
  chainhost p set-weight    --key KEY --validation-id ID --weight N      (0 removes the validator)
  chainhost p disable       --key KEY --validation-id ID

KEY is a private key, 64 hex digits ("0x" optional) or PrivateKey-<cb58>;
--key-file FILE reads it from a file instead. NODE is NodeID-<cb58>.
Amounts (weights, balances) are nAVAX, or decimals followed by AVAX
("2000AVAX"). TIME is unix seconds, RFC 3339, or +DURATION from the
chain's time ("+336h"). The key's BLS keys for its validators are derived
from it and the node ID, so the same key later signs the L1's Warp
messages (register, set-weight): a development convenience, not keys for
real funds. convert without --manager-chain first creates the manager's
chain on the subnet. Each command waits until the chain accepts its
transaction and prints its ID.

Flags:
`

// pAVAX describes AVAX for amounts: 9 decimals.
var pAVAX = xclient.Asset{Symbol: "AVAX", Denomination: 9}

// managerVMID names the VM of a manager chain that convert creates: the
// chain is recorded, never run.
var managerVMID = ids.ID{'s', 'u', 'b', 'n', 'e', 't', 'e', 'v', 'm'}

// runP runs `chainhost p <command>`.
func runP(args []string, stdout, stderr io.Writer) int {
	cc := newChainCmd("p", pUsage, stderr)
	fs := cc.fs
	nodeText := fs.String("node-id", "", "node ID: NodeID-<cb58>")
	weight := fs.String("weight", "", `weight: nAVAX, or "2000AVAX"`)
	balance := fs.String("balance", "", `L1 validator balance: nAVAX, or "1AVAX"`)
	amount := fs.String("amount", "", `amount: nAVAX, or "1AVAX"`)
	startText := fs.String("start", "", "start of the staking period (default: now)")
	endText := fs.String("end", "", "end of the staking period")
	fee := fs.Float64("delegation-fee", 2, "delegation fee, percent")
	subnetText := fs.String("subnet", "", "subnet ID")
	validationText := fs.String("validation-id", "", "an L1 validator's validation ID")
	validators := fs.StringArray("validator", nil, "convert: an initial L1 validator NODE:WEIGHT:BALANCE (repeat it)")
	managerChain := fs.String("manager-chain", "", "convert: the chain of the L1's validator manager (default: create one)")
	managerAddress := fs.String("manager-address", "0x0feedc0de0000000000000000000000000000000", "convert: the validator manager's address, hex")
	expiry := fs.Duration("expiry", time.Hour, "register: how long the registration message is valid (at most 24h)")
	toChain, fromChain, from := cc.crossChainFlags()
	if code, ok := cc.parse(args); !ok {
		return code
	}
	cmd, fail, node, chain := cc.cmd, cc.fail, *cc.node, *cc.chain
	ctx, cancel := cc.context()
	defer cancel()
	c := client.New(node, chain, nil)
	if cmd == "validators" {
		return pValidators(ctx, c, *subnetText, *nodeText, stdout, fail)
	}
	key, err := cc.key()
	if err != nil {
		return fail(err)
	}
	w, err := client.NewWallet(ctx, c, key)
	if err != nil {
		return fail(fmt.Errorf("reach chain %s at %s: %w", chain, node, err))
	}
	done := func(what string, id ids.ID, err error) int {
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%s: tx %s\n", what, id)
		return 0
	}
	switch cmd {
	case "address":
		fmt.Fprintln(stdout, w.FormatAddress(w.Address()))
		return 0
	case "balance":
		b, err := c.GetBalance(ctx, []string{w.FormatAddress(w.Address())})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%s on %s:\n  %s\n", w.FormatAddress(w.Address()), c.Chain(), formatAmount(b.Unlocked, pAVAX))
		if b.LockedNotStakeable > 0 {
			fmt.Fprintf(stdout, "  %s locked\n", formatAmount(b.LockedNotStakeable, pAVAX))
		}
		if *from == "" {
			return 0
		}
		exported, err := c.AllUTXOs(ctx, []string{w.FormatAddress(w.Address())}, *from)
		if err != nil {
			return fail(err)
		}
		var sum uint64
		for _, u := range exported {
			sum += u.Out.Amt
		}
		fmt.Fprintf(stdout, "exported by %s, waiting to be imported (chainhost p import --from-chain %s):\n  %s\n", *from, *from, formatAmount(sum, pAVAX))
		return 0
	case "export":
		if *toChain == "" {
			return fail(errors.New("--to-chain is required"))
		}
		n, err := pAmount("amount", *amount)
		if err != nil {
			return fail(err)
		}
		dest, err := c.ResolveChain(ctx, *toChain)
		if err != nil {
			return fail(err)
		}
		tx, err := w.BuildExport(ctx, dest, n, w.Address())
		if err != nil {
			return fail(err)
		}
		id, err := c.IssueTx(ctx, tx.Bytes())
		return done(fmt.Sprintf("export %s to %s", formatAmount(n, pAVAX), *toChain), id, err)
	case "import":
		if *fromChain == "" {
			return fail(errors.New("--from-chain is required"))
		}
		tx, err := w.BuildImport(ctx, *fromChain, w.Address())
		if err != nil {
			return fail(err)
		}
		id, err := c.IssueTx(ctx, tx.Bytes())
		return done(fmt.Sprintf("import from %s to %s", *fromChain, w.FormatAddress(w.Address())), id, err)
	case "add-validator", "add-delegator":
		s, err := pStake(ctx, c, *nodeText, *weight, *startText, *endText)
		if err != nil {
			return fail(err)
		}
		if cmd == "add-delegator" {
			id, err := w.AddDelegator(ctx, s)
			return done(fmt.Sprintf("delegate %s to %s until %s", formatAmount(s.Weight, pAVAX), s.NodeID, pTime(s.End)), id, err)
		}
		if *fee < 0 || *fee > 100 {
			return fail(fmt.Errorf("--delegation-fee %v is not a percentage", *fee))
		}
		pop := txs.NewProofOfPossession(w.DevBLSKey(s.NodeID))
		id, err := w.AddValidator(ctx, s, uint32(*fee*txs.PercentDenominator/100+0.5), &pop)
		return done(fmt.Sprintf("validate %s with %s until %s", s.NodeID, formatAmount(s.Weight, pAVAX), pTime(s.End)), id, err)
	case "create-subnet":
		id, err := w.CreateSubnet(ctx)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "subnet %s: tx %s\n", id, id)
		return 0
	case "convert":
		subnet, err := idFlag("subnet", *subnetText)
		if err != nil {
			return fail(err)
		}
		if len(*validators) == 0 {
			return fail(errors.New("--validator NODE:WEIGHT:BALANCE is required (repeat it for more)"))
		}
		var vdrs []client.NewL1Validator
		for _, v := range *validators {
			nv, err := pL1Validator(v)
			if err != nil {
				return fail(err)
			}
			vdrs = append(vdrs, nv)
		}
		addr, err := avax.DecodePrefixedHex(*managerAddress)
		if err != nil {
			return fail(fmt.Errorf("--manager-address: %w", err))
		}
		mgr := ids.ID{}
		if *managerChain != "" {
			if mgr, err = ids.FromString(*managerChain); err != nil {
				return fail(fmt.Errorf("--manager-chain: %w", err))
			}
		} else {
			if mgr, err = w.CreateChain(ctx, subnet, "validatormanager", managerVMID, nil); err != nil {
				return fail(fmt.Errorf("create the manager's chain: %w", err))
			}
			fmt.Fprintf(stdout, "manager chain %s: tx %s\n", mgr, mgr)
		}
		id, vids, err := w.ConvertSubnet(ctx, subnet, mgr, addr, vdrs)
		if err != nil {
			return fail(err)
		}
		for i, v := range vdrs {
			fmt.Fprintf(stdout, "L1 validator %s: validation ID %s\n", v.NodeID, vids[i])
		}
		fmt.Fprintf(stdout, "convert %s to an L1: tx %s\n", subnet, id)
		return 0
	case "register":
		subnet, err := idFlag("subnet", *subnetText)
		if err != nil {
			return fail(err)
		}
		nv, err := pL1Validator(*nodeText + ":" + *weight + ":" + *balance)
		if err != nil {
			return fail(fmt.Errorf("--node-id, --weight and --balance: %w", err))
		}
		now, err := c.GetTimestamp(ctx)
		if err != nil {
			return fail(err)
		}
		id, vid, err := w.RegisterL1Validator(ctx, subnet, nv, uint64(now.Add(*expiry).Unix()))
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "L1 validator %s: validation ID %s\n", nv.NodeID, vid)
		return done("register", id, nil)
	case "top-up", "set-weight", "disable":
		vid, err := idFlag("validation-id", *validationText)
		if err != nil {
			return fail(err)
		}
		switch cmd {
		case "top-up":
			n, err := pAmount("amount", *amount)
			if err != nil {
				return fail(err)
			}
			id, err := w.IncreaseBalance(ctx, vid, n)
			return done(fmt.Sprintf("top up %s with %s", vid, formatAmount(n, pAVAX)), id, err)
		case "set-weight":
			if *weight == "" {
				return fail(errors.New("--weight is required"))
			}
			n, err := strconv.ParseUint(*weight, 10, 64)
			if err != nil {
				return fail(fmt.Errorf("--weight %q: an L1 validator's weight is a whole number", *weight))
			}
			id, err := w.SetL1ValidatorWeight(ctx, vid, n)
			return done(fmt.Sprintf("set the weight of %s to %d", vid, n), id, err)
		default:
			id, err := w.Disable(ctx, vid)
			return done("disable "+vid.String(), id, err)
		}
	}
	return fail(fmt.Errorf("unknown command %q (address, balance, export, import, validators, add-validator, add-delegator, create-subnet, convert, register, top-up, set-weight, disable)", cmd))
}

// pValidators prints the primary network's validators, or an L1's.
func pValidators(ctx context.Context, c *client.Client, subnet, node string, stdout io.Writer, fail func(error) int) int {
	var only []avax.NodeID
	if node != "" {
		n, err := avax.ParseNodeID(node)
		if err != nil {
			return fail(err)
		}
		only = append(only, n)
	}
	if subnet != "" {
		id, err := ids.FromString(subnet)
		if err != nil {
			return fail(fmt.Errorf("--subnet: %w", err))
		}
		vdrs, err := c.GetL1Validators(ctx, id)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%d validators of L1 %s\n", len(vdrs), id)
		for _, v := range vdrs {
			if node != "" && v.NodeID != only[0] {
				continue
			}
			state := "active"
			if v.Balance == 0 {
				state = "inactive"
			}
			fmt.Fprintf(stdout, "  %s weight %d, %s, balance %s, validation ID %s\n", v.NodeID, v.Weight, state, formatAmount(uint64(v.Balance), pAVAX), v.ValidationID)
		}
		return 0
	}
	vdrs, err := c.GetCurrentValidators(ctx, only...)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "%d validators of the primary network\n", len(vdrs))
	for _, v := range vdrs {
		fmt.Fprintf(stdout, "  %s %s until %s, fee %s%%, %d delegators (%s)\n", v.NodeID, formatAmount(uint64(v.Weight), pAVAX),
			pTime(uint64(v.EndTime)), v.DelegationFee, v.DelegatorCount, formatAmount(uint64(v.DelegatorWeight), pAVAX))
	}
	return 0
}

// pStake reads a staker's flags; times relative to the chain's time.
func pStake(ctx context.Context, c *client.Client, node, weight, start, end string) (client.Stake, error) {
	nodeID, err := avax.ParseNodeID(node)
	if err != nil {
		return client.Stake{}, fmt.Errorf("--node-id: %w", err)
	}
	w, err := pAmount("weight", weight)
	if err != nil {
		return client.Stake{}, err
	}
	if end == "" {
		return client.Stake{}, errors.New("--end is required")
	}
	now, err := c.GetTimestamp(ctx)
	if err != nil {
		return client.Stake{}, err
	}
	s := client.Stake{NodeID: nodeID, Weight: w}
	if start != "" {
		if s.Start, err = pParseTime("start", start, now); err != nil {
			return client.Stake{}, err
		}
	}
	if s.End, err = pParseTime("end", end, now); err != nil {
		return client.Stake{}, err
	}
	return s, nil
}

// idFlag reads a required ID flag.
func idFlag(flag, s string) (ids.ID, error) {
	if s == "" {
		return ids.ID{}, fmt.Errorf("--%s is required", flag)
	}
	id, err := ids.FromString(s)
	if err != nil {
		return ids.ID{}, fmt.Errorf("--%s: %w", flag, err)
	}
	return id, nil
}

// pParseTime reads unix seconds, RFC 3339 or +DURATION after now.
func pParseTime(flag, s string, now time.Time) (uint64, error) {
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("--%s %q: want +DURATION such as +336h", flag, s)
		}
		return uint64(now.Add(d).Unix()), nil
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return n, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: want unix seconds, RFC 3339 or +DURATION", flag, s)
	}
	return uint64(t.Unix()), nil
}

// pAmount reads a required amount flag.
func pAmount(flag, s string) (uint64, error) {
	if s == "" {
		return 0, fmt.Errorf("--%s is required", flag)
	}
	n, err := parseAmount(s, pAVAX)
	if err != nil {
		return 0, fmt.Errorf("--%s: %w", flag, err)
	}
	return n, nil
}

// pL1Validator reads NODE:WEIGHT:BALANCE.
func pL1Validator(s string) (client.NewL1Validator, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return client.NewL1Validator{}, fmt.Errorf("L1 validator %q: want NODE:WEIGHT:BALANCE", s)
	}
	nodeID, err := avax.ParseNodeID(parts[0])
	if err != nil {
		return client.NewL1Validator{}, err
	}
	w, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil || w == 0 {
		return client.NewL1Validator{}, fmt.Errorf("L1 validator %q: the weight is a positive whole number", s)
	}
	b, err := parseAmount(parts[2], pAVAX)
	if err != nil {
		return client.NewL1Validator{}, fmt.Errorf("L1 validator %q: balance: %w", s, err)
	}
	return client.NewL1Validator{NodeID: nodeID, Weight: w, Balance: b}, nil
}

// pTime writes unix seconds as RFC 3339.
func pTime(t uint64) string { return time.Unix(int64(t), 0).UTC().Format(time.RFC3339) }
